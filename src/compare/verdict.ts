// The decision of a gate run: guards, the paired comparison of every gated
// metric, and one overall verdict.

import type { PercentileKey } from "../metrics/histogram.ts";
import {
  compareMetric,
  type DecisionRule,
  type MetricComparison,
  type PairValues,
} from "./decide.ts";
import { metricSpecs, metricValue, type Tolerances } from "./gated.ts";
import { type Guard, guardsFor } from "./guards.ts";
import type { TrialEntry } from "./trials.ts";

export const VERDICTS = ["pass", "inconclusive", "fail", "error"] as const;
export type Verdict = (typeof VERDICTS)[number];

export interface DecisionOptions {
  percentile: PercentileKey;
  tolerances: Tolerances;
  rule: DecisionRule;
  /** One-sided confidence of the whole run; split over the looks. */
  confidence: number;
  maxErrorRate: number;
  maxTrialCv: number;
  minOkRequests: number;
}

export interface Decision {
  guards: Guard[];
  comparisons: MetricComparison[];
}

/** Guards and comparisons of the trials so far, at the confidence of one look. */
export function decide(
  options: DecisionOptions,
  trials: readonly TrialEntry[],
  confidence: number,
): Decision {
  const specs = metricSpecs(options.percentile, options.tolerances);
  const pairs = [...new Set(trials.map((t) => t.pair))].sort((a, b) => a - b);
  const comparisons = specs.flatMap((spec) => {
    const values: PairValues[] = [];
    for (const pair of pairs) {
      const value = (arm: TrialEntry["arm"]) => {
        const t = trials.find((x) => x.pair === pair && x.arm === arm);
        return t ? metricValue(spec.id, t.report, options.percentile) : undefined;
      };
      const baseline = value("baseline");
      const candidate = value("candidate");
      if (baseline !== undefined && candidate !== undefined && baseline > 0 && candidate > 0) {
        values.push({ baseline, candidate });
      }
    }
    // A metric without one complete pair has nothing to compare (a guard says why).
    return values.length > 0
      ? [compareMetric(spec, values, options.rule, confidence, options.maxTrialCv)]
      : [];
  });
  return { guards: guardsFor(options, trials, specs), comparisons };
}

export function overallVerdict(
  guards: readonly Guard[],
  comparisons: readonly MetricComparison[],
  qualityFailed: boolean,
): Verdict {
  if (guards.length > 0) return "error";
  if (qualityFailed || comparisons.some((c) => c.verdict === "regressed")) return "fail";
  if (comparisons.some((c) => c.verdict === "inconclusive")) return "inconclusive";
  return "pass";
}
