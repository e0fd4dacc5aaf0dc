// A gate run's decision, made once over its trials: the guards, each gated
// metric's comparison, reliability and the overall verdict. The gate calls it
// when its pairs are done, and a results file another job wrote is decided
// again by it from its trials (results/trust.ts): one rule, one design.

import type { Guard } from "../common/guard.ts";
import { pairsToDecide } from "./advice.ts";
import { type BudgetCheck, budgetShares } from "./budgets.ts";
import { metricSpecs } from "./gated.ts";
import type { MetricComparison } from "./metric.ts";
import type { ReliabilityComparison } from "./reliability.ts";
import { failShares, type SequentialDesign, sequentialDesign } from "./sequential.ts";
import type { TrialEntry } from "./trials.ts";
import {
  type ApartOutcomes,
  type DecisionOptions,
  decide,
  overallVerdict,
  type Verdict,
} from "./verdict.ts";

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
export function designOf(
  plan: LookPlan,
  confidence: number,
  latencies = 0,
  rates = 2,
): SequentialDesign {
  const alpha = 1 - confidence;
  return sequentialDesign(plan.trials, plan.maxTrials, LOOK_STEP, alpha, latencies, rates);
}

/**
 * What the fail boundaries' α is split over: the gated latencies (TTFT and
 * ITL by default; TPOT and E2EL when set) and the latency budgets; the rates
 * (goodput, the failure rate), the rate budgets and the rules decided apart
 * that count as rates (accuracy's).
 */
export function sharesOf(options: DecisionOptions): { latencies: number; rates: number } {
  const gated = metricSpecs(options.percentile, options.tolerances).filter((s) => s.higherIsWorse);
  const budgets = budgetShares(options.budgets);
  return {
    latencies: gated.length + budgets.latencies,
    rates: 2 + budgets.rates + (options.apartRates ?? 0),
  };
}

/** The one-sided errors of a rule decided apart that holds one rate's share: its pass and fail boundaries'. */
export function apartAlphas(options: DecisionOptions): { pass: number; fail: number } {
  const alpha = 1 - options.confidence;
  const shares = sharesOf(options);
  return { pass: alpha, fail: failShares(alpha, shares.latencies, shares.rates).ratesAlpha };
}

/** What was decided apart from the paired trials, and how the run ended. */
export interface RunFacts {
  trials: readonly TrialEntry[];
  /** Guards from how the run went (a server that failed, a preflight), not from the trials. */
  runGuards: readonly Guard[];
  /** A capacity gate's comparison; incomplete: its paired trials did not all run. */
  capacity: { verdict: "pass" | "regressed" | "inconclusive"; incomplete: boolean } | undefined;
  /** The side-suites measured apart (quality, contract, …): the ids of those that failed, and of those still open. */
  apart: ApartOutcomes;
  cancelled: boolean;
}

export interface RunDecision {
  comparisons: MetricComparison[];
  reliability: ReliabilityComparison | null;
  budgets: BudgetCheck[];
  guards: Guard[];
  verdict: Verdict;
  /** The sequential design the decision used: its looks (pairs) and critical values. */
  design: SequentialDesign;
}

export function decideRun(options: DecisionOptions, plan: LookPlan, facts: RunFacts): RunDecision {
  const shares = sharesOf(options);
  const design = designOf(plan, options.confidence, shares.latencies, shares.rates);
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
  // Nothing compared is not a pass: a run that measured no pair says why in a guard of its
  // own; one whose file lost its trials (a report job's input) gets this one.
  const nothing = decision.comparisons.length === 0 && !facts.capacity && !facts.cancelled;
  if (nothing && decision.guards.length === 0)
    decision.guards.push({
      code: "no_pairs",
      message: "not one complete pair of trials to compare: there is nothing to decide on",
    });
  if (facts.capacity) decision.capacity = facts.capacity;
  return {
    comparisons: decision.comparisons,
    reliability: decision.reliability,
    budgets: decision.budgets,
    guards: decision.guards,
    verdict: overallVerdict(decision, facts.apart, facts.cancelled),
    design,
  };
}
