// Per request: TTFT against the prompt's length, from the requests file (a
// bounded sample of it), by arm; a request without a first token (most
// failures) has no TTFT and is counted, not drawn.

import { compact } from "../common/format.ts";
import { percentileRank } from "../metrics/histogram.ts";
import type { RequestPoint, RequestSample } from "../requests/sample.ts";
import { figure, type Html, table } from "./html.ts";
import { type ChartSpec, chartSvg } from "./svg.ts";

type Drawn = RequestPoint & { promptTokens: number; ttftMs: number };

const drawable = (p: RequestPoint): p is Drawn => p.ttftMs !== null && p.promptTokens !== null;

function scatterSpec(points: readonly Drawn[], colors: Record<string, string>): ChartSpec {
  return {
    width: 520,
    height: 260,
    data: { values: points },
    // No per-point aria-label: thousands of points, and the table beside says what they are.
    mark: { type: "point", filled: true, size: 14, opacity: 0.45, aria: false },
    encoding: {
      x: {
        field: "promptTokens",
        type: "quantitative",
        title: "prompt tokens",
        scale: { zero: false, nice: true },
        axis: { format: "d" },
      },
      y: { field: "ttftMs", type: "quantitative", title: "TTFT (ms)" },
      color: {
        field: "series",
        type: "nominal",
        scale: { domain: Object.keys(colors), range: Object.values(colors) },
        legend: { title: null },
      },
    },
  };
}

/** The sample's value at a percentile, at the rank the histograms use. */
function at(sorted: readonly number[], p: number): number | null {
  return sorted.length === 0 ? null : (sorted[percentileRank(p, sorted.length) - 1] ?? null);
}

function sampleRow(sample: RequestSample, series: string, read: number): string[] {
  const mine = sample.points.filter((p) => p.series === series);
  const drawn = mine.filter(drawable);
  const ttft = drawn.map((p) => p.ttftMs).sort((a, b) => a - b);
  const tokens = drawn.map((p) => p.promptTokens);
  const span = tokens.length > 0 ? `${Math.min(...tokens)}–${Math.max(...tokens)}` : "—";
  return [
    series,
    String(read),
    String(drawn.length),
    String(mine.length - drawn.length),
    span,
    compact(at(ttft, 50)),
    compact(at(ttft, 95)),
  ];
}

/** The scatter, and what it was drawn from (a sample of how many). */
export async function scatterFigure(
  sample: RequestSample,
  colors: Record<string, string>,
): Promise<Html> {
  const svg = await chartSvg(scatterSpec(sample.points.filter(drawable), colors));
  const numbers = table([
    ["", "read", "drawn", "not drawn", "prompt tokens", "TTFT p50 ms", "TTFT p95 ms"],
    ...Object.entries(sample.read).map(([series, n]) => sampleRow(sample, series, n)),
  ]);
  const caption = `Per request: TTFT (from the scheduled send) against the prompt's tokens (the server's count where it gave one), a uniform sample of at most ${sample.perSeries} requests per arm from ${sample.source}; the percentiles beside are the sample's; "not drawn": no first token (most failures) or no prompt count.`;
  return figure("scatter", caption, svg, numbers);
}
