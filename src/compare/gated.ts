// Which metrics a gate compares, and each one's value in one trial.

import { type PercentileKey, percentileLabel } from "../common/percentiles.ts";
import type { TrialReport } from "../trial/measure.ts";
import type { MetricId, MetricSpec } from "./decide.ts";

/** Allowed change per metric: goodput, TTFT and ITL always; TPOT and E2EL when set. */
export type Tolerances = Record<"goodput" | "ttft" | "itl", number> &
  Partial<Record<"tpot" | "e2el", number>>;

const LATENCIES = { ttft: "TTFT", itl: "ITL", tpot: "TPOT", e2el: "E2EL" } as const;

export function metricSpecs(percentile: PercentileKey, tolerances: Tolerances): MetricSpec[] {
  const p = percentileLabel(percentile);
  const specs: MetricSpec[] = [
    {
      id: "goodput",
      label: "goodput",
      unit: "req/s",
      higherIsWorse: false,
      tolerance: tolerances.goodput,
    },
  ];
  for (const id of ["ttft", "itl", "tpot", "e2el"] as const) {
    const tolerance = tolerances[id];
    if (tolerance !== undefined)
      specs.push({
        id,
        label: `${p} ${LATENCIES[id]}`,
        unit: "ms",
        higherIsWorse: true,
        tolerance,
      });
  }
  return specs;
}

/** One trial's value of a gated metric; undefined when the trial has no sample of it. */
export function metricValue(
  id: MetricId,
  r: TrialReport,
  percentile: PercentileKey,
): number | undefined {
  switch (id) {
    case "goodput":
      // Half a request per window keeps a ratio finite when an arm has no good request.
      return Math.max(r.goodput.requests_per_s, 0.5 / Math.max(r.window_s, 1e-9));
    case "ttft":
    case "itl":
    case "tpot":
    case "e2el":
      return r.metrics[`${id}_ms`][percentile] ?? undefined;
  }
}
