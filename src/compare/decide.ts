// Paired, noise-aware comparison of one metric. Per pair i (baseline and
// candidate back to back, same schedule and prompts): d_i = ln(candidate /
// baseline) for latencies, ln(baseline / candidate) for goodput, so positive
// is worse. A one-sided t-interval over the d_i (n − 1 degrees of freedom)
// measures the change against the trial-to-trial noise.

import {
  geometricMean,
  mean,
  median,
  medianAbsoluteDeviation,
  sampleStandardDeviation,
} from "simple-statistics";
import { at } from "../common/arrays.ts";
import { signedPercent } from "../common/format.ts";
import { pairsToDecide } from "./advice.ts";
import { tQuantile } from "./tdist.ts";

export type DecisionRule = "significant-and-material" | "confirm";
export const DECISION_RULES: readonly DecisionRule[] = ["significant-and-material", "confirm"];

/** The metrics a gate can compare. */
export const METRIC_IDS = ["goodput", "ttft", "itl", "tpot", "e2el"] as const;
export type MetricId = (typeof METRIC_IDS)[number];
export type MetricVerdict = "pass" | "regressed" | "inconclusive" | "improved";

export interface MetricSpec {
  id: MetricId;
  label: string;
  unit: string;
  /** true for latencies (up is worse), false for goodput (down is worse). */
  higherIsWorse: boolean;
  /** Allowed change before it counts: 0.10 = +10 % latency, 0.05 = −5 % goodput. */
  tolerance: number;
}

export interface PairValues {
  baseline: number;
  candidate: number;
}

export interface MetricComparison {
  id: MetricId;
  label: string;
  unit: string;
  higher_is_worse: boolean;
  tolerance: number;
  /** The tolerance on the scale of d (ln(1 + tolerance) for a latency). */
  tolerance_d: number;
  /**
   * Geometric mean over the pairs of each arm's per-trial value: the values the
   * change is computed from, so candidate ÷ baseline − 1 = change.
   */
  baseline: number;
  candidate: number;
  /** Estimated change, candidate vs baseline (geometric mean of the pair ratios − 1); +0.12 = +12 %. */
  change: number;
  /** One-sided bounds of the change at `confidence`, in the same terms. */
  change_lower: number;
  change_upper: number;
  confidence: number;
  pairs: { baseline: number; candidate: number; d: number; outlier: boolean }[];
  d_mean: number;
  d_sd: number | null;
  /** Coefficient of variation of each arm's per-trial values. */
  cv_baseline: number | null;
  cv_candidate: number | null;
  noisy: boolean;
  /** The smallest change (same terms as change) this run could have called a regression. */
  detectable_change: number | null;
  /** Inconclusive: about how many pairs would decide it, with this run's noise (null: over MAX_ADVISED_PAIRS, or unknown). */
  pairs_to_decide: number | null;
  verdict: MetricVerdict;
  /** Why, in words. */
  reason: string;
}

function sampleSd(xs: number[]): number | null {
  return xs.length < 2 ? null : sampleStandardDeviation(xs);
}

function cv(xs: number[]): number | null {
  const sd = sampleSd(xs);
  const m = mean(xs);
  return sd === null || m === 0 ? null : sd / m;
}

/** Below this |d − median| (5 %) a pair is never called an outlier, however tight the others. */
const OUTLIER_FLOOR = Math.log(1.05);

/**
 * Pairs whose d is more than 3 robust standard deviations (1.4826 × MAD)
 * from the median, and at least 5 % away. Needs 4 pairs: with 3, the MAD is
 * set by the two closest and flags almost anything.
 */
function outliers(ds: number[]): boolean[] {
  if (ds.length < 4) return ds.map(() => false);
  const med = median(ds);
  const spread = 3 * 1.4826 * medianAbsoluteDeviation(ds);
  return ds.map((d) => Math.abs(d - med) > Math.max(spread, OUTLIER_FLOOR));
}

/** log-scale tolerance: how large d may be before the change is beyond the tolerance. */
export function toleranceLog(spec: Pick<MetricSpec, "higherIsWorse" | "tolerance">): number {
  return spec.higherIsWorse ? Math.log(1 + spec.tolerance) : -Math.log(1 - spec.tolerance);
}

/** A d (positive = worse) as a change of the metric (+ = up), e.g. +0.10 latency or −0.05 goodput. */
function toChange(d: number, higherIsWorse: boolean): number {
  return higherIsWorse ? Math.expm1(d) : Math.expm1(-d);
}

export function compareMetric(
  spec: MetricSpec,
  values: PairValues[],
  rule: DecisionRule,
  confidence: number,
  maxTrialCv: number,
): MetricComparison {
  const ds = values.map((v) =>
    spec.higherIsWorse ? Math.log(v.candidate / v.baseline) : Math.log(v.baseline / v.candidate),
  );
  const n = ds.length;
  const dMean = mean(ds);
  const dSd = sampleSd(ds);
  const t = n >= 2 ? tQuantile(confidence, n - 1) : Number.POSITIVE_INFINITY;
  const halfWidth = dSd === null ? Number.POSITIVE_INFINITY : t * (dSd / Math.sqrt(n));
  const lower = dMean - halfWidth;
  const upper = dMean + halfWidth;
  const tol = toleranceLog(spec);
  const beyond = dMean > tol;

  let verdict: MetricVerdict;
  let reason: string;
  const change = toChange(dMean, spec.higherIsWorse);
  const limit = signedPercent(spec.higherIsWorse ? spec.tolerance : -spec.tolerance);
  if (rule === "significant-and-material") {
    if (beyond && lower > 0) {
      verdict = "regressed";
      reason = `${signedPercent(change)} is beyond ${limit} and significantly worse than no change`;
    } else if (beyond) {
      verdict = "inconclusive";
      reason = `${signedPercent(change)} is beyond ${limit} but within the trial-to-trial noise`;
    } else {
      verdict = "pass";
      reason = `${signedPercent(change)} is within ${limit}`;
    }
  } else if (lower > tol) {
    verdict = "regressed";
    reason = `the whole interval is beyond ${limit}`;
  } else if (upper < tol) {
    verdict = "pass";
    reason = `the whole interval is within ${limit}`;
  } else {
    verdict = "inconclusive";
    reason = `the interval straddles ${limit}`;
  }
  if (verdict === "pass" && dMean < -tol && upper < 0) {
    verdict = "improved";
    reason = `${signedPercent(change)}: significantly better, beyond ${signedPercent(spec.higherIsWorse ? -spec.tolerance : spec.tolerance)}`;
  }

  const detectable =
    halfWidth === Number.POSITIVE_INFINITY
      ? null
      : rule === "significant-and-material"
        ? Math.max(tol, halfWidth)
        : tol + halfWidth;
  const cvBase = cv(values.map((v) => v.baseline));
  const cvCand = cv(values.map((v) => v.candidate));
  const flags = outliers(ds);
  // In change terms the bounds swap for goodput (a larger d is a larger drop).
  const [changeLower, changeUpper] = spec.higherIsWorse
    ? [toChange(lower, true), toChange(upper, true)]
    : [toChange(upper, false), toChange(lower, false)];
  return {
    id: spec.id,
    label: spec.label,
    unit: spec.unit,
    higher_is_worse: spec.higherIsWorse,
    tolerance: spec.tolerance,
    tolerance_d: tol,
    baseline: geometricMean(values.map((v) => v.baseline)),
    candidate: geometricMean(values.map((v) => v.candidate)),
    change,
    change_lower: changeLower,
    change_upper: changeUpper,
    confidence,
    pairs: values.map((v, i) => ({ ...v, d: at(ds, i), outlier: at(flags, i) })),
    d_mean: dMean,
    d_sd: dSd,
    cv_baseline: cvBase,
    cv_candidate: cvCand,
    noisy: (cvBase ?? 0) > maxTrialCv || (cvCand ?? 0) > maxTrialCv,
    detectable_change: detectable === null ? null : toChange(detectable, spec.higherIsWorse),
    // significant-and-material: the bound must clear zero for a change at the tolerance;
    // confirm: the whole interval must leave the tolerance, as far as the estimate is from it.
    pairs_to_decide:
      verdict === "inconclusive"
        ? pairsToDecide(dSd, rule === "confirm" ? Math.abs(dMean - tol) : tol, confidence)
        : null,
    verdict,
    reason,
  };
}
