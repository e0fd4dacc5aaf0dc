// A gate run's decision, made once over its trials: the guards, each gated
// metric's comparison, reliability and the overall verdict. The gate calls it
// when its pairs are done, and a results file another job wrote is decided
// again by it from its trials (results/trust.ts): one rule, one α split.

import type { Guard } from "../common/guard.ts";
import type { MetricComparison } from "./decide.ts";
import type { ReliabilityComparison } from "./reliability.ts";
import type { TrialEntry } from "./trials.ts";
import { type DecisionOptions, decide, overallVerdict, type Verdict } from "./verdict.ts";

/** The pairs before the first look, and at most. */
export interface LookPlan {
  trials: number;
  maxTrials: number;
}

/** Pre-declared looks: the first after `trials` pairs, then one per added pair; α split evenly. */
export function lookConfidence(
  confidence: number,
  plan: LookPlan,
): { looks: number; perLook: number } {
  const looks = Math.max(1, plan.maxTrials - plan.trials + 1);
  return { looks, perLook: 1 - (1 - confidence) / looks };
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
  looks: number;
  confidence_per_look: number;
}

export function decideRun(options: DecisionOptions, plan: LookPlan, facts: RunFacts): RunDecision {
  const { looks, perLook } = lookConfidence(options.confidence, plan);
  const decision = decide(options, facts.trials, perLook);
  decision.guards.unshift(...facts.runGuards);
  if (facts.capacity) decision.capacity = facts.capacity;
  return {
    comparisons: decision.comparisons,
    reliability: decision.reliability,
    guards: decision.guards,
    verdict: overallVerdict(decision, facts.qualityFailed, facts.cancelled),
    looks,
    confidence_per_look: perLook,
  };
}
