// Paired, noise-aware comparison of one metric, look by look. Per pair i
// (baseline and candidate back to back, same schedule): d_i = ln(candidate /
// baseline) for latencies, ln(baseline / candidate) for goodput, so positive
// is worse. At each look of the sequential design (sequential.ts), a t
// interval over the pairs so far (n − 1 degrees of freedom, the look's
// critical value) is held against two margins:
//
// - pass: the upper bound is within the tolerance τ — evidence that the change
//   is no larger than τ (P(pass) ≤ α for a true change of τ or more);
// - fail (rule `margin`): the lower bound is beyond half the tolerance and the
//   estimate beyond τ — evidence of a material change (P(fail) ≤ α up to τ/2);
//   (rule `confirm`): the lower bound is beyond τ itself;
// - otherwise open, and the gate adds pairs; at the last look, or once the
//   interval is narrow and still straddles τ (futility), inconclusive.
//
// The first look that decides freezes the verdict. What the client's own
// lateness did to a value (its contamination) widens the interval in the
// direction that weakens the verdict; a censored value (a percentile among
// timeouts) is a bound, not a number: it can fail but never pass (the
// candidate's) or pass but never fail (the baseline's).

import { geometricMean, mean, median, medianAbsoluteDeviation } from "simple-statistics";
import { signedPercent } from "../common/format.ts";
import type { PairsAdvice } from "./advice.ts";
import type { SequentialDesign } from "./sequential.ts";
import { tCdf } from "./tdist.ts";

export type DecisionRule = "margin" | "confirm";
export const DECISION_RULES: readonly DecisionRule[] = ["margin", "confirm"];

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

/** One pair's values of the metric, and what is known of them beyond the number. */
export interface PairValues {
  baseline: number;
  candidate: number;
  /** The value is a lower bound (the percentile fell among timed-out requests). */
  baselineCensored?: boolean;
  candidateCensored?: boolean;
  /** How much the client's own lateness may have made each arm look worse (log scale, ≥ 0). */
  baselineContamination?: number;
  candidateContamination?: number;
}

/** Where a metric stands: decided at a look, still open, or not decidable by the design. */
export type MetricStatus = "decided" | "open" | "futile" | "exhausted" | "censored";

export interface MetricComparison {
  id: MetricId;
  label: string;
  unit: string;
  higher_is_worse: boolean;
  tolerance: number;
  /** The tolerance on the scale of d (ln(1 + tolerance) for a latency). */
  tolerance_d: number;
  /** The margin a fail must show on the scale of d: half the tolerance (rule margin), or all of it (confirm). */
  floor_d: number;
  /**
   * Geometric mean over the pairs of each arm's per-trial value: the values the
   * change is computed from, so candidate ÷ baseline − 1 = change.
   */
  baseline: number;
  candidate: number;
  /** Estimated change, candidate vs baseline (geometric mean of the pair ratios − 1); +0.12 = +12 %. */
  change: number;
  /** One-sided bounds of the change at the deciding (or last) look, in the same terms. */
  change_lower: number;
  change_upper: number;
  /** The nominal one-sided confidence of that look's bounds. */
  confidence: number;
  pairs: {
    baseline: number;
    candidate: number;
    d: number;
    outlier: boolean;
    censored: "baseline" | "candidate" | "both" | null;
    contamination: number;
  }[];
  d_mean: number;
  d_sd: number | null;
  /** Coefficient of variation of each arm's per-trial values. */
  cv_baseline: number | null;
  cv_candidate: number | null;
  noisy: boolean;
  /** The smallest change (same terms as change) the pairs so far could have called a regression. */
  detectable_change: number | null;
  verdict: MetricVerdict;
  status: MetricStatus;
  /** Pairs at the look that decided (or the last one judged). */
  decided_at: number;
  /** Left inconclusive with pairs to spare or none: the max-trials that would likely decide it. */
  advice: PairsAdvice | null;
  /** Why, in words. */
  reason: string;
}

function sampleSd(xs: readonly number[]): number | null {
  if (xs.length < 2) return null;
  const m = mean([...xs]);
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1));
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

/** The margin a fail must show on the scale of d: half the tolerance (margin), or all of it (confirm). */
export function failFloor(rule: DecisionRule, toleranceD: number): number {
  return rule === "confirm" ? toleranceD : Math.log1p(Math.expm1(toleranceD) / 2);
}

/** A d (positive = worse) as a change of the metric (+ = up), e.g. +0.10 latency or −0.05 goodput. */
export function toChange(d: number, higherIsWorse: boolean): number {
  return higherIsWorse ? Math.expm1(d) : Math.expm1(-d);
}

/** One pair's d, and the values a fail and a pass are judged on (contamination against them). */
interface PairD {
  d: number;
  forFail: number;
  forPass: number;
  canFail: boolean;
  canPass: boolean;
}

function pairD(spec: MetricSpec, v: PairValues): PairD {
  const d = spec.higherIsWorse
    ? Math.log(v.candidate / v.baseline)
    : Math.log(v.baseline / v.candidate);
  // A latency is censored from below: the candidate's lower bound can only understate d,
  // the baseline's only overstate it.
  return {
    d,
    forFail: d - (v.candidateContamination ?? 0),
    forPass: d + (v.baselineContamination ?? 0),
    canFail: !v.baselineCensored,
    canPass: !v.candidateCensored,
  };
}

/** The interval of a look: the mean ± its critical value × its standard error. */
function bounds(xs: readonly number[], critical: number) {
  const n = xs.length;
  const sd = sampleSd(xs);
  const m = xs.reduce((s, x) => s + x, 0) / n;
  const half = sd === null ? Number.POSITIVE_INFINITY : critical * (sd / Math.sqrt(n));
  return { mean: m, sd, lower: m - half, upper: m + half, half };
}

interface LookResult {
  verdict: "pass" | "regressed" | null;
  futile: boolean;
  lower: number;
  upper: number;
  /** The fail bound's half-width: how far the estimate must clear the floor. */
  failHalf: number;
}

/** A look's critical values: the pass boundary's, the fail boundary's, and the last look's pass. */
interface LookCritical {
  pass: number;
  fail: number;
  lastPass: number;
  lastPairs: number;
}

/** The rule at one look over the first n pairs. */
function judgeLook(
  rule: DecisionRule,
  pairs: readonly PairD[],
  tol: number,
  c: LookCritical,
): LookResult {
  const fail = bounds(
    pairs.map((p) => p.forFail),
    c.fail,
  );
  const pass = bounds(
    pairs.map((p) => p.forPass),
    c.pass,
  );
  const estimate = bounds(
    pairs.map((p) => p.d),
    c.pass,
  );
  const floor = failFloor(rule, tol);
  const canFail = pairs.every((p) => p.canFail);
  const canPass = pairs.every((p) => p.canPass);
  const out = { lower: fail.lower, upper: pass.upper, failHalf: fail.half };
  if (canPass && pass.upper < tol) return { verdict: "pass", futile: false, ...out };
  if (canFail && estimate.mean > tol && fail.lower > floor)
    return { verdict: "regressed", futile: false, ...out };
  // About the tolerance: narrow, below it, and too close for the pairs left to show it within.
  const projected =
    pass.sd === null ? Number.POSITIVE_INFINITY : (c.lastPass * pass.sd) / Math.sqrt(c.lastPairs);
  const futile = estimate.half < tol / 2 && estimate.mean <= tol && pass.mean + projected >= tol;
  return { verdict: null, futile, ...out };
}

/** The rule replayed over the looks the pairs reach; the first decision stands. */
function replay(
  rule: DecisionRule,
  pairs: PairD[],
  tol: number,
  design: SequentialDesign,
  failCritical: readonly number[],
) {
  const { looks, critical } = design;
  const lastPass = critical.at(-1) ?? Number.POSITIVE_INFINITY;
  const lastPairs = looks.at(-1) ?? pairs.length;
  let last: (LookResult & { pairs: number; look: number }) | undefined;
  for (const [k, n] of looks.entries()) {
    if (n > pairs.length) break;
    const c = {
      pass: critical[k] ?? Number.POSITIVE_INFINITY,
      fail: failCritical[k] ?? Number.POSITIVE_INFINITY,
      lastPass,
      lastPairs,
    };
    const r = judgeLook(rule, pairs.slice(0, n), tol, c);
    last = { ...r, pairs: n, look: k };
    if (r.verdict !== null || r.futile) return last;
  }
  return last;
}

function statusOf(
  r: ReturnType<typeof replay>,
  design: SequentialDesign,
  pairs: PairD[],
): MetricStatus {
  if (r?.verdict) return "decided";
  if (pairs.some((p) => !p.canFail) && pairs.some((p) => !p.canPass)) return "censored";
  if (r?.futile) return "futile";
  return pairs.length >= (design.looks.at(-1) ?? 0) ? "exhausted" : "open";
}

export function compareMetric(
  spec: MetricSpec,
  values: PairValues[],
  rule: DecisionRule,
  design: SequentialDesign,
  maxTrialCv: number,
): MetricComparison {
  const pairs = values.map((v) => pairD(spec, v));
  const ds = pairs.map((p) => p.d);
  const tol = toleranceLog(spec);
  // A latency's fail boundary has its share of α; goodput's, the rates' (sequential.ts).
  const failCritical = spec.higherIsWorse ? design.fail_critical : design.rates_fail_critical;
  const r = replay(rule, pairs, tol, design, failCritical);
  const status = statusOf(r, design, pairs);
  const n = r?.pairs ?? pairs.length;
  const used = ds.slice(0, n);
  const dMean = mean(used);
  const change = toChange(dMean, spec.higherIsWorse);
  const lower = r?.lower ?? Number.NEGATIVE_INFINITY;
  const upper = r?.upper ?? Number.POSITIVE_INFINITY;
  let verdict: MetricVerdict = r?.verdict ?? "inconclusive";
  if (verdict === "pass" && upper < 0 && dMean < -tol) verdict = "improved";
  const critical = design.critical[r?.look ?? 0] ?? Number.POSITIVE_INFINITY;
  // In change terms the bounds swap for goodput (a larger d is a larger drop).
  const [changeLower, changeUpper] = spec.higherIsWorse
    ? [toChange(lower, true), toChange(upper, true)]
    : [toChange(upper, false), toChange(lower, false)];
  const flags = outliers(ds);
  const cvBase = cv(values.map((v) => v.baseline));
  const cvCand = cv(values.map((v) => v.candidate));
  const half = r?.failHalf ?? Number.POSITIVE_INFINITY;
  const floor = failFloor(rule, tol);
  return {
    id: spec.id,
    label: spec.label,
    unit: spec.unit,
    higher_is_worse: spec.higherIsWorse,
    tolerance: spec.tolerance,
    tolerance_d: tol,
    floor_d: floor,
    baseline: geometricMean(values.map((v) => v.baseline)),
    candidate: geometricMean(values.map((v) => v.candidate)),
    change,
    change_lower: changeLower,
    change_upper: changeUpper,
    confidence: nominalConfidence(critical, n),
    pairs: values.map((v, i) => ({
      baseline: v.baseline,
      candidate: v.candidate,
      d: ds[i] ?? 0,
      outlier: flags[i] ?? false,
      censored: censoredSide(v),
      contamination: Math.max(v.baselineContamination ?? 0, v.candidateContamination ?? 0),
    })),
    d_mean: dMean,
    d_sd: sampleSd(used),
    cv_baseline: cvBase,
    cv_candidate: cvCand,
    noisy: (cvBase ?? 0) > maxTrialCv || (cvCand ?? 0) > maxTrialCv,
    // The smallest true change whose estimate would clear the fail margin at this look.
    detectable_change: Number.isFinite(half)
      ? toChange(Math.max(tol, floor + half), spec.higherIsWorse)
      : null,
    verdict,
    status,
    decided_at: n,
    advice: null,
    reason: reasonOf(spec, rule, verdict, status, change, changeLower, changeUpper),
  };
}

function censoredSide(v: PairValues): MetricComparison["pairs"][number]["censored"] {
  if (v.baselineCensored && v.candidateCensored) return "both";
  if (v.baselineCensored) return "baseline";
  return v.candidateCensored ? "candidate" : null;
}

/** The one-sided confidence a critical t stands for with n pairs (1 − its tail). */
function nominalConfidence(critical: number, n: number): number {
  return !Number.isFinite(critical) || n < 2 ? 1 : tCdf(critical, n - 1);
}

function reasonOf(
  spec: MetricSpec,
  rule: DecisionRule,
  verdict: MetricVerdict,
  status: MetricStatus,
  change: number,
  lower: number,
  upper: number,
): string {
  const limit = signedPercent(spec.higherIsWorse ? spec.tolerance : -spec.tolerance);
  const interval = `${signedPercent(lower)} … ${signedPercent(upper)}`;
  switch (verdict) {
    case "regressed":
      return `${signedPercent(change)}: beyond ${limit}, and the interval (${interval}) shows ${rule === "confirm" ? "all" : "more than half"} of it`;
    case "pass":
      return `${signedPercent(change)}: the interval (${interval}) is within ${limit}`;
    case "improved":
      return `${signedPercent(change)}: better, the whole interval (${interval}) below no change`;
    case "inconclusive":
      if (status === "censored")
        return `censored on both arms (the percentile fell among timeouts): no number to compare`;
      if (status === "futile")
        return `the change is about the tolerance: ${signedPercent(change)} (${interval}), too close to ${limit} for the pairs left to tell`;
      return `${signedPercent(change)}: the interval (${interval}) straddles ${limit}`;
  }
}
