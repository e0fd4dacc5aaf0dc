// The PR comment and job summary (one markdown for both): the verdict first,
// the gated metrics with their noise, outcome counts, self-checks, then
// collapsible details. Fits GitHub's comment limit by dropping the least
// important sections first, with a visible note.

import { marker } from "../common/comment.ts";
import type { Guard } from "../common/guard.ts";
import type { Verdict } from "../compare/verdict.ts";
import type { GateResults } from "../results/model.ts";
import { fenced } from "./blocks.ts";
import { budgetTable } from "./budgets.ts";
import { capacityDetails, capacitySection } from "./capacity-markdown.ts";
import { runtimesLine } from "./contract-markdown.ts";
import { costLine } from "./cost.ts";
import { chart, method, pooled } from "./details.ts";
import { context, metricTable } from "./metric-table.ts";
import { nextStep } from "./next-step.ts";
import { outcomes, perTrial, requestsOnRecord, selfChecks, servers } from "./sections.ts";
import { serverViewLine, serverViewSection } from "./server-view.ts";
import { SUITE_RENDER } from "./suites.ts";
import { timelineChart } from "./timeline-chart.ts";

const ICON: Record<Verdict, string> = {
  pass: "✅",
  fail: "❌",
  inconclusive: "⚠️",
  error: "🛑",
  cancelled: "⏹️",
};
/** The guards as a list; a guard's further lines (a log tail) fenced below it. */
function guardList(guards: readonly Guard[]): string[] {
  return guards.flatMap((g) => [
    `- ${g.message}`,
    ...(g.detail ? ["", ...fenced(g.detail).map((l) => `  ${l}`)] : []),
  ]);
}

/** The comment (and job summary) of a run, fitted to `limit` characters when given. */
export function renderMarkdown(r: GateResults, commentKey: string, limit = Infinity): string {
  const title = `### ${ICON[r.verdict]} llm-perf-gate: **${r.verdict}** — ${r.headline}`;
  const step = nextStep(r);
  const next = step ? ["", `**Next step:** ${step}.`] : [];
  if ((r.trials.length === 0 && !r.capacity) || !r.config) {
    // Nothing was measured: the headline, and the guards when they say more than it does.
    const only = r.guards.length === 1 ? r.guards[0] : undefined;
    const body = only
      ? only.detail
        ? ["", ...fenced(only.detail)]
        : []
      : ["", ...guardList(r.guards)];
    const text = [marker(commentKey), title, ...body, ...next].join("\n");
    return `${text.slice(0, limit - 1)}\n`;
  }
  const config = r.config;
  const suites = Object.values(SUITE_RENDER);
  const head = [
    marker(commentKey),
    title,
    ...(runtimesLine(r.contract) ? ["", `Serving: ${runtimesLine(r.contract)}`] : []),
    ...(r.warnings.length > 0 ? ["", ...r.warnings.map((w) => `> ⚠️ **Warning:** ${w}`)] : []),
    ...(r.guards.length > 0
      ? [
          "",
          "No performance verdict: the measurement cannot be trusted as it is.",
          "",
          ...guardList(r.guards),
        ]
      : []),
    ...next,
    ...(r.capacity ? ["", capacitySection(r.capacity, config.slo.ttft_ms)] : []),
    "",
    metricTable(r, config),
    ...(budgetTable(r) ? ["", budgetTable(r)] : []),
    ...(serverViewLine(r) ? ["", serverViewLine(r)] : []),
    "",
    context(r, config),
    "",
    outcomes(r),
    "",
    selfChecks(r),
    ...(requestsOnRecord(r) ? ["", requestsOnRecord(r)] : []),
    ...(servers(r) ? ["", servers(r)] : []),
    ...suites.flatMap((s) => (s.section(r) ? ["", s.section(r)] : [])),
    ...(costLine(r) ? ["", costLine(r)] : []),
  ].join("\n");
  // Least important last: dropped first when the comment is too long.
  const optional = [
    chart(r),
    timelineChart(r),
    serverViewSection(r),
    r.capacity ? capacityDetails(r.capacity) : "",
    perTrial(r, config),
    ...suites.map((s) => s.details(r)),
    pooled(r),
    method(config),
  ].filter(Boolean);
  const note = (dropped: number) =>
    `\n\n_${dropped} detail section${dropped > 1 ? "s" : ""} omitted to fit GitHub's ${limit.toLocaleString("en-US")}-character limit; the results file has everything._`;
  for (let keep = optional.length; keep >= 0; keep--) {
    const body = [head, ...optional.slice(0, keep)].join("\n\n");
    const text = keep === optional.length ? body : body + note(optional.length - keep);
    if (text.length <= limit) return `${text}\n`;
  }
  const cut = `\n\n_Truncated to fit GitHub's ${limit}-character limit; the results file has everything._\n`;
  return head.slice(0, limit - cut.length) + cut;
}
