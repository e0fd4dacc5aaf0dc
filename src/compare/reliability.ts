// Reliability as a gated metric: each arm's failure rate (every scheduled
// request that did not end ok, but for the excluded classes), compared pair
// by pair against the tolerance (percentage points), on the same sequential
// design as the latencies.
//
// Failures cluster — a crash, a burst of 503s — so requests are not
// independent across trials: the increase is the mean over pairs of each
// pair's rate difference, and each bound the wider of (a) a t bound on the
// spread of those differences between pairs (what clustering does) and (b) a
// bound from the counts (what a few, or no, failures can show): for the pass
// bound exact, at a level the counts' own sequential law calibrates
// (compare/counts.ts); for the fail bound a normal one on the binomial
// variance under the margin tested (Farrington–Manning's restricted
// estimate). The candidate has regressed when the lower bound is beyond half
// the tolerance and the estimate beyond the tolerance; it passes when the
// upper bound is within the tolerance; otherwise more pairs (or requests)
// decide.

import { probit } from "simple-statistics";
import { percent } from "../common/format.ts";
import { OUTCOMES, type Outcome } from "../common/outcomes.ts";
import type { FailureExample } from "../metrics/recorder.ts";
import { designLevels, dispersion, increaseUpper } from "./counts.ts";
import type { MetricStatus } from "./metric.ts";
import { passReachable, requestsToShow } from "./reach.ts";
import type { SequentialDesign } from "./sequential.ts";
import { tCdf } from "./tdist.ts";
import type { TrialEntry } from "./trials.ts";

export interface ReliabilityOptions {
  /** Largest tolerated increase of the failure rate, as a fraction (0.005 = 0.5 percentage points). */
  maxFailureIncrease: number;
  /** Classes left out of both rates (the caller's own quota by default). */
  exclude: Outcome[];
}

export interface ArmFailures {
  /** Scheduled requests but the excluded ones. */
  counted: number;
  failed: number;
  rate: number;
  /** Failed requests by class (and the excluded ones, under their class). */
  by_class: Partial<Record<Outcome, number>>;
  excluded: number;
}

export type ReliabilityVerdict = "pass" | "regressed" | "inconclusive" | "improved";

export interface ReliabilityComparison {
  baseline: ArmFailures;
  candidate: ArmFailures;
  excluded_classes: Outcome[];
  /** Mean over pairs of candidate rate − baseline rate: +0.032 = 3.2 percentage points more failures. */
  increase: number;
  /** One-sided bounds of the increase at the deciding (or last) look; null before any look. */
  increase_lower: number | null;
  increase_upper: number | null;
  tolerance: number;
  verdict: ReliabilityVerdict;
  status: MetricStatus;
  /** Pairs at the look that decided (or the last one judged). */
  decided_at: number;
  /** The class whose rate grew most on the candidate. */
  worst: { outcome: Outcome; baseline_rate: number; candidate_rate: number } | null;
  /** One example of each of the candidate's failure classes. */
  examples: Partial<Record<Outcome, FailureExample>>;
  reason: string;
}

export function armFailures(
  trials: readonly TrialEntry[],
  exclude: readonly Outcome[],
): ArmFailures {
  const byClass: Partial<Record<Outcome, number>> = {};
  let scheduled = 0;
  let failed = 0;
  let excluded = 0;
  for (const t of trials) {
    scheduled += t.report.scheduled;
    for (const o of OUTCOMES) {
      const n = t.report.outcomes[o];
      if (o === "ok" || n === 0) continue;
      byClass[o] = (byClass[o] ?? 0) + n;
      if (exclude.includes(o)) excluded += n;
      else failed += n;
    }
  }
  const counted = scheduled - excluded;
  return { counted, failed, rate: counted > 0 ? failed / counted : 0, by_class: byClass, excluded };
}

/** The first example of each failure class among the trials. */
export function examplesOf(
  trials: readonly TrialEntry[],
): Partial<Record<Outcome, FailureExample>> {
  const examples: Partial<Record<Outcome, FailureExample>> = {};
  for (const t of trials) {
    for (const o of OUTCOMES) {
      const e = t.report.errors[o]?.[0];
      if (e && !examples[o]) examples[o] = e;
    }
  }
  return examples;
}

/** One pair's failures on each arm. */
export interface PairFailures {
  baseline: { failed: number; counted: number };
  candidate: { failed: number; counted: number };
}

/** Each pair's candidate rate − baseline rate. */
const rateDifferences = (pairs: readonly PairFailures[]) =>
  pairs.map(
    (p) => p.candidate.failed / p.candidate.counted - p.baseline.failed / p.baseline.counted,
  );

/** The variance of the mean of per-pair values from their own spread (what clustering does). */
export function spreadVariance(diffs: readonly number[]): number {
  const n = diffs.length;
  if (n < 2) return Number.POSITIVE_INFINITY;
  const m = diffs.reduce((s, x) => s + x, 0) / n;
  return diffs.reduce((s, x) => s + (x - m) ** 2, 0) / (n - 1) / n;
}

/**
 * The binomial variance of the pooled increase when the true increase is
 * exactly `margin`: the rates closest to the data that differ by the margin
 * (Farrington–Manning's restricted estimate, pooled and shifted).
 */
function binomialVariance(pairs: readonly PairFailures[], margin: number): number {
  const sum = (f: (p: PairFailures) => number) => pairs.reduce((s, p) => s + f(p), 0);
  const [nb, nc] = [sum((p) => p.baseline.counted), sum((p) => p.candidate.counted)];
  const [fb, fc] = [sum((p) => p.baseline.failed), sum((p) => p.candidate.failed)];
  const pb = Math.min(1 - margin, Math.max(0, (fb + fc - nc * margin) / (nb + nc)));
  const pc = pb + margin;
  return (pb * (1 - pb)) / nb + (pc * (1 - pc)) / nc;
}

interface Look {
  verdict: "pass" | "regressed" | null;
  increase: number;
  lower: number;
  upper: number;
}

/**
 * One look's bound against a margin: the wider of the t bound on the pairs'
 * spread (the look's critical t) and the normal bound on the binomial variance
 * at the margin (known, not estimated: the normal quantile of the same nominal
 * level).
 */
export function widerHalfWidth(
  critical: number,
  pairs: number,
  spread: number,
  binomial: number,
): number {
  if (!Number.isFinite(critical) || pairs < 2) return Number.POSITIVE_INFINITY;
  const z = probit(tCdf(critical, pairs - 1));
  return Math.max(critical * Math.sqrt(spread), z * Math.sqrt(binomial));
}

/** The increase's half-width at a margin (widerHalfWidth of the pairs' differences). */
function halfWidth(
  pairs: readonly PairFailures[],
  diffs: readonly number[],
  margin: number,
  critical: number,
): number {
  return widerHalfWidth(
    critical,
    pairs.length,
    spreadVariance(diffs),
    binomialVariance(pairs, margin),
  );
}

/** Both arms' failures over the pairs. */
function pooled(pairs: readonly PairFailures[]): PairFailures {
  const sum = (f: (p: PairFailures) => number) => pairs.reduce((s, p) => s + f(p), 0);
  return {
    baseline: { failed: sum((p) => p.baseline.failed), counted: sum((p) => p.baseline.counted) },
    candidate: { failed: sum((p) => p.candidate.failed), counted: sum((p) => p.candidate.counted) },
  };
}

/**
 * One look: the pass bound the wider of the t bound at the pass boundary's
 * critical t and the counts' exact bound at the look's level; the fail bound
 * at the fail boundary's critical t.
 */
function judgeLook(
  pairs: readonly PairFailures[],
  tolerance: number,
  critical: { pass: number; fail: number },
  passLevel: number,
): Look {
  const diffs = rateDifferences(pairs);
  const increase = diffs.reduce((s, x) => s + x, 0) / diffs.length;
  const floor = tolerance / 2;
  const all = pooled(pairs);
  // Clustered failures count for fewer independent requests.
  const phi = dispersion([pairs.map((p) => p.baseline), pairs.map((p) => p.candidate)]);
  // Whole failures, rounded against a pass: the candidate's up, the baseline's down.
  const deflated = (a: PairFailures["baseline"], round: (x: number) => number) => ({
    failed: round(a.failed / phi),
    counted: a.counted / phi,
  });
  const spreadPass =
    pairs.length < 2 ? Number.POSITIVE_INFINITY : critical.pass * Math.sqrt(spreadVariance(diffs));
  const upper = Math.max(
    increase + spreadPass,
    increaseUpper(
      deflated(all.baseline, Math.floor),
      deflated(all.candidate, Math.ceil),
      passLevel,
    ),
  );
  const lower = increase - halfWidth(pairs, diffs, floor, critical.fail);
  if (upper < tolerance) return { verdict: "pass", increase, lower, upper };
  if (increase > tolerance && lower > floor)
    return { verdict: "regressed", increase, lower, upper };
  return { verdict: null, increase, lower, upper };
}

/** Each look's level for the counts' pass bound, from the candidate's requests at the looks reached. */
function lookLevels(
  pairs: readonly PairFailures[],
  tolerance: number,
  design: SequentialDesign,
): number[] {
  const reached = design.looks.filter((n) => n <= pairs.length);
  const requests = reached.map((n) => pooled(pairs.slice(0, n)).candidate.counted);
  return designLevels(requests, tolerance, design);
}

/** The failures of each complete pair, in pair order (pairs without a counted request left out). */
export function pairFailures(
  trials: readonly TrialEntry[],
  exclude: readonly Outcome[],
): PairFailures[] {
  const pairs = [...new Set(trials.map((t) => t.pair))].sort((a, b) => a - b);
  return pairs.flatMap((pair) => {
    const of = (arm: TrialEntry["arm"]) =>
      armFailures(
        trials.filter((t) => t.pair === pair && t.arm === arm),
        exclude,
      );
    const [b, c] = [of("baseline"), of("candidate")];
    return b.counted > 0 && c.counted > 0
      ? [
          {
            baseline: { failed: b.failed, counted: b.counted },
            candidate: { failed: c.failed, counted: c.counted },
          },
        ]
      : [];
  });
}

/** The class whose rate grew most on the candidate. */
function worstClass(
  base: ArmFailures,
  cand: ArmFailures,
  exclude: readonly Outcome[],
): ReliabilityComparison["worst"] {
  let worst: ReliabilityComparison["worst"] = null;
  for (const o of OUTCOMES) {
    if (o === "ok" || exclude.includes(o)) continue;
    const br = base.counted > 0 ? (base.by_class[o] ?? 0) / base.counted : 0;
    const cr = cand.counted > 0 ? (cand.by_class[o] ?? 0) / cand.counted : 0;
    if (cr - br > 0 && (worst === null || cr - br > worst.candidate_rate - worst.baseline_rate))
      worst = { outcome: o, baseline_rate: br, candidate_rate: cr };
  }
  return worst;
}

/** The looks the pairs reach, replayed; the first that decides stands. */
function replay(pairs: PairFailures[], tolerance: number, design: SequentialDesign) {
  const levels = lookLevels(pairs, tolerance, design);
  let last: (Look & { pairs: number }) | undefined;
  for (const [k, n] of design.looks.entries()) {
    if (n > pairs.length) break;
    last = {
      ...judgeLook(
        pairs.slice(0, n),
        tolerance,
        {
          pass: design.critical[k] ?? Infinity,
          fail: design.rates_fail_critical[k] ?? Infinity,
        },
        levels[k] ?? 0,
      ),
      pairs: n,
    };
    if (last.verdict) return last;
  }
  return last;
}

export function compareReliability(
  options: ReliabilityOptions,
  trials: readonly TrialEntry[],
  design: SequentialDesign,
): ReliabilityComparison {
  const arm = (a: TrialEntry["arm"]) => trials.filter((t) => t.arm === a);
  const base = armFailures(arm("baseline"), options.exclude);
  const cand = armFailures(arm("candidate"), options.exclude);
  const tolerance = options.maxFailureIncrease;
  const pairs = pairFailures(trials, options.exclude);
  const r = replay(pairs, tolerance, design);
  const increase = r?.increase ?? cand.rate - base.rate;
  let verdict: ReliabilityVerdict = r?.verdict ?? "inconclusive";
  if (verdict === "pass" && (r?.upper ?? 0) < 0) verdict = "improved";
  const last = design.looks.at(-1) ?? 0;
  // Given up when even no further failure could not pass by max-trials, and nothing points to a fail.
  const futile =
    r !== undefined &&
    !r.verdict &&
    pairs.length < last &&
    increase <= tolerance &&
    !passReachable(pooled(pairs), pairs.length, design, tolerance);
  const status: MetricStatus = r?.verdict
    ? "decided"
    : pairs.length >= last
      ? "exhausted"
      : futile
        ? "futile"
        : "open";
  const pp = (x: number) => `${x >= 0 ? "+" : "−"}${(Math.abs(x) * 100).toFixed(2)} points`;
  const change = `${percent(cand.rate)} of the candidate's requests failed, ${percent(base.rate)} of the baseline's`;
  const interval = r ? `${pp(r.lower)} … ${pp(r.upper)}` : "unknown before the first look";
  const reason =
    verdict === "regressed"
      ? `${change}: ${pp(increase)}, beyond ${pp(tolerance)}, and the interval (${interval}) shows more than half of it`
      : verdict === "pass" || verdict === "improved"
        ? `${change}: the interval of the increase (${interval}) is within ${pp(tolerance)}`
        : futile
          ? `${change}: the interval of the increase (${interval}) straddles ${pp(tolerance)}, and ${last} pairs cannot narrow it enough even with no further failure — showing ${pp(tolerance)} needs ≥ ${requestsToShow(tolerance, design.alpha).toLocaleString("en-US")} requests per arm without a failure: raise rate × duration, max-trials, or max-failure-increase`
          : `${change}: the interval of the increase (${interval}) straddles ${pp(tolerance)} — more requests or pairs decide`;
  return {
    baseline: base,
    candidate: cand,
    excluded_classes: options.exclude,
    increase,
    increase_lower: r ? r.lower : null,
    increase_upper: r ? r.upper : null,
    tolerance,
    verdict,
    status,
    decided_at: r?.pairs ?? pairs.length,
    worst: worstClass(base, cand, options.exclude),
    examples: examplesOf(arm("candidate")),
    reason,
  };
}
