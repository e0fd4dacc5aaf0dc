// Absolute budgets beside the relative rule: the candidate against fixed
// limits (p95 TTFT ≤ 800 ms, failure rate ≤ 0.1 %, goodput ≥ 9.5 req/s), so
// that a candidate within 10 % of a baseline that already misses the SLO
// does not pass. The evidence standard is the relative rule's: a budget is
// missed only when the candidate's bound is beyond it, met only when its
// other bound is within it, and otherwise more pairs decide — on the same
// sequential design, each budget one more share of the fail boundaries' α.
//
// A latency or goodput budget is the relative rule with the budget in place
// of the baseline and no tolerance: d_i = ln(candidate_i / limit) per pair.
// The failure-rate budget is reliability's bound on one arm: the wider of a
// t bound on the pairs' rates and the binomial bound at the limit.

import { probit } from "simple-statistics";
import { compact, percent } from "../common/format.ts";
import { type PercentileKey, percentileLabel } from "../common/percentiles.ts";
import { pairValues } from "./gated.ts";
import {
  compareMetric,
  type DecisionRule,
  type MetricSpec,
  type MetricStatus,
  type MetricVerdict,
  type PairValues,
} from "./metric.ts";
import { type PairFailures, pairFailures, spreadVariance, widerHalfWidth } from "./reliability.ts";
import type { SequentialDesign } from "./sequential.ts";
import type { TrialEntry } from "./trials.ts";

export const BUDGET_IDS = ["ttft", "itl", "tpot", "e2el", "goodput", "errors"] as const;
export type BudgetId = (typeof BUDGET_IDS)[number];
/** Limits: ms for latencies (at the gate's percentile), req/s for goodput, a fraction for errors. */
export type Budgets = Partial<Record<BudgetId, number>>;

const LATENCY_BUDGETS = ["ttft", "itl", "tpot", "e2el"] as const;
const RATE_BUDGETS = ["goodput", "errors"] as const;

/** How many budgets join the latencies' and the rates' shares of α. */
export function budgetShares(budgets: Budgets): { latencies: number; rates: number } {
  const count = (ids: readonly BudgetId[]) => ids.filter((id) => budgets[id] !== undefined).length;
  return { latencies: count(LATENCY_BUDGETS), rates: count(RATE_BUDGETS) };
}

export type BudgetVerdict = "met" | "missed" | "unclear";

export interface BudgetCheck {
  id: BudgetId;
  label: string;
  unit: string;
  limit: number;
  /** true: the value must stay at or below the limit; false (goodput): at or above. */
  higher_is_worse: boolean;
  /** The candidate's value (geometric mean of its trials; errors: its failure rate), and one-sided bounds at the deciding look; null: no trial had a reading. */
  candidate: number | null;
  candidate_lower: number | null;
  candidate_upper: number | null;
  /** The baseline's value in the same terms: reported, never gated. */
  baseline: number | null;
  /** The baseline is on the wrong side of the limit too (its estimate). */
  baseline_misses: boolean;
  verdict: BudgetVerdict;
  status: MetricStatus;
  decided_at: number;
  reason: string;
}

export interface BudgetOptions {
  budgets: Budgets;
  percentile: PercentileKey;
  rule: DecisionRule;
  maxTrialCv: number;
  exclude: Parameters<typeof pairFailures>[1];
}

const UNITS: Record<BudgetId, string> = {
  ttft: "ms",
  itl: "ms",
  tpot: "ms",
  e2el: "ms",
  goodput: "req/s",
  errors: "",
};

const LABELS = { ttft: "TTFT", itl: "ITL", tpot: "TPOT", e2el: "E2EL" } as const;

const verdictOf = (v: MetricVerdict): BudgetVerdict =>
  v === "regressed" ? "missed" : v === "pass" || v === "improved" ? "met" : "unclear";

const shown = (id: BudgetId, x: number | null) =>
  x === null ? "–" : id === "errors" ? percent(x, 2) : `${compact(x)} ${UNITS[id]}`;

function reasonOf(
  c: Pick<BudgetCheck, "id" | "label" | "limit" | "higher_is_worse" | "candidate" | "verdict">,
  lower: number | null,
  upper: number | null,
): string {
  const side = c.higher_is_worse ? "≤" : "≥";
  const budget = `the budget ${side} ${shown(c.id, c.limit)}`;
  const value = `${c.label} ${shown(c.id, c.candidate)}`;
  const interval =
    lower !== null && upper !== null
      ? `${shown(c.id, lower)} … ${shown(c.id, upper)}`
      : "unknown before the first look";
  switch (c.verdict) {
    case "missed":
      return `${value}: misses ${budget} — the whole interval (${interval}) is beyond it`;
    case "met":
      return `${value}: within ${budget} — the whole interval (${interval}) is`;
    case "unclear":
      return `${value}: the interval (${interval}) straddles ${budget} — more pairs decide`;
  }
}

/** A latency or goodput budget: the relative rule against the limit, no tolerance. */
function valueBudget(
  id: Exclude<BudgetId, "errors">,
  limit: number,
  trials: readonly TrialEntry[],
  o: BudgetOptions,
  design: SequentialDesign,
): BudgetCheck {
  const label = id === "goodput" ? "goodput" : `${percentileLabel(o.percentile)} ${LABELS[id]}`;
  const spec = { id, label, unit: UNITS[id], higherIsWorse: id !== "goodput", tolerance: 0 };
  const values = pairValues(spec, trials, o.percentile);
  return values.length === 0 ? unread(spec, limit) : againstLimit(spec, limit, values, o, design);
}

/** A budget no pair could be read for (one-token answers have no TPOT): unclear, said so. */
function unread(spec: MetricSpec & { id: BudgetId }, limit: number): BudgetCheck {
  return {
    id: spec.id,
    label: spec.label,
    unit: spec.unit,
    limit,
    higher_is_worse: spec.higherIsWorse,
    candidate: null,
    candidate_lower: null,
    candidate_upper: null,
    baseline: null,
    baseline_misses: false,
    verdict: "unclear",
    status: "exhausted",
    decided_at: 0,
    reason: `${spec.label}: no pair has a reading of it on both arms — the budget cannot be checked`,
  };
}

/** Each pair's candidate against the limit (the baseline reported, not compared). */
export function againstLimit(
  spec: MetricSpec & { id: Exclude<BudgetId, "errors"> },
  limit: number,
  values: readonly PairValues[],
  o: Pick<BudgetOptions, "rule" | "maxTrialCv">,
  design: SequentialDesign,
): BudgetCheck {
  const pairs = values.map(({ candidate, candidateCensored, candidateContamination }) => ({
    baseline: limit,
    candidate,
    ...(candidateCensored !== undefined ? { candidateCensored } : {}),
    ...(candidateContamination !== undefined ? { candidateContamination } : {}),
  }));
  const c = compareMetric(spec, pairs, o.rule, design, o.maxTrialCv);
  const baseline = Math.exp(values.reduce((s, v) => s + Math.log(v.baseline), 0) / values.length);
  const finite = (x: number) => (Number.isFinite(x) ? limit * (1 + x) : null);
  const check = {
    id: spec.id,
    label: spec.label,
    unit: spec.unit,
    limit,
    higher_is_worse: spec.higherIsWorse,
    candidate: c.candidate,
    candidate_lower: finite(c.change_lower),
    candidate_upper: finite(c.change_upper),
    baseline,
    baseline_misses: spec.higherIsWorse ? baseline > limit : baseline < limit,
    verdict: verdictOf(c.verdict),
    status: c.status,
    decided_at: c.decided_at,
  };
  return { ...check, reason: reasonOf(check, check.candidate_lower, check.candidate_upper) };
}

/** The candidate's failure rate at one look: the mean of the pairs' rates and its bounds. */
function errorsLook(
  pairs: readonly PairFailures[],
  limit: number,
  critical: { pass: number; fail: number },
) {
  const rates = pairs.map((p) => p.candidate.failed / p.candidate.counted);
  const n = rates.length;
  const rate = rates.reduce((s, x) => s + x, 0) / n;
  const requests = pairs.reduce((s, p) => s + p.candidate.counted, 0);
  // Reliability's bound on one arm: its binomial variance at the limit.
  const half = (t: number) =>
    widerHalfWidth(t, n, spreadVariance(rates), (limit * (1 - limit)) / requests);
  const lower = Math.max(0, rate - half(critical.fail));
  const upper = rate + half(critical.pass);
  const verdict: BudgetVerdict =
    upper <= limit ? "met" : rate - half(critical.fail) > limit ? "missed" : "unclear";
  return { rate, lower, upper, verdict };
}

/**
 * Whether the failure-rate budget could still be met by max-trials in the
 * best case: no further failure, `requests` by then, the bound at the whole α
 * (the smallest critical value a look can have). Optimistic on purpose.
 */
function metReachable(failed: number, requests: number, limit: number, alpha: number): boolean {
  const z = probit(1 - alpha);
  return failed / requests + z * Math.sqrt((limit * (1 - limit)) / requests) <= limit;
}

/** The failure-rate budget, look by look; the first that decides stands. */
function errorsBudget(
  limit: number,
  trials: readonly TrialEntry[],
  o: BudgetOptions,
  design: SequentialDesign,
): BudgetCheck | null {
  const pairs = pairFailures(trials, o.exclude);
  if (pairs.length === 0) return null;
  let last: (ReturnType<typeof errorsLook> & { pairs: number }) | undefined;
  for (const [k, n] of design.looks.entries()) {
    if (n > pairs.length) break;
    const critical = {
      pass: design.critical[k] ?? Infinity,
      fail: design.rates_fail_critical[k] ?? Infinity,
    };
    last = { ...errorsLook(pairs.slice(0, n), limit, critical), pairs: n };
    if (last.verdict !== "unclear") break;
  }
  const sum = (f: (p: PairFailures) => number) => pairs.reduce((s, p) => s + f(p), 0);
  const rateOf = (side: "baseline" | "candidate") =>
    sum((p) => p[side].failed) /
    Math.max(
      1,
      sum((p) => p[side].counted),
    );
  const baseline = rateOf("baseline");
  const verdict = last?.verdict ?? "unclear";
  const lastLook = design.looks.at(-1) ?? 0;
  const futile =
    verdict === "unclear" &&
    pairs.length < lastLook &&
    rateOf("candidate") <= limit &&
    !metReachable(
      sum((p) => p.candidate.failed),
      sum((p) => p.candidate.counted) * (lastLook / pairs.length),
      limit,
      design.alpha,
    );
  const check = {
    id: "errors" as const,
    label: "failure rate",
    unit: "",
    limit,
    higher_is_worse: true,
    candidate: last?.rate ?? rateOf("candidate"),
    candidate_lower: last?.lower ?? null,
    candidate_upper: last?.upper ?? null,
    baseline,
    baseline_misses: baseline > limit,
    verdict,
    status: (verdict !== "unclear"
      ? "decided"
      : pairs.length >= lastLook
        ? "exhausted"
        : futile
          ? "futile"
          : "open") satisfies MetricStatus as MetricStatus,
    decided_at: last?.pairs ?? pairs.length,
  };
  const more =
    verdict === "unclear" && (check.candidate === 0 || futile)
      ? `; with no failure, showing ${shown("errors", limit)} takes about ${Math.ceil(probit(0.95) ** 2 / limit).toLocaleString("en-US")} requests${futile ? `, more than ${lastLook} pairs send: raise rate × duration or max-trials` : ""}`
      : "";
  return {
    ...check,
    reason: `${reasonOf(check, check.candidate_lower, check.candidate_upper)}${more}`,
  };
}

/** Every budget set, checked on the pairs so far. */
export function checkBudgets(
  o: BudgetOptions,
  trials: readonly TrialEntry[],
  design: SequentialDesign,
): BudgetCheck[] {
  // Before any pair there is nothing to check (the gate's first look comes later).
  if (trials.length === 0) return [];
  return BUDGET_IDS.flatMap((id) => {
    const limit = o.budgets[id];
    if (limit === undefined) return [];
    const check =
      id === "errors"
        ? errorsBudget(limit, trials, o, design)
        : valueBudget(id, limit, trials, o, design);
    return check ? [check] : [];
  });
}
