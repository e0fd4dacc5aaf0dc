// Capacity curves: goodput and p95 TTFT against the offered rate, per arm (or
// the one endpoint of a sweep), each arm's knee — its capacity — marked.

import type { ArmSweepReport } from "../capacity/run.ts";
import { compact } from "../common/format.ts";
import { figure, type Html, table } from "./html.ts";
import { chartSvg } from "./svg.ts";

export interface CapacitySeries {
  name: string;
  color: string;
  sweep: ArmSweepReport;
}

function points(series: readonly CapacitySeries[]) {
  return series.flatMap((s) =>
    s.sweep.points.flatMap((p) =>
      p.rate_per_s === null
        ? []
        : [
            {
              series: s.name,
              rate: p.rate_per_s,
              goodput: p.report.goodput.requests_per_s,
              // A p95 among the timeouts is only a lower bound: not drawn as a value.
              ttft: p.report.metrics.ttft_ms.lower_bounds.includes("p95")
                ? null
                : p.report.metrics.ttft_ms.p95,
              judgement: p.judgement,
            },
          ],
    ),
  );
}

const knees = (series: readonly CapacitySeries[]) =>
  series.flatMap((s) =>
    s.sweep.capacity.capacity_per_s === null
      ? []
      : [{ series: s.name, rate: s.sweep.capacity.capacity_per_s }],
  );

function curveSpec(series: readonly CapacitySeries[], field: "goodput" | "ttft", title: string) {
  const color = {
    field: "series",
    type: "nominal",
    scale: { domain: series.map((s) => s.name), range: series.map((s) => s.color) },
    legend: { title: null },
  };
  const x = { field: "rate", type: "quantitative", title: "offered rate (req/s)" };
  return {
    width: 270,
    height: 200,
    layer: [
      {
        data: { values: points(series) },
        mark: { type: "line", point: { filled: true, size: 40 } },
        transform: [{ filter: `datum.${field} !== null` }],
        encoding: { x, y: { field, type: "quantitative", title }, color, order: { field: "rate" } },
      },
      {
        data: { values: knees(series) },
        mark: { type: "rule", strokeDash: [5, 3], strokeWidth: 1.5 },
        encoding: { x, color },
      },
    ],
  };
}

/** The capacity: "≥ x" when no rate above it failed, "none" when no rate met the SLO. */
function capacityCell(c: ArmSweepReport["capacity"]): string {
  if (c.capacity_per_s === null) return "none met the SLO";
  return `${c.fail_per_s === null ? "≥ " : ""}${compact(c.capacity_per_s)}`;
}

function capacityNumbers(series: readonly CapacitySeries[]): Html {
  return table([
    ["", "offered req/s", "goodput req/s", "p95 TTFT ms", "judged"],
    ...series.flatMap((s) =>
      s.sweep.points.map((p) => [
        s.name,
        p.rate_per_s === null ? p.phase : compact(p.rate_per_s),
        compact(p.report.goodput.requests_per_s),
        `${p.report.metrics.ttft_ms.lower_bounds.includes("p95") ? "≥ " : ""}${compact(p.report.metrics.ttft_ms.p95)}`,
        p.judgement,
      ]),
    ),
    ...series.map((s) => [
      `${s.name} capacity`,
      capacityCell(s.sweep.capacity),
      "",
      "",
      s.sweep.capacity.method,
    ]),
  ]);
}

/** Goodput and p95 TTFT against the offered rate, side by side; the knees dashed. */
export async function capacityFigure(series: readonly CapacitySeries[]): Promise<Html> {
  const svg = await chartSvg({
    hconcat: [
      curveSpec(series, "goodput", "goodput (req/s)"),
      curveSpec(series, "ttft", "p95 TTFT (ms)"),
    ],
  });
  const caption =
    "Capacity: each open-loop rate's goodput and p95 TTFT; the dashed line is the capacity (the rate where attainment reaches its minimum).";
  return figure("capacity", caption, svg, capacityNumbers(series));
}
