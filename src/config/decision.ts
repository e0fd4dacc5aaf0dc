// The settings of the decision: the gated percentile, each metric's
// tolerance, the rule, the confidence, and the limits that make a run an error.

import type { PercentileKey } from "../common/percentiles.ts";
import { DECISION_RULES } from "../compare/metric.ts";
import type { DecisionOptions } from "../compare/verdict.ts";
import { parseBudgets } from "./budget.ts";
import { parseOutcomeList } from "./checks.ts";
import { given, optionalNumber, type RawSettings, readChoice, readNumber } from "./settings.ts";

export function parsePercentile(raw: RawSettings): PercentileKey {
  const written = readChoice(raw, "percentile", ["p50", "p90", "p95", "p99", "p99.9"]);
  return written === "p99.9" ? "p999" : written;
}

export function parseDecision(raw: RawSettings): DecisionOptions {
  const tpot = optionalNumber(raw, "max-tpot-regression");
  const e2el = optionalNumber(raw, "max-e2el-regression");
  return {
    percentile: parsePercentile(raw),
    tolerances: {
      goodput: readNumber(raw, "max-goodput-drop"),
      ttft: readNumber(raw, "max-ttft-regression"),
      itl: readNumber(raw, "max-itl-regression"),
      ...(tpot === undefined ? {} : { tpot }),
      ...(e2el === undefined ? {} : { e2el }),
    },
    rule: readChoice(raw, "decision-rule", DECISION_RULES),
    confidence: readNumber(raw, "confidence"),
    maxErrorRate: readNumber(raw, "max-error-rate"),
    maxTrialCv: readNumber(raw, "max-trial-cv"),
    minOkRequests: readNumber(raw, "min-ok-requests"),
    reliability: {
      maxFailureIncrease: readNumber(raw, "max-failure-increase"),
      exclude: parseOutcomeList(raw),
    },
    budgets: parseBudgets("budget", given(raw, "budget") ?? "none"),
  };
}
