// A sweep in markdown: the table of points, and charts of p95 TTFT and of
// goodput against the offered rate (Mermaid xychart, one line per arm). The
// `sweep` command prints it; the capacity gate's comment shows both arms.

import type { SweepPoint } from "../capacity/points.ts";
import type { SweepReport } from "../capacity/run.ts";
import { compact as num, percent } from "../common/format.ts";
import { OUTCOMES } from "../common/outcomes.ts";
import type { LatencySummary } from "../metrics/histogram.ts";
import { COLOR_NAMES, chartColors } from "./blocks.ts";

const lat = (s: LatencySummary, key: "p50" | "p95") =>
  s[key] === null ? "–" : `${s.lower_bounds.includes(key) ? "≥" : ""}${num(s[key])}`;

/** What a trial actually offered: its scheduled requests over its window (its rate, to rounding). */
const offeredPerS = (p: SweepPoint): number =>
  p.report.window_s > 0 ? p.report.scheduled / p.report.window_s : 0;

const PHASE_ORDER = { synchronous: 0, offline: 1, rate: 2, refine: 2 } as const;

/** Synchronous first, offline, then the open-loop rates ascending. */
export function orderedPoints(points: readonly SweepPoint[]): SweepPoint[] {
  return [...points].sort(
    (a, b) =>
      PHASE_ORDER[a.phase] - PHASE_ORDER[b.phase] || (a.rate_per_s ?? 0) - (b.rate_per_s ?? 0),
  );
}

function failures(p: SweepPoint): string {
  const parts = OUTCOMES.filter((o) => o !== "ok" && p.report.outcomes[o] > 0).map(
    (o) => `${o} ${p.report.outcomes[o]}`,
  );
  return parts.length > 0 ? parts.join(", ") : "–";
}

function result(p: SweepPoint): string {
  if (p.judgement === "invalid") return `invalid: ${p.report.validity.reasons.join("; ")}`;
  return p.judgement === "measured" ? "–" : p.judgement;
}

export function pointsTable(points: readonly SweepPoint[]): string {
  const rows = orderedPoints(points).map((p) => {
    const r = p.report;
    // One at a time, every request waits for the one before: its latency counts from its send.
    const m = r.metrics;
    const ttft = p.phase === "synchronous" ? m.ttft_service_ms : m.ttft_ms;
    const mark = p.phase === "synchronous" ? "†" : "";
    const setting = p.rate_per_s === null ? "–" : String(p.rate_per_s);
    const offered = p.rate_per_s === null ? "–" : num(offeredPerS(p));
    const attainment = p.rate_per_s === null ? "–" : percent(r.goodput.attainment);
    const goodput = p.rate_per_s === null ? "–" : num(r.goodput.requests_per_s);
    return `| ${p.phase} | ${setting} | ${offered} | ${num(r.throughput.requests_per_s)} | ${attainment} | ${goodput} | ${lat(ttft, "p50")}${mark} | ${lat(ttft, "p95")}${mark} | ${lat(m.itl_ms, "p95")} | ${lat(m.tpot_ms, "p95")} | ${failures(p)} | ${result(p)} |`;
  });
  return [
    "| phase | rate | offered req/s | ok req/s | SLO attainment | goodput req/s | TTFT p50 ms | TTFT p95 ms | ITL p95 ms | TPOT p95 ms | failures | result |",
    "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|",
    ...rows,
    "",
    "Offered: scheduled requests ÷ window. † synchronous: one request at a time, latency from its actual send (each waits for the one before).",
  ].join("\n");
}

export interface ChartSeries {
  name: string;
  /** The points to draw, by offered rate; one per category. */
  points: readonly SweepPoint[];
}

function chart(title: string, yLabel: string, categories: number[], lines: number[][]): string {
  return [
    "```mermaid",
    chartColors(lines.length),
    "xychart-beta",
    `  title "${title}"`,
    `  x-axis "offered rate (req/s)" [${categories.map((c) => `"${c}"`).join(", ")}]`,
    `  y-axis "${yLabel}"`,
    ...lines.map((l) => `  line [${l.map((v) => Number(v.toPrecision(4))).join(", ")}]`),
    "```",
  ].join("\n");
}

/**
 * p95 TTFT and goodput against the offered rate. Every series must have a
 * point at each of the first categories (a line ends where its arm
 * stopped). TTFT beyond 3× the SLO is drawn at 3× so the knee stays visible.
 */
export function sweepCharts(series: readonly ChartSeries[], ttftSloMs: number | undefined): string {
  const rates = [
    ...new Set(series.flatMap((s) => s.points.map((p) => p.rate_per_s as number))),
  ].sort((a, b) => a - b);
  if (rates.length < 2) return "";
  const cap = ttftSloMs === undefined ? Number.POSITIVE_INFINITY : 3 * ttftSloMs;
  const valuesOf = (s: ChartSeries, pick: (p: SweepPoint) => number) =>
    rates
      .map((r) => s.points.find((p) => p.rate_per_s === r))
      .filter((p): p is SweepPoint => p !== undefined)
      .map(pick);
  const ttft = series.map((s) =>
    valuesOf(s, (p) => Math.min(cap, p.report.metrics.ttft_ms.p95 ?? cap)),
  );
  const goodput = series.map((s) => valuesOf(s, (p) => p.report.goodput.requests_per_s));
  const sloLine = ttftSloMs === undefined ? [] : [rates.map(() => ttftSloMs)];
  // The same seed gives every arm the same schedule at a rate: one offered line.
  const offeredLine = [valuesOf(series[0] as ChartSeries, offeredPerS)];
  const legend = (extra: string) =>
    `${series.map((s, i) => `${COLOR_NAMES[i]}: ${s.name}`).join(", ")}, ${COLOR_NAMES[series.length]}: ${extra}`;
  const capped = Number.isFinite(cap)
    ? `; values above 3× the SLO (${num(cap)} ms) are drawn at 3×`
    : "";
  return [
    chart("p95 TTFT (ms) against the rate", "p95 TTFT (ms)", rates, [...ttft, ...sloLine]),
    "",
    `${legend(ttftSloMs === undefined ? "(no TTFT SLO)" : `the TTFT SLO (${num(ttftSloMs)} ms)`)}${capped}.`,
    "",
    chart("goodput (req/s) against the rate", "goodput (req/s)", rates, [
      ...goodput,
      ...offeredLine,
    ]),
    "",
    `${legend("the offered load (scheduled ÷ window)")}: goodput leaves it at the knee.`,
  ].join("\n");
}

/** The `sweep` command's markdown: labels, capacity, the chart and every point. */
export function renderSweepMarkdown(r: SweepReport, ttftSloMs: number | undefined): string {
  const openLoop = r.points.filter((p) => p.rate_per_s !== null && p.judgement !== "invalid");
  const lines = [
    `## Capacity sweep of ${r.target.model} at ${r.target.url}`,
    "",
    `- **${r.labels.server}**`,
    `- **${r.labels.offline}**`,
    `- capacity: ${r.capacity.method}; resolution ${percent(r.settings.resolution)}, min-attainment ${percent(r.settings.min_attainment)}`,
  ];
  const sync = r.capacity.synchronous;
  if (sync) {
    lines.push(
      `- one request at a time: ${num(sync.requests_per_s)} req/s, TTFT p50 ${num(sync.ttft_p50_ms)} ms, E2EL p50 ${num(sync.e2el_p50_ms)} ms`,
    );
  }
  if (r.capacity.non_monotone) {
    lines.push(
      "- ⚠️ a rate below the capacity failed its SLO: the curve is noisy near the knee (longer trials or a lower min-attainment steady it)",
    );
  }
  if (r.stopped) lines.push(`- ${r.stopped}`);
  if (r.stopped_by) lines.push(`- ⚠️ ${r.stopped_by}: the sweep is incomplete`);
  lines.push("", sweepCharts([{ name: r.target.model, points: openLoop }], ttftSloMs), "");
  lines.push(pointsTable(r.points), "");
  return lines.join("\n");
}
