// The absolute budgets in words: a table beside the gated metrics, a phrase
// for the headline, and a line when the baseline misses a budget too.

import { compact, percent } from "../common/format.ts";
import type { BudgetCheck, BudgetVerdict } from "../compare/budgets.ts";
import type { GateRun } from "../gate/gate-run.ts";

const ICON: Record<BudgetVerdict, string> = { met: "✅", missed: "❌", unclear: "⚠️" };

/** A value in the budget's terms: "812 ms", "0.42 %", "9.1 req/s". */
export function budgetValue(b: Pick<BudgetCheck, "id" | "unit">, x: number | null): string {
  if (x === null) return "–";
  return b.id === "errors" ? percent(x, 2) : `${compact(x)} ${b.unit}`;
}

/** "≤ 800 ms", "≥ 9.5 req/s". */
export const budgetLimit = (b: BudgetCheck): string =>
  `${b.higher_is_worse ? "≤" : "≥"} ${budgetValue(b, b.limit)}`;

/** For the headline: "p95 TTFT 912 ms (812 ms … 1.0 s, budget ≤ 800 ms)". */
export function budgetPhrase(b: BudgetCheck): string {
  const interval =
    b.candidate_lower === null || b.candidate_upper === null
      ? ""
      : `${budgetValue(b, b.candidate_lower)} … ${budgetValue(b, b.candidate_upper)}, `;
  return `${b.label} ${budgetValue(b, b.candidate)} (${interval}budget ${budgetLimit(b)})`;
}

/** The budgets the baseline misses too: reported, never an error. */
export function baselineMisses(r: Pick<GateRun, "budgets">): string[] {
  return r.budgets
    .filter((b) => b.baseline_misses)
    .map(
      (b) =>
        `the baseline already misses ${b.label} ${budgetLimit(b)} (${budgetValue(b, b.baseline)})`,
    );
}

export function budgetTable(r: Pick<GateRun, "budgets" | "verdict">): string | null {
  if (r.budgets.length === 0) return null;
  const decided = r.verdict !== "error" && r.verdict !== "cancelled";
  const rows = r.budgets.map((b) => {
    const name = b.unit ? `${b.label} (${b.unit})` : b.label;
    const interval =
      b.candidate_lower === null || b.candidate_upper === null
        ? "–"
        : `${budgetValue(b, b.candidate_lower)} … ${budgetValue(b, b.candidate_upper)}`;
    return `| ${decided ? ICON[b.verdict] : "·"} | ${name} | ${budgetLimit(b)} | ${budgetValue(b, b.baseline)} | ${budgetValue(b, b.candidate)} | ${interval} | ${decided ? b.verdict : "not decided"} |`;
  });
  const notes = baselineMisses(r).map((m) => `- ${m}`);
  return [
    "**Budgets** (absolute limits on the candidate; missed only when its whole interval is beyond the limit)",
    "",
    "| | budget | limit | baseline | candidate | interval | verdict |",
    "|:-:|---|---|--:|--:|---|---|",
    ...rows,
    ...(notes.length > 0 ? ["", ...notes] : []),
  ].join("\n");
}
