// The decision of a gate run: guards, the paired comparison of every gated
// metric, the reliability comparison, and one overall verdict.

import { blocksVerdict, type Guard } from "../common/guard.ts";
import type { PercentileKey } from "../common/percentiles.ts";
import { type BudgetCheck, type Budgets, checkBudgets } from "./budgets.ts";
import { metricSpecs, pairValues, type Tolerances } from "./gated.ts";
import { guardsFor } from "./guards.ts";
import { compareMetric, type DecisionRule, type MetricComparison } from "./metric.ts";
import {
  compareReliability,
  type ReliabilityComparison,
  type ReliabilityOptions,
} from "./reliability.ts";
import type { SequentialDesign } from "./sequential.ts";
import type { TrialEntry } from "./trials.ts";

export const VERDICTS = ["pass", "inconclusive", "fail", "error", "cancelled"] as const;
export type Verdict = (typeof VERDICTS)[number];

export interface DecisionOptions {
  percentile: PercentileKey;
  tolerances: Tolerances;
  rule: DecisionRule;
  /** One-sided confidence of each boundary over all looks (1 − α). */
  confidence: number;
  /** The baseline's failure rate beyond which it is no reference. */
  maxErrorRate: number;
  maxTrialCv: number;
  minOkRequests: number;
  reliability: ReliabilityOptions;
  /** Absolute limits on the candidate; empty: none. */
  budgets: Budgets;
  /** Rules decided apart from the trials that each take a rate's share of the fail α (accuracy's); absent: none. */
  apartRates?: number;
}

export interface Decision {
  guards: Guard[];
  comparisons: MetricComparison[];
  reliability: ReliabilityComparison | null;
  /** Each budget set, checked on the candidate. */
  budgets: BudgetCheck[];
  /** A capacity gate's comparison; incomplete: its paired trials did not all run (max-duration, no baseline capacity). */
  capacity?: { verdict: "pass" | "regressed" | "inconclusive"; incomplete: boolean };
}

/** Guards and comparisons of the trials so far, under the sequential design. */
export function decide(
  options: DecisionOptions,
  trials: readonly TrialEntry[],
  design: SequentialDesign,
): Decision {
  const specs = metricSpecs(options.percentile, options.tolerances);
  const comparisons = specs.flatMap((spec) => {
    const values = pairValues(spec, trials, options.percentile);
    // A metric without one complete pair has nothing to compare (a guard says why).
    return values.length > 0
      ? [compareMetric(spec, values, options.rule, design, options.maxTrialCv)]
      : [];
  });
  const guards = guardsFor({ ...options, exclude: options.reliability.exclude }, trials, specs);
  const reliability =
    trials.length > 0 ? compareReliability(options.reliability, trials, design) : null;
  const budgets = checkBudgets(
    { ...options, rule: options.rule, exclude: options.reliability.exclude },
    trials,
    design,
  );
  return { guards, comparisons, reliability, budgets };
}

/**
 * Whether more pairs could still change the verdict: a metric is open and
 * none has regressed (a regression is final — decided metrics never change —
 * so the gate fails without the open ones).
 */
export function undecided(d: Decision): boolean {
  const regressed =
    d.comparisons.some((c) => c.verdict === "regressed") ||
    d.reliability?.verdict === "regressed" ||
    d.budgets.some((b) => b.verdict === "missed");
  const open =
    d.comparisons.some((c) => c.status === "open") ||
    d.reliability?.status === "open" ||
    d.budgets.some((b) => b.status === "open");
  return open && !regressed;
}

/** What was decided apart from the trials: the ids of the side-suites that failed, and of those still open. */
export interface ApartOutcomes {
  failed: readonly string[];
  open: readonly string[];
}

export const NOTHING_APART: ApartOutcomes = { failed: [], open: [] };

/**
 * cancelled when the job was stopped; error when the measurement cannot be
 * trusted (but a side-suite's or a capacity regression, measured apart, still
 * fails); fail on any regression — reliability, a metric, a side-suite,
 * capacity — or a missed budget;
 * error when only the candidate's numbers are unusable and nothing explains
 * it; inconclusive (also when a capacity gate could not run its paired
 * trials); pass. A capacity comparison that is only inconclusive leaves the
 * verdict to the paired trials at the baseline's capacity: they are the
 * sharper test.
 */
export function overallVerdict(
  decision: Decision,
  apart: ApartOutcomes,
  cancelled = false,
): Verdict {
  // A cancelled job decides nothing: what it measured is kept, not judged.
  if (cancelled) return "cancelled";
  const { guards, comparisons, reliability } = decision;
  const failedApart = apart.failed.length > 0 || decision.capacity?.verdict === "regressed";
  if (guards.some(blocksVerdict)) return failedApart ? "fail" : "error";
  const regressed =
    failedApart ||
    reliability?.verdict === "regressed" ||
    comparisons.some((c) => c.verdict === "regressed") ||
    decision.budgets.some((b) => b.verdict === "missed");
  if (regressed) return "fail";
  if (guards.length > 0) return "error";
  if (decision.capacity?.incomplete) return "inconclusive";
  const open =
    apart.open.length > 0 ||
    comparisons.some((c) => c.verdict === "inconclusive") ||
    reliability?.verdict === "inconclusive" ||
    decision.budgets.some((b) => b.verdict === "unclear");
  return open ? "inconclusive" : "pass";
}
