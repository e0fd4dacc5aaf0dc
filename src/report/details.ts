// The comment's collapsible details: a chart of the metrics that decided,
// the pooled percentiles (descriptive only), the configuration and method.

import { ARMS } from "../common/arms.ts";
import { compact as num, signedPercent as signed } from "../common/format.ts";
import { POOLED_METRICS } from "../common/percentiles.ts";
import type { MetricComparison } from "../compare/metric.ts";
import type { LatencySummary } from "../metrics/histogram.ts";
import type { ConfigDescription, GateResults } from "../results/model.ts";
import { COLOR_NAMES, chartColors, details } from "./blocks.ts";
import { metricName } from "./metric-table.ts";

/**
 * The metrics that decided the verdict: the regressed, else the open; in a
 * pass, the latency nearest its limit. None when something else decided (failures,
 * quality, capacity: their own sections show them).
 */
function deciding(r: GateResults): MetricComparison[] {
  const shown = r.comparisons.filter((c) => c.pairs.length >= 2);
  for (const v of ["regressed", "inconclusive"] as const) {
    const hit = shown.filter((c) => c.verdict === v);
    if (hit.length > 0) return hit.slice(0, 2);
  }
  if (r.verdict !== "pass") return [];
  const nearest = [...shown.filter((c) => c.higher_is_worse)].sort(
    (a, b) => b.d_mean / b.tolerance_d - a.d_mean / a.tolerance_d,
  )[0];
  return nearest ? [nearest] : [];
}

export function chart(r: GateResults): string {
  const metrics = deciding(r);
  if (metrics.length === 0) return "";
  const one = (c: MetricComparison) => {
    const round = (v: number) => Number(v.toPrecision(3));
    const base = c.pairs.map((p) => round(p.baseline));
    const cand = c.pairs.map((p) => round(p.candidate));
    const top = Number((Math.max(...base, ...cand) * 1.15).toPrecision(2));
    // Each pair's own change on its axis label: the chart reads without the table.
    const labels = c.pairs.map(
      (p, i) => `"${i + 1}: ${signed(p.candidate / p.baseline - 1).replace(" ", "")}"`,
    );
    return [
      "```mermaid",
      chartColors(2),
      "xychart-beta",
      `  title "${metricName(c)} per pair: baseline (blue bars) vs candidate (red line)"`,
      `  x-axis "pair: candidate vs baseline" [${labels.join(", ")}]`,
      `  y-axis "${metricName(c)}" 0 --> ${top}`,
      `  bar [${base.join(", ")}]`,
      `  line [${cand.join(", ")}]`,
      "```",
    ].join("\n");
  };
  return details(
    `Chart: ${metrics.map((c) => c.label).join(" and ")} per pair (${COLOR_NAMES[0]} bars: baseline, ${COLOR_NAMES[1]} line: candidate)`,
    metrics.map(one).join("\n\n"),
  );
}

/** A latency as the comment shows it: "≥" when it is only a lower bound (censored). */
function bounded(s: LatencySummary, key: "p50" | "p95" | "p99"): string {
  return `${s.lower_bounds.includes(key) ? "≥" : ""}${num(s[key])}`;
}

export function pooled(r: GateResults): string {
  if (!r.pooled) return "";
  const labels = { ttft_ms: "TTFT", itl_ms: "ITL", tpot_ms: "TPOT", e2el_ms: "E2EL" } as const;
  const rows: string[] = [];
  for (const metric of POOLED_METRICS) {
    for (const arm of ARMS) {
      const p = r.pooled[arm][metric];
      rows.push(
        `| ${labels[metric]} | ${arm} | ${p.count} | ${bounded(p, "p50")} | ${bounded(p, "p95")} | ${bounded(p, "p99")} |`,
      );
    }
  }
  return details(
    "Pooled percentiles (descriptive only: not used for the verdict)",
    [
      'All requests of all trials of an arm pooled into one histogram. Pooling ignores the trial-to-trial noise, so these numbers never decide anything. "≥": a lower bound, among timed-out requests.',
      "",
      "| metric (ms) | arm | samples | p50 | p95 | p99 |",
      "|---|---|--:|--:|--:|--:|",
      ...rows,
    ].join("\n"),
  );
}

export function method(config: ConfigDescription): string {
  return details(
    "Configuration and method",
    [
      "Each pair runs baseline and candidate back to back with the same seeded schedule and prompt lengths (each arm and each trial its own texts, so no prefix cache carries over), open loop, one arm under load at a time. Latency counts from each request's scheduled send time; timeouts count at the timeout. Per metric and pair, d = ln(candidate / baseline) for latencies and ln(baseline / candidate) for goodput (positive = worse); at each look of the sequential design a one-sided t-interval over the pairs so far (n − 1 degrees of freedom, the look's critical value) measures the change against the trial-to-trial noise. Pass: the upper bound within the tolerance; fail (rule margin): the lower bound beyond half of it and the estimate beyond it; a decided metric stays decided.",
      "",
      "```json",
      JSON.stringify(config, null, 2),
      "```",
    ].join("\n"),
  );
}
