// A capacity gate in the comment: both capacities with the MLPerf-style
// labels, their change and its bounds, both curves on one chart, the rate the
// paired trials ran at; and each arm's sweep points, collapsed.

import type { CapacityRun } from "../capacity/run.ts";
import { compact as num, percent, signedPercent as signed } from "../common/format.ts";
import { details } from "./blocks.ts";
import { pointsTable, sweepCharts } from "./sweep-markdown.ts";

const ICON = { pass: "✅", regressed: "❌", inconclusive: "⚠️" } as const;

/** The capacity change in one phrase, for the headline. */
export function capacityPhrase(c: CapacityRun): string {
  const change = c.comparison.change;
  return `capacity ${change === null ? "unknown" : signed(change)} (limit ${signed(-c.comparison.max_drop)})`;
}

export function capacitySection(c: CapacityRun, ttftSloMs: number | undefined): string {
  const cmp = c.comparison;
  const { baseline, candidate } = c.arms;
  const bounds =
    cmp.change_low === null && cmp.change_high === null
      ? ""
      : ` (bounds ${cmp.change_low === null ? "?" : signed(cmp.change_low)} … ${cmp.change_high === null ? "?" : signed(cmp.change_high)})`;
  const server = (label: string) => label.replace(/^Server \([^)]*\): /, "");
  const offline = (label: string) => label.replace(/^Offline: /, "");
  const sync = (a: typeof baseline) =>
    a.capacity.synchronous ? `TTFT p50 ${num(a.capacity.synchronous.ttft_p50_ms)} ms` : "–";
  const serverName = baseline.labels.server.match(/^(Server \([^)]*\))/)?.[1] ?? "Server";
  const grid = (a: typeof baseline) => a.points.filter((p) => p.phase === "rate");
  const lines = [
    `**Capacity** ${ICON[cmp.verdict]} ${cmp.verdict} — ${cmp.reason}`,
    "",
    "| | baseline | candidate | change |",
    "|---|--:|--:|--:|",
    `| ${serverName} | ${server(baseline.labels.server)} | ${server(candidate.labels.server)} | ${cmp.change === null ? "–" : signed(cmp.change)}${bounds} |`,
    `| Offline (no latency bound) | ${offline(baseline.labels.offline)} | ${offline(candidate.labels.offline)} | |`,
    `| one request at a time | ${sync(baseline)} | ${sync(candidate)} | |`,
    "",
    `Capacity: the rate where SLO attainment falls to ${percent(c.settings.min_attainment)}, interpolated between the last passing and the first failing rate; resolution ${percent(c.settings.resolution)}. Baseline: ${baseline.capacity.method}. Candidate: ${candidate.capacity.method}.`,
    ...[baseline.stopped, candidate.stopped]
      .map((s, i) => (s ? `${i === 0 ? "Baseline" : "Candidate"} ${s}.` : ""))
      .filter(Boolean),
    c.gate_rate_per_s === null
      ? `⚠️ The paired trials did not run: ${c.stopped_by ?? "no rate for them"}.`
      : `The paired trials below ran at ${c.gate_rate_per_s} req/s: the baseline's capacity × gate-rate-fraction ${c.settings.gate_rate_fraction}.${c.stopped_by ? ` ⚠️ ${c.stopped_by}.` : ""}`,
  ];
  const chart = sweepCharts(
    [
      { name: "baseline", points: grid(baseline) },
      { name: "candidate", points: grid(candidate) },
    ],
    ttftSloMs,
  );
  return chart ? [...lines, "", chart].join("\n") : lines.join("\n");
}

export function capacityDetails(c: CapacityRun): string {
  const busy = c.idle_checks
    .filter((x) => x.busy)
    .map((x) => `- ${x.arm} ${x.point}: busy before the trial`);
  return details(
    "Capacity sweep points",
    [
      `Planned ${c.planned.trials} trials, ≈${Math.ceil(c.planned.seconds / 60)} min plus the burst phases. Rates: ${c.grid.join(", ")} req/s.`,
      "",
      "**Baseline**",
      "",
      pointsTable(c.arms.baseline.points),
      "",
      "**Candidate**",
      "",
      pointsTable(c.arms.candidate.points),
      ...(busy.length > 0 ? ["", ...busy] : []),
    ].join("\n"),
  );
}
