// What a plan can decide, said before its first trial: the pairs, requests
// and endpoint time at the first look and at max-trials, and per family the
// best case — the failure rate exactly, from the counts (no failure at all on
// either arm); the latencies and goodput from the noise the first look shows. A family
// that cannot be decided even in the best case is named with what would
// decide it, and adds no pairs (its status `futile`).

import { signedPercent } from "../common/format.ts";
import { type WorkloadSpec, windowRequests } from "../workload/plan.ts";
import { designLevels, increaseUpper } from "./counts.ts";
import { type MetricComparison, toChange } from "./metric.ts";
import type { SequentialDesign } from "./sequential.ts";

/** Requests per arm without a failure that show an increase of at most `margin` at error α (exact: (1 − m)^n ≤ α). */
export function requestsToShow(margin: number, alpha: number): number {
  return Math.ceil(Math.log(alpha) / Math.log1p(-margin));
}

/** Both arms' failures so far. */
export interface Counts {
  baseline: { failed: number; counted: number };
  candidate: { failed: number; counted: number };
}

/**
 * Whether the failure rate could still pass by max-trials in a best case: no
 * further failure on the candidate, the baseline failing on at its rate, the
 * requests growing with the pairs, the bound at the whole α (the most the
 * last look can have). Optimistic on purpose: a family is given up only when
 * even this cannot pass.
 */
export function passReachable(
  counts: Counts,
  pairs: number,
  design: SequentialDesign,
  tolerance: number,
): boolean {
  const scale = (design.looks.at(-1) ?? pairs) / Math.max(1, pairs);
  // The baseline failing on at its rate (more baseline failures only lower the bound), the candidate no more.
  const baseline = {
    failed: counts.baseline.failed * scale,
    counted: counts.baseline.counted * scale,
  };
  const candidate = { failed: counts.candidate.failed, counted: counts.candidate.counted * scale };
  return increaseUpper(baseline, candidate, design.alpha) < tolerance;
}

/** A trial's requests in its window and its time under load (warm-up and window). */
export function perTrialOf(spec: WorkloadSpec): { requests: number; loadS: number } {
  return { requests: windowRequests(spec), loadS: spec.warmupS + spec.durationS };
}

/**
 * Why no trial of this workload can be valid, or null: every trial replays one
 * seeded schedule, so its window's count is exact (with sessions, later turns
 * follow the answers: not known ahead, not checked).
 */
export function windowTooSmall(spec: WorkloadSpec, minOkRequests: number): string | null {
  if (spec.sessions) return null;
  const scheduled = windowRequests(spec);
  if (scheduled >= minOkRequests) return null;
  return `every trial's ${spec.durationS} s window schedules ${scheduled.toLocaleString("en-US")} requests, fewer than min-ok-requests (${minOkRequests.toLocaleString("en-US")}): every trial would be invalid — raise the rate or duration (to schedule at least ${minOkRequests.toLocaleString("en-US")}), or lower min-ok-requests`;
}

export interface PlanCheck {
  /** Pairs at the first look and at max-trials. */
  pairs: { first: number; most: number };
  /** Requests per arm the pairs schedule (warm-ups not counted). */
  requests_per_arm: { first: number; most: number };
  /** The endpoints under load for the pairs: both arms' warm-ups and windows, re-runs not counted (s). */
  under_load_s: { first: number; most: number };
  failure_rate: {
    tolerance: number;
    /** The bound on the increase with no failure on either arm, at the first look and at max-trials. */
    bound_first: number;
    bound_most: number;
    /** Requests per arm without a failure that show the tolerance (the whole α). */
    requests_needed: number;
    decidable: boolean;
  };
  /** Per gated metric (at the first look, from its noise): the smallest change max-trials could fail, and whether a pass is within reach. */
  metrics: { label: string; smallest_fail: number | null; pass_reachable: boolean }[];
  /** What this plan cannot decide even in the best case, and what would. */
  undecidable: string[];
}

const pts = (x: number) => `+${(x * 100).toFixed(2)} points`;

/** The plan before its first trial: what its looks can show with no failure and no noise. */
export function planCheck(
  design: SequentialDesign,
  perTrial: { requests: number; loadS: number },
  failureTolerance: number,
): PlanCheck {
  const first = design.looks[0] ?? 0;
  const most = design.looks.at(-1) ?? first;
  const perArm = (pairs: number) => pairs * perTrial.requests;
  const zero = (n: number, level: number) =>
    increaseUpper({ failed: 0, counted: n }, { failed: 0, counted: n }, level);
  // The levels the looks will have with no failure: what they will report.
  const levels = designLevels(design.looks.map(perArm), failureTolerance, design);
  const needed = requestsToShow(failureTolerance, design.alpha);
  const decidable = perArm(most) >= needed;
  return {
    pairs: { first, most },
    requests_per_arm: { first: perArm(first), most: perArm(most) },
    under_load_s: { first: 2 * first * perTrial.loadS, most: 2 * most * perTrial.loadS },
    failure_rate: {
      tolerance: failureTolerance,
      bound_first: zero(perArm(first), levels[0] ?? 0),
      bound_most: zero(perArm(most), levels.at(-1) ?? 0),
      requests_needed: needed,
      decidable,
    },
    metrics: [],
    undecidable: decidable
      ? []
      : [
          `the failure rate cannot be decided by this plan: showing ${pts(failureTolerance)} needs ≥ ${needed.toLocaleString("en-US")} requests per arm without a failure, and it sends at most ${perArm(most).toLocaleString("en-US")} (${most} pairs) — raise rate × duration, max-trials, or max-failure-increase; it adds no pairs unless failures point to a regression`,
        ],
  };
}

/**
 * The plan at the first look, with the metrics' noise: per gated metric
 * the smallest change max-trials could call a regression (the fail bound's
 * half-width there, from this spread) and whether a pass could be shown.
 */
export function withNoise(
  plan: PlanCheck,
  comparisons: readonly MetricComparison[],
  design: SequentialDesign,
): PlanCheck {
  const most = design.looks.at(-1) ?? 0;
  const k = design.looks.length - 1;
  const metrics = comparisons.map((c) => {
    const sd = c.d_sd;
    if (sd === null || most < 2)
      return { label: c.label, smallest_fail: null, pass_reachable: false };
    const fail = c.higher_is_worse ? design.fail_critical[k] : design.rates_fail_critical[k];
    const failD = Math.max(c.tolerance_d, c.floor_d + ((fail ?? Infinity) * sd) / Math.sqrt(most));
    const passHalf = ((design.critical[k] ?? Infinity) * sd) / Math.sqrt(most);
    const change = toChange(failD, c.higher_is_worse);
    return {
      label: c.label,
      smallest_fail: Number.isFinite(change) ? change : null,
      pass_reachable: passHalf < c.tolerance_d,
    };
  });
  return { ...plan, metrics };
}

const seconds = (s: number) => (s < 120 ? `${Math.round(s)} s` : `${(s / 60).toFixed(1)} min`);

/** The plan in a few lines, for the log. */
export function planLines(plan: PlanCheck): string[] {
  const f = plan.failure_rate;
  const lines = [
    `plan: ${plan.pairs.first} pairs at the first look, at most ${plan.pairs.most}: ${plan.requests_per_arm.first.toLocaleString("en-US")}–${plan.requests_per_arm.most.toLocaleString("en-US")} requests per arm, ${seconds(plan.under_load_s.first)}–${seconds(plan.under_load_s.most)} of load on the endpoints`,
    `plan: with no failure on either arm the failure rate's bound is ${pts(f.bound_first)} at the first look, ${pts(f.bound_most)} at max-trials (tolerance ${pts(f.tolerance)}; ${f.requests_needed.toLocaleString("en-US")} requests per arm show it)`,
  ];
  for (const l of plan.metrics)
    lines.push(
      l.smallest_fail === null
        ? `plan: ${l.label}: no noise measured yet`
        : `plan: ${l.label}: from the first look's noise, max-trials can fail changes from ${signedPercent(l.smallest_fail)}${l.pass_reachable ? "" : ", and cannot show a pass"}`,
    );
  return lines;
}
