// The lanes report as markdown: the rule's verdict per lane and why, a chart
// of pass rate by window (one line per lane), and the table of every lane ×
// window × day behind it.

import { compact, percent } from "../common/format.ts";
import type { BurstStats, LanesReport } from "../lanes/reduce.ts";
import { COLOR_NAMES, chartColors } from "./blocks.ts";

const ICON = { choose: "✅", hold: "⏸️", graduate: "⬆️" } as const;
const MAX_CHART_LANES = 6;

const classes = (counts: BurstStats["failures"]) =>
  Object.entries(counts)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ") || "–";

function chart(r: LanesReport): string[] {
  const lanes = r.lanes.slice(0, MAX_CHART_LANES);
  const windows = [...new Set(r.bursts.map((b) => b.window))].sort();
  if (windows.length === 0) return [];
  const series = lanes.map((l) => {
    const days = new Set(l.days);
    return windows.map((w) => {
      const mine = r.bursts.filter((b) => b.lane === l.lane && b.window === w && days.has(b.date));
      const n = mine.reduce((a, b) => a + b.requests, 0);
      return n === 0 ? 0 : Math.round((100 * mine.reduce((a, b) => a + b.passed, 0)) / n);
    });
  });
  const legend = lanes.map((l, i) => `${l.lane} (${COLOR_NAMES[i]})`).join(", ");
  return [
    `Pass rate against the floor by window, over each lane's last ${r.rule.days} days: ${legend}.`,
    "",
    "```mermaid",
    chartColors(lanes.length),
    "xychart-beta",
    `  title "Pass rate (%) by window: ${legend.replace(/"/g, "'")}"`,
    `  x-axis "window" [${windows.map((w) => `"${w}"`).join(", ")}]`,
    '  y-axis "pass rate (%)" 0 --> 100',
    ...series.map((s) => `  line [${s.join(", ")}]`),
    "```",
  ];
}

export function renderLanesMarkdown(r: LanesReport): string {
  const floor = r.floor
    ? `the floor: ${r.floor.latency === "ttft" ? "time to first token" : "time to the full answer"} ≤ ${compact(r.floor.ms / 1000)} s, from each request's scheduled time across its retries`
    : "no bursts yet";
  const rule = r.rule;
  const verdicts = r.lanes.map(
    (l) =>
      `| ${ICON[l.verdict]} ${l.lane} | **${l.verdict}** | ${l.why} | ${l.busiest_window ?? "–"} | ${l.days.length}${l.enough_days ? "" : ` of ${rule.days}`} |`,
  );
  const rows = r.bursts.map(
    (b) =>
      `| ${b.lane} | ${b.window} | ${b.date} | ${b.passed}/${b.requests} (${percent(b.pass_rate, 0)}) | ${b.p90_ms === null ? "–" : compact(b.p90_ms)} | ${percent(b.retry_rate, 0)} | ${classes(b.failures)} | ${classes(b.failed_attempts)} |`,
  );
  return [
    "### Lanes at the busy hour",
    "",
    `${floor}. The rule, written before measuring: choose a lane when every burst of its last ${rule.days} days passes ≥ ${percent(rule.choose_min_pass, 0)} and retries stay under ${percent(rule.choose_max_retry, 0)}; graduate (move the task class up a tier) when the day's busiest burst passes under ${percent(rule.graduate_below_pass, 0)} on ${rule.graduate_days} of those days or retries exceed ${percent(rule.graduate_above_retry, 0)}; otherwise hold.`,
    "",
    "| lane | verdict | why | busiest window | days |",
    "|---|---|---|---|--:|",
    ...verdicts,
    "",
    ...chart(r),
    "",
    "| lane | window | day | passed | p90 (ms) | retries | failed (final class) | failed attempts |",
    "|---|---|---|--:|--:|--:|---|---|",
    ...rows,
    "",
    `_A burst of a few requests catches scheduling trouble — a lane that queues, throttles or sheds at its busy hour — not a p99: with 8 requests the p90 is their slowest. Retries: attempts beyond the first, per request; \`rate_limited_quota\` (your quota) and \`overloaded\` / \`rate_limited\` (the lane is full) are kept apart.${r.off_window_rows > 0 ? ` ${r.off_window_rows} requests ran outside every window and are not judged.` : ""}_`,
    "",
  ].join("\n");
}
