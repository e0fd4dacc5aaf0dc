// Latency distributions: each arm's requests pooled over its trials (the HDR
// histograms), as percentile curves on HdrHistogram's log scale — 90 %, 99 %,
// 99.9 % equally spaced, so the tail is as visible as the middle. Descriptive
// only: the verdict compares pairs, not pooled requests.

import { compact } from "../common/format.ts";
import { PERCENTILE_KEYS, percentileLabel } from "../common/percentiles.ts";
import type { LatencyHistogram, LatencySummary } from "../metrics/histogram.ts";
import { poolHistogram } from "../metrics/pool.ts";
import type { TrialReport } from "../trial/measure.ts";
import { figure, type Html, table } from "./html.ts";
import { chartSvg } from "./svg.ts";

const CURVE_METRICS = [
  { key: "ttft", label: "TTFT", histogram: "ttft_us", summary: "ttft_ms" },
  { key: "itl", label: "ITL", histogram: "itl_us", summary: "itl_ms" },
  { key: "e2el", label: "E2EL", histogram: "e2el_us", summary: "e2el_ms" },
] as const;
type CurveMetric = (typeof CURVE_METRICS)[number];

/** Percentiles from 0 to 1 − 1/n, denser toward the tail (x = 1 / (1 − p)). */
export function curvePercentiles(count: number): number[] {
  const top = Math.log10(Math.max(1, count));
  const steps = 60;
  return Array.from({ length: steps + 1 }, (_, k) => 100 * (1 - 10 ** (-(top * k) / steps)));
}

interface CurvePoint {
  series: string;
  x: number;
  p: number;
  ms: number;
}

/** The curve up to where the timeouts begin: above it a value is only a lower bound. */
function curve(series: string, h: LatencyHistogram): CurvePoint[] {
  return curvePercentiles(h.count).flatMap((p) => {
    const v = h.percentile(p);
    return v && !v.lowerBound ? [{ series, x: 1 / (1 - p / 100), p, ms: v.value }] : [];
  });
}

/** One series' histogram of a metric, pooled over its trials (null: nothing recorded). */
function pooled(reports: readonly TrialReport[], m: CurveMetric): LatencyHistogram | null {
  const h = poolHistogram(
    reports.map((r) => ({
      encoded: r.histograms[m.histogram],
      summary: r.metrics[m.summary],
      censorMs: r.workload.timeout_s * 1000,
    })),
  );
  return h.count > 0 ? h : null;
}

/** A tick at x = 1 / (1 − p) labelled with its percentile: 10 → 90%, 1000 → 99.9%. */
const LABELS = "format(1 - 1 / datum.value, '.6~%')";

function curveSpec(m: CurveMetric, points: CurvePoint[], colors: Record<string, string>) {
  const top = Math.max(10, ...points.map((p) => p.x));
  const ticks = Array.from({ length: Math.ceil(Math.log10(top)) + 1 }, (_, k) => 10 ** k);
  return {
    width: 460,
    height: 220,
    data: { values: points },
    mark: { type: "line", interpolate: "step-after", strokeWidth: 2 },
    encoding: {
      x: {
        field: "x",
        type: "quantitative",
        scale: { type: "log", domain: [1, top] },
        axis: { values: ticks, labelExpr: LABELS, title: "percentile" },
      },
      y: { field: "ms", type: "quantitative", title: `${m.label} (ms)` },
      color: {
        field: "series",
        type: "nominal",
        scale: { domain: Object.keys(colors), range: Object.values(colors) },
        legend: { title: null },
      },
    },
  };
}

function summaryRows(series: string, s: LatencySummary): string[] {
  const at = (k: (typeof PERCENTILE_KEYS)[number]) =>
    s[k] === null ? "—" : `${s.lower_bounds.includes(k) ? "≥ " : ""}${compact(s[k])}`;
  return [series, String(s.count), ...PERCENTILE_KEYS.map(at)];
}

/** Curves of TTFT, ITL and E2EL, each series (an arm, or the one endpoint) overlaid. */
export async function latencyFigures(
  series: readonly { name: string; color: string; reports: readonly TrialReport[] }[],
): Promise<Html[]> {
  const figures: Html[] = [];
  for (const m of CURVE_METRICS) {
    const pools = series.flatMap((s) => {
      const h = pooled(s.reports, m);
      return h ? [{ ...s, h }] : [];
    });
    if (pools.length === 0) continue;
    const colors = Object.fromEntries(pools.map((p) => [p.name, p.color]));
    const svg = await chartSvg(
      curveSpec(
        m,
        pools.flatMap((p) => curve(p.name, p.h)),
        colors,
      ),
    );
    const numbers = table(
      [
        ["", "requests", ...PERCENTILE_KEYS.map((k) => `${percentileLabel(k)} ms`)],
        ...pools.map((p) => summaryRows(p.name, p.h.summary())),
      ],
      `${m.label}, pooled over the trials`,
    );
    const caption = `${m.label}: every request of each arm, pooled over its trials, on a log percentile scale (TTFT and E2EL count from the scheduled send); a curve stops where the timeouts begin, and "≥" marks a percentile among them. Descriptive only: the verdict compares pairs.`;
    figures.push(figure(`latency-${m.key}`, caption, svg, numbers));
  }
  return figures;
}
