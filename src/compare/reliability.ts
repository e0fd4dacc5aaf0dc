// Reliability as a gated metric: each arm's failure rate (every scheduled
// request that did not end ok, but for the excluded classes), compared as
// counts. The candidate has regressed when it fails more often than the
// baseline by more than the tolerance (percentage points) and Fisher's exact
// test says the difference is not chance. A paired t on per-trial ratios is
// the wrong tool for counts that are often zero.

import { percent } from "../common/format.ts";
import { OUTCOMES, type Outcome } from "../common/outcomes.ts";
import type { FailureExample } from "../metrics/recorder.ts";
import { fisherOneSided } from "./fisher.ts";
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
  /** Candidate rate − baseline rate: +0.032 = 3.2 percentage points more failures. */
  increase: number;
  tolerance: number;
  /** One-sided Fisher exact p: the candidate fails more often. */
  p: number;
  alpha: number;
  verdict: ReliabilityVerdict;
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

export function compareReliability(
  options: ReliabilityOptions,
  trials: readonly TrialEntry[],
  confidence: number,
): ReliabilityComparison {
  const arm = (a: TrialEntry["arm"]) => trials.filter((t) => t.arm === a);
  const base = armFailures(arm("baseline"), options.exclude);
  const cand = armFailures(arm("candidate"), options.exclude);
  const increase = cand.rate - base.rate;
  const tolerance = options.maxFailureIncrease;
  const alpha = 1 - confidence;
  const p = fisherOneSided(base.failed, base.counted, cand.failed, cand.counted);
  const pBetter = fisherOneSided(cand.failed, cand.counted, base.failed, base.counted);
  const limit = `+${percent(tolerance)} points`;
  let verdict: ReliabilityVerdict;
  let reason: string;
  const change = `${percent(cand.rate)} of the candidate's requests failed, ${percent(base.rate)} of the baseline's`;
  if (increase > tolerance && p <= alpha) {
    verdict = "regressed";
    reason = `${change}: beyond ${limit} and not chance (Fisher p = ${p.toPrecision(2)})`;
  } else if (increase > tolerance) {
    verdict = "inconclusive";
    reason = `${change}: beyond ${limit} but could be chance (Fisher p = ${p.toPrecision(2)} > ${alpha.toPrecision(2)})`;
  } else if (-increase > tolerance && pBetter <= alpha) {
    verdict = "improved";
    reason = `${change}: the candidate fails less often`;
  } else {
    verdict = "pass";
    reason = `${change}: within ${limit}`;
  }
  let worst: ReliabilityComparison["worst"] = null;
  for (const o of OUTCOMES) {
    if (o === "ok" || options.exclude.includes(o)) continue;
    const br = base.counted > 0 ? (base.by_class[o] ?? 0) / base.counted : 0;
    const cr = cand.counted > 0 ? (cand.by_class[o] ?? 0) / cand.counted : 0;
    if (cr - br > 0 && (worst === null || cr - br > worst.candidate_rate - worst.baseline_rate))
      worst = { outcome: o, baseline_rate: br, candidate_rate: cr };
  }
  return {
    baseline: base,
    candidate: cand,
    excluded_classes: options.exclude,
    increase,
    tolerance,
    p,
    alpha,
    verdict,
    worst,
    examples: examplesOf(arm("candidate")),
    reason,
  };
}
