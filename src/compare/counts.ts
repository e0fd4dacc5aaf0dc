// The failure rate's pass bound where failures are few: exact for the counts.
//
// A normal bound on a binomial needs failures to be normal; with none, the
// tightest one-sided statement is the exact one (no failure in n requests:
// the rate is below 1 − α^(1/n), about 3/n at 95 %). The pass boundary tests
// an increase of exactly the margin m, and the case where it is hardest not
// to pass wrongly is a baseline that never fails and a candidate failing at
// m: then the candidate's failures F_k at the looks are one binomial walk,
// and a look passes when F_k ≤ c_k. Because F only grows, the looks' events
// are nested, and the probability that any look passes can be computed
// exactly, look by look: each threshold c_k is the largest that keeps it
// within the α the design has spent by look k. Zero failures then pass as
// soon as (1 − m)^n ≤ α spent — at the first look within 1.17 × the exact
// minimum at the defaults.
//
// Each threshold is carried to any counts as a level ℓ_k: the α spent by
// the look, moved between the binomial tails at c_k and c_k + 1 where it is
// not (every level there passes the same counts in the worst case). The
// increase's bound is Newcombe's (MOVER) with Clopper–Pearson limits of both
// arms at ℓ_k — with no baseline failure the candidate's exact bound, so the
// threshold above — on counts deflated by their overdispersion between
// pairs (Rao–Scott: failures that cluster count for fewer independent
// requests). Where failures are many the pairs' own t bound (calibrated)
// dominates and carries the error control.

import { probit } from "simple-statistics";
import type { SequentialDesign } from "./sequential.ts";
import { tCdf } from "./tdist.ts";

/** Expected failures at the margin beyond which the counts are normal: the look's nominal level stands. */
const EXACT_UP_TO_FAILURES = 1000;

/** ln P(X = j) for j = 0…upTo, X ~ Binomial(n, p). */
function logPmf(n: number, p: number, upTo: number): Float64Array {
  const out = new Float64Array(upTo + 1);
  if (p <= 0) {
    out.fill(Number.NEGATIVE_INFINITY);
    out[0] = 0;
    return out;
  }
  const odds = Math.log(p) - Math.log1p(-p);
  let l = n * Math.log1p(-p);
  for (let j = 0; j <= upTo; j++) {
    out[j] = j <= n ? l : Number.NEGATIVE_INFINITY;
    l += Math.log(n - j) - Math.log(j + 1) + odds;
  }
  return out;
}

/** P(X ≤ f), X ~ Binomial(n, p), summed in logs (no underflow at large n). */
export function binomialCdf(f: number, n: number, p: number): number {
  if (f < 0) return 0;
  if (f >= n || p <= 0) return 1;
  if (p >= 1) return 0;
  const logs = logPmf(n, p, f);
  let top = Number.NEGATIVE_INFINITY;
  for (const l of logs) top = Math.max(top, l);
  let sum = 0;
  for (const l of logs) sum += Math.exp(l - top);
  return Math.min(1, sum * Math.exp(top));
}

/** The p where a decreasing function of p crosses `target`, by bisection on [0, 1]. */
function solve(f: (p: number) => number, target: number): number {
  let [lo, hi] = [0, 1];
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (f(mid) > target) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Beyond this many failures (and successes) a limit is the normal one: as exact, and O(1). */
const NORMAL_BEYOND = 1000;

/** The normal limit of a rate with many failures and successes: p̂ ± z·√(p̂(1 − p̂)/n). */
function normalLimit(failed: number, n: number, level: number, side: 1 | -1): number {
  const p = failed / n;
  return Math.min(1, Math.max(0, p + side * probit(1 - level) * Math.sqrt((p * (1 - p)) / n)));
}

const many = (failed: number, n: number) => failed > NORMAL_BEYOND && n - failed > NORMAL_BEYOND;

/** Clopper–Pearson's one-sided upper limit of a rate at error `level`: P(X ≤ failed | p) = level. */
export function exactUpper(failed: number, n: number, level: number): number {
  if (n <= 0) return 1;
  if (failed >= n) return 1;
  if (failed === 0) return 1 - level ** (1 / n);
  if (many(failed, n)) return normalLimit(failed, n, level, 1);
  return solve((p) => binomialCdf(failed, n, p), level);
}

/** Clopper–Pearson's one-sided lower limit at error `level`: P(X ≥ failed | p) = level. */
export function exactLower(failed: number, n: number, level: number): number {
  if (n <= 0 || failed <= 0) return 0;
  if (many(failed, n)) return normalLimit(failed, n, level, -1);
  return solve((p) => binomialCdf(failed - 1, n, p), 1 - level);
}

/** The candidate's minus the baseline's rate: Newcombe's (MOVER) upper bound from exact limits at `level`. */
export function increaseUpper(
  baseline: { failed: number; counted: number },
  candidate: { failed: number; counted: number },
  level: number,
): number {
  const pb = baseline.failed / baseline.counted;
  const pc = candidate.failed / candidate.counted;
  const uc = exactUpper(candidate.failed, candidate.counted, level);
  const lb = exactLower(baseline.failed, baseline.counted, level);
  return pc - pb + Math.sqrt((uc - pc) ** 2 + (pb - lb) ** 2);
}

/** The distribution of F after `steps` more requests: `mass` convolved with Binomial(steps, p). */
function advance(mass: Float64Array, steps: number, p: number): Float64Array<ArrayBuffer> {
  // The binomial's mass beyond its mean + 12 SD + 20 is below 1e-15: left out.
  const reach = steps * p + 12 * Math.sqrt(steps * p) + 20;
  const width = Math.min(mass.length - 1, steps, Math.ceil(reach));
  const pmf = Array.from(logPmf(steps, p, width), Math.exp);
  const out = new Float64Array(mass.length);
  for (let i = 0; i < mass.length; i++) {
    const m = mass[i] ?? 0;
    if (m === 0) continue;
    for (let j = 0; j <= width && i + j < out.length; j++)
      out[i + j] = (out[i + j] ?? 0) + m * (pmf[j] ?? 0);
  }
  return out;
}

const cache = new Map<string, number[]>();

/**
 * Each look's level for the pass bound: `requests` the candidate's counted
 * requests at the looks so far, `spent` the α the design has spent by each,
 * `margin` the tolerance. A level below the tail at 0 passes nothing at that
 * look; past EXACT_UP_TO_FAILURES expected failures, `nominal[k]` stands.
 */
export function passLevels(
  requests: readonly number[],
  margin: number,
  spent: readonly number[],
  nominal: readonly number[],
): number[] {
  const key = `${requests.join(",")}|${margin}|${spent.join(",")}|${nominal.join(",")}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const last = requests.at(-1) ?? 0;
  if (margin <= 0 || margin >= 1 || last * margin > EXACT_UP_TO_FAILURES) {
    const levels = requests.map((_, k) => nominal[k] ?? 0);
    cache.set(key, levels);
    return levels;
  }
  // Paths not yet passed, by failures so far; a pass needs fewer failures than n·m.
  let alive = new Float64Array(Math.ceil(last * margin) + 2);
  alive[0] = 1;
  let [before, used] = [0, 0];
  const levels = requests.map((n, k) => {
    alive = advance(alive, n - before, margin);
    before = n;
    const allowed = (spent[k] ?? 0) - used;
    let [c, mass] = [-1, 0];
    while (c + 1 < alive.length && mass + (alive[c + 1] ?? 0) <= allowed) mass += alive[++c] ?? 0;
    used += mass;
    for (let j = 0; j <= c; j++) alive[j] = 0;
    // The α spent by this look, moved inside (tail at c, tail at c + 1) where it is not:
    // any level there passes the same counts in the worst case, and none is a tie at the margin.
    const [atC, next] = [binomialCdf(c, n, margin), binomialCdf(c + 1, n, margin)];
    const inset = (next - atC) / 1000;
    return Math.min(next - inset, Math.max(atC + inset, spent[k] ?? 0));
  });
  cache.set(key, levels);
  return levels;
}

/**
 * The levels of a design's looks for the candidate's `requests` at each look
 * reached (passLevels, with the look's nominal level — its critical t's — past
 * the exact range).
 */
export function designLevels(
  requests: readonly number[],
  tolerance: number,
  design: SequentialDesign,
): number[] {
  const nominal = requests.map((_, k) => {
    const pairs = design.looks[k] ?? 0;
    return pairs >= 2 ? 1 - tCdf(design.critical[k] ?? Infinity, pairs - 1) : 0;
  });
  return passLevels(requests, tolerance, design.spent, nominal);
}

/** One pair's failures on each arm. */
interface ArmCounts {
  failed: number;
  counted: number;
}

/**
 * The failures' overdispersion between pairs, at least 1: each arm's Pearson
 * χ² of its per-pair counts over its degrees of freedom, pooled over the arms
 * that failed at all (Rao & Scott's design effect for clustered binary data).
 */
export function dispersion(arms: readonly (readonly ArmCounts[])[]): number {
  let [chi2, df] = [0, 0];
  for (const counts of arms) {
    const failed = counts.reduce((s, c) => s + c.failed, 0);
    const n = counts.reduce((s, c) => s + c.counted, 0);
    const p = n > 0 ? failed / n : 0;
    if (p <= 0 || p >= 1 || counts.length < 2) continue;
    for (const c of counts) chi2 += (c.failed - c.counted * p) ** 2 / (c.counted * p * (1 - p));
    df += counts.length - 1;
  }
  return df > 0 ? Math.max(1, chi2 / df) : 1;
}
