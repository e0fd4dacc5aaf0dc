// Time inside one pair: per bucket, each arm's p95 TTFT, the requests offered
// and completed, the failures, the server's queue when it was scraped and the
// replica count when it was read — so a stall, a warm-up tail, a crash, a
// surge's recovery or a scaler's reaction shows.

import { compact } from "../common/format.ts";
import type { TimelineBucket, TrialTimeline } from "../metrics/timeline.ts";
import { figure, type Html, table } from "./html.ts";
import { type ChartSpec, chartSvg } from "./svg.ts";

/** A series' timeline: an arm's, or the one endpoint's. */
export interface SeriesTimeline {
  name: string;
  color: string;
  timeline: TrialTimeline;
}

/** A moment to mark on the time axis (a surge's start and end). */
export interface TimeMark {
  t_s: number;
  label: string;
}

/** A bucket's failures of one class (named as the bucket's keys name it). */
const failedOf = (b: TimelineBucket, outcome: string): number =>
  new Map(Object.entries(b.failed)).get(outcome) ?? 0;

const failures = (b: TimelineBucket) => Object.values(b.failed).reduce((s, n) => s + (n ?? 0), 0);

function rows(timelines: readonly SeriesTimeline[]) {
  return timelines.flatMap(({ name, timeline }) =>
    timeline.buckets.map((b) => ({
      series: name,
      t: b.t_s,
      ttft: b.ttft_p95_ms,
      itl: b.itl_p95_ms,
      offered: b.offered,
      completed: b.completed,
      failed: failures(b),
      queue: b.waiting ?? null,
      replicas: b.replicas ?? null,
    })),
  );
}

interface Panel {
  field: string;
  title: string;
  mark?: object;
}

function panel(p: Panel, timelines: readonly SeriesTimeline[], marks: TimeMark[]) {
  const scale = { domain: timelines.map((t) => t.name), range: timelines.map((t) => t.color) };
  return {
    width: 560,
    height: 110,
    layer: [
      {
        // A bucket is an interval: its value holds from its start to the next.
        mark: { type: "line", interpolate: "step-after", ...p.mark, strokeWidth: 1.8 },
        transform: [{ filter: `datum.${p.field} !== null` }],
        encoding: {
          x: { field: "t", type: "quantitative", title: "seconds from the trial's start" },
          y: { field: p.field, type: "quantitative", title: p.title },
          color: { field: "series", type: "nominal", scale, legend: { title: null } },
        },
      },
      ...(marks.length > 0
        ? [
            {
              data: { values: marks },
              mark: { type: "rule", strokeDash: [4, 3], color: "#8250df" },
              encoding: { x: { field: "t_s", type: "quantitative" } },
            },
          ]
        : []),
    ],
  };
}

function timelineSpec(timelines: readonly SeriesTimeline[], marks: TimeMark[]): ChartSpec {
  const data = rows(timelines);
  const has = (f: "queue" | "failed" | "itl" | "replicas") => data.some((d) => (d[f] ?? 0) > 0);
  const panels: Panel[] = [
    { field: "ttft", title: "p95 TTFT (ms)" },
    ...(has("itl") ? [{ field: "itl", title: "p95 ITL (ms)" }] : []),
    { field: "offered", title: "offered" },
    { field: "completed", title: "completed" },
    ...(has("failed")
      ? [{ field: "failed", title: "failed", mark: { type: "bar", opacity: 0.7 } }]
      : []),
    ...(has("queue") ? [{ field: "queue", title: "server queue" }] : []),
    ...(has("replicas") ? [{ field: "replicas", title: "replicas" }] : []),
  ];
  return {
    data: { values: data },
    vconcat: panels.map((p) => panel(p, timelines, marks)),
    // One time axis for every panel: a panel with no value early (no ok request yet) starts at 0 too.
    resolve: { scale: { x: "shared" } },
  };
}

function totals(timelines: readonly SeriesTimeline[]): Html {
  const entries = timelines.map((t) => [t.name, t.timeline] as const);
  const classes = [
    ...new Set(entries.flatMap(([, t]) => t.buckets.flatMap((b) => Object.keys(b.failed)))),
  ];
  const sum = (t: TrialTimeline, f: (b: TimelineBucket) => number) =>
    t.buckets.reduce((s, b) => s + f(b), 0);
  const worst = (t: TrialTimeline) =>
    Math.max(0, ...t.buckets.map((b) => b.ttft_p95_ms ?? 0).filter(Number.isFinite));
  return table([
    ["", "offered", "completed", ...classes, "worst p95 TTFT (ms)"],
    ...entries.map(([name, t]) => [
      name,
      String(sum(t, (b) => b.offered)),
      String(sum(t, (b) => b.completed)),
      ...classes.map((c) => String(sum(t, (b) => failedOf(b, c)))),
      compact(worst(t)),
    ]),
  ]);
}

/** One pair's timeline: both arms on shared time axes, the marks as dashed lines. */
export async function timelineFigure(
  id: string,
  caption: string,
  timelines: readonly SeriesTimeline[],
  marks: TimeMark[] = [],
): Promise<Html> {
  const svg = await chartSvg(timelineSpec(timelines, marks));
  return figure(id, caption, svg, totals(timelines));
}
