// The gate's sequential design: when it looks at its pairs, and the critical
// value of each look. The looks are pre-declared — after `trials` pairs, then
// every `step` pairs (a balanced AB + BA block), up to `maxTrials` — and the
// one-sided error α is spent over them: most of it at the first look (so a
// clear answer stops there), the rest in proportion to the pairs added.
//
// The critical values are calibrated, not bounded: under a mean change of
// exactly the margin a boundary tests, the statistics T_k = (d̄_k − margin) /
// (s_k / √n_k) of the nested looks have a joint law that depends on the pair
// counts alone (they are pivotal: σ cancels), so the probability that any
// look crosses c_k is computed once, by simulating that law with a fixed seed
// (deterministic), and c_k chosen so that look k adds exactly its share of α.
// Stopping at the first boundary crossed never spends more. bench/oc.ts
// checks the result on the whole procedure.

import { mixSeeds, Rng } from "../workload/rng.ts";
import { tQuantile } from "./tdist.ts";

export interface SequentialDesign {
  /** Pairs at each look, ascending. */
  looks: number[];
  /** One-sided error of each metric's pass boundary over all looks. */
  alpha: number;
  /** The pass boundary's critical t at each look. */
  critical: number[];
  /** α spent by the end of each look (cumulative). */
  spent: number[];
  /** The gated latencies (TTFT, ITL, …) the fail boundary's α is split over, with one share for the rates. */
  latencies: number;
  /** One-sided error of each gated latency's fail boundary: alpha ÷ (latencies + 1). */
  fail_alpha: number;
  /** Its critical t at each look. */
  fail_critical: number[];
  /** The rates sharing the last part: goodput and the failure rate, and the rate budgets (goodput, errors) when set. */
  rates?: number;
  /** The rates' share, split between them: alpha ÷ (rates × (latencies + 1)). */
  rates_fail_alpha: number;
  rates_fail_critical: number[];
}

/** Share of α spent at the first look when there are later ones. */
export const FIRST_LOOK_SHARE = 0.6;
/** Simulated sequences behind the critical values: α to about ±0.1 % (one SD). */
const SEQUENCES = 100_000;
const SEED = 0x5e9_0c;

export function looksOf(trials: number, maxTrials: number, step: number): number[] {
  const looks: number[] = [];
  for (let n = trials; n <= maxTrials; n += step) looks.push(n);
  if (looks.at(-1) !== maxTrials) looks.push(maxTrials);
  return looks;
}

/** α spent by the end of look k: FIRST_LOOK_SHARE of it at once, the rest as pairs are added. */
export function spentBy(k: number, looks: readonly number[], alpha: number): number {
  const first = looks[0] ?? 0;
  const last = looks.at(-1) ?? first;
  if (last === first) return alpha;
  const share =
    FIRST_LOOK_SHARE + (1 - FIRST_LOOK_SHARE) * (((looks[k] ?? last) - first) / (last - first));
  return alpha * Math.min(1, share);
}

/** Each simulated sequence's statistic at each look, under a change of exactly the margin. */
function simulate(looks: readonly number[]): Float64Array {
  const k = looks.length;
  const nMax = looks.at(-1) ?? 0;
  const t = new Float64Array(SEQUENCES * k);
  const rng = new Rng(mixSeeds(SEED, nMax, k, looks[0] ?? 0));
  for (let r = 0; r < SEQUENCES; r++) {
    let sum = 0;
    let squares = 0;
    let look = 0;
    for (let i = 1; i <= nMax; i++) {
      const x = rng.normal();
      sum += x;
      squares += x * x;
      if (i !== looks[look]) continue;
      const mean = sum / i;
      const variance = (squares - i * mean * mean) / (i - 1);
      t[r * k + look] = mean / Math.sqrt(variance / i);
      look++;
    }
  }
  return t;
}

/**
 * Critical values that spend α look by look over the simulated sequences.
 * The live values are sorted unboxed, in one reused typed array: a sort of
 * 100,000 boxed numbers per look and boundary held a gate's heap at ~400 MB.
 */
function calibrate(t: Float64Array, looks: readonly number[], alpha: number): number[] {
  const k = looks.length;
  const alive = new Uint8Array(SEQUENCES).fill(1);
  const values = new Float64Array(SEQUENCES);
  const critical: number[] = [];
  let spent = 0;
  for (let look = 0; look < k; look++) {
    let n = 0;
    for (let r = 0; r < SEQUENCES; r++) if (alive[r]) values[n++] = t[r * k + look] ?? 0;
    const sorted = values.subarray(0, n).sort();
    const crossings = Math.round((spentBy(look, looks, alpha) - spent) * SEQUENCES);
    // The crossings-th largest live value.
    const c =
      crossings <= 0
        ? Number.POSITIVE_INFINITY
        : (sorted[n - Math.min(crossings, n)] ?? Number.POSITIVE_INFINITY);
    critical.push(c);
    for (let r = 0; r < SEQUENCES; r++) {
      if (alive[r] && (t[r * k + look] ?? 0) >= c) {
        alive[r] = 0;
        spent += 1 / SEQUENCES;
      }
    }
  }
  return critical;
}

const boundaries = new Map<string, number[]>();
const keyOf = (looks: readonly number[], alpha: number) => `${looks.join(",")}@${alpha}`;

/**
 * The critical t of each look for boundaries of these errors α. Cached; those
 * not cached yet are calibrated on one simulation of 100,000 sequences (its
 * seed depends on the looks alone: every α of a design shares it).
 */
function criticalValues(looks: readonly number[], alphas: readonly number[]): number[][] {
  // Below 2 pairs the noise is unknown: no look can decide.
  const usable = looks.filter((n) => n >= 2);
  const missing = alphas.filter((a) => !boundaries.has(keyOf(looks, a)));
  if (missing.length > 0 && usable.length <= 1) {
    for (const a of missing)
      boundaries.set(
        keyOf(looks, a),
        looks.map((n) => (n >= 2 ? tQuantile(1 - a, n - 1) : Number.POSITIVE_INFINITY)),
      );
  } else if (missing.length > 0) {
    const t = simulate(usable);
    const undecidable = looks.filter((n) => n < 2).map(() => Number.POSITIVE_INFINITY);
    for (const a of new Set(missing))
      boundaries.set(keyOf(looks, a), [...undecidable, ...calibrate(t, usable, a)]);
  }
  return alphas.map((a) => boundaries.get(keyOf(looks, a)) ?? []);
}

/**
 * The design of a gate: looks from `trials` to `maxTrials` every `step` pairs,
 * α spent over them. Each metric's pass boundary has α: a gate passes only
 * when every metric passes, so a metric truly beyond its tolerance passes it
 * with probability ≤ α. The fail boundaries share α (weighted Bonferroni): a
 * gate fails when any fails, so with every metric within half its tolerance
 * it fails with probability ≤ α. Each of `latencies` gated latencies gets
 * α ÷ (latencies + 1); goodput and the failure rate (and the rate budgets:
 * `rates` in all) share the last part — the rates are counts, precise with a
 * few hundred requests, where the latencies carry the trial-to-trial noise.
 * A latency budget counts as a latency. `latencies` 0: no split (one
 * metric alone). A single look is the plain one-sided t test. About 1 s for a
 * design of 30 pairs, then cached.
 */
export function sequentialDesign(
  trials: number,
  maxTrials: number,
  step: number,
  alpha: number,
  latencies = 0,
  rates = 2,
): SequentialDesign {
  const looks = looksOf(trials, maxTrials, step);
  const { failAlpha, ratesAlpha } = failShares(alpha, latencies, rates);
  const [critical = [], failCritical = [], ratesCritical = []] = criticalValues(looks, [
    alpha,
    failAlpha,
    ratesAlpha,
  ]);
  return {
    looks,
    alpha,
    critical,
    spent: looks.map((_, k) => spentBy(k, looks, alpha)),
    latencies,
    ...(rates !== 2 ? { rates } : {}),
    fail_alpha: failAlpha,
    fail_critical: failCritical,
    rates_fail_alpha: ratesAlpha,
    rates_fail_critical: ratesCritical,
  };
}

/** Each gated latency's and each rate's share of the fail boundaries' α (see sequentialDesign). */
export function failShares(
  alpha: number,
  latencies: number,
  rates: number,
): { failAlpha: number; ratesAlpha: number } {
  const failAlpha = latencies > 0 ? alpha / (latencies + 1) : alpha;
  return { failAlpha, ratesAlpha: latencies > 0 ? failAlpha / rates : alpha };
}

/** The look a number of pairs completes, or −1 when it is not a look. */
export function lookAt(design: SequentialDesign, pairs: number): number {
  return design.looks.indexOf(pairs);
}
