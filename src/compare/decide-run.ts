// A gate run's decision, made once over its trials: the guards, each gated
// metric's comparison, reliability and the overall verdict. The gate calls it
// when its pairs are done, and a results file another job wrote is decided
// again by it from its trials (results/trust.ts): one rule, one design.

import type { Guard } from "../common/guard.ts";
import { pairsToDecide } from "./advice.ts";
import type { MetricComparison } from "./decide.ts";
import { metricSpecs } from "./gated.ts";
import type { ReliabilityComparison } from "./reliability.ts";
import { type SequentialDesign, sequentialDesign } from "./sequential.ts";
import type { TrialEntry } from "./trials.ts";
import { type DecisionOptions, decide, overallVerdict, type Verdict } from "./verdict.ts";

/** The pairs before the first look, and at most. */
export interface LookPlan {
  trials: number;
  maxTrials: number;
}

/** Pairs added between looks: an AB and a BA pair, so that every look is balanced (order abba). */
export const LOOK_STEP = 2;

/**
 * The gate's sequential design: its looks and their critical values, the fail
 * boundaries' α split over `latencies` gated latencies and the rates (0: no
 * split, one metric alone).
 */
export function designOf(plan: LookPlan, confidence: number, latencies = 0): SequentialDesign {
  return sequentialDesign(plan.trials, plan.maxTrials, LOOK_STEP, 1 - confidence, latencies);
}

/** The gated latencies of a decision (TTFT and ITL by default; TPOT and E2EL when set). */
export function latenciesOf(options: DecisionOptions): number {
  return metricSpecs(options.percentile, options.tolerances).filter((s) => s.higherIsWorse).length;
}

/** What was decided apart from the paired trials, and how the run ended. */
export interface RunFacts {
  trials: readonly TrialEntry[];
  /** Guards from how the run went (a server that failed, a preflight), not from the trials. */
  runGuards: readonly Guard[];
  /** A capacity gate's comparison; incomplete: its paired trials did not all run. */
  capacity: { verdict: "pass" | "regressed" | "inconclusive"; incomplete: boolean } | undefined;
  qualityFailed: boolean;
  cancelled: boolean;
}

export interface RunDecision {
  comparisons: MetricComparison[];
  reliability: ReliabilityComparison | null;
  guards: Guard[];
  verdict: Verdict;
  /** The sequential design the decision used: its looks (pairs) and critical values. */
  design: SequentialDesign;
}

export function decideRun(options: DecisionOptions, plan: LookPlan, facts: RunFacts): RunDecision {
  const design = designOf(plan, options.confidence, latenciesOf(options));
  const decision = decide(options, facts.trials, design);
  // What more pairs would do, for the metrics that ran out of them (or of time).
  for (const c of decision.comparisons) {
    if (c.verdict !== "inconclusive" || (c.status !== "exhausted" && c.status !== "open")) continue;
    const margins = { tolerance: c.tolerance_d, floor: c.floor_d };
    const fail = c.higher_is_worse ? design.fail_alpha : design.rates_fail_alpha;
    const alpha = { pass: design.alpha, fail };
    c.advice = pairsToDecide(c.d_mean, c.d_sd, margins, plan.trials, alpha);
  }
  decision.guards.unshift(...facts.runGuards);
  if (facts.capacity) decision.capacity = facts.capacity;
  return {
    comparisons: decision.comparisons,
    reliability: decision.reliability,
    guards: decision.guards,
    verdict: overallVerdict(decision, facts.qualityFailed, facts.cancelled),
    design,
  };
}
