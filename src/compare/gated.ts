// Which metrics a gate compares, and each one's value in one trial.

import { type PercentileKey, percentileLabel } from "../common/percentiles.ts";
import type { TrialReport } from "../trial/measure.ts";
import type { MetricId, MetricSpec, PairValues } from "./metric.ts";
import type { TrialEntry } from "./trials.ts";

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

/** One trial's reading of a gated metric: its value, whether it is a bound, and the client's part in it. */
export interface MetricReading {
  value: number;
  /** The percentile fell among timed-out requests: the value is a lower bound. */
  censored: boolean;
  /** How much the client's own late sends may have made the value worse (log scale, ≥ 0). */
  contamination: number;
}

const logEffect = (relative: number | null) =>
  relative !== null && relative > 0 ? Math.log1p(relative) : 0;

/** One trial's reading of a gated metric; undefined when the trial has no sample of it. */
export function metricReading(
  id: MetricId,
  r: TrialReport,
  percentile: PercentileKey,
): MetricReading | undefined {
  switch (id) {
    case "goodput": {
      // Half a request per window keeps a ratio finite when an arm has no good request.
      const floor = 0.5 / Math.max(r.window_s, 1e-9);
      const good = r.goodput.good;
      const onTime = r.goodput.good_on_time ?? good;
      return {
        value: Math.max(r.goodput.requests_per_s, floor),
        censored: false,
        contamination: good > 0 && onTime > good ? Math.log(onTime / good) : 0,
      };
    }
    case "ttft":
    case "itl":
    case "tpot":
    case "e2el": {
      const s = r.metrics[`${id}_ms`];
      const value = s[percentile];
      if (value === null || value === undefined) return undefined;
      const skew = r.validity.skew_effect;
      return {
        value,
        censored: s.lower_bounds.includes(percentile),
        // Late sends move what is counted from the scheduled time: TTFT and E2EL.
        contamination:
          id === "ttft" ? logEffect(skew.ttft) : id === "e2el" ? logEffect(skew.e2el) : 0,
      };
    }
  }
}

/** The complete pairs whose arms both read the metric above 0, in pair order, with the readings. */
function pairReadings(id: MetricId, trials: readonly TrialEntry[], percentile: PercentileKey) {
  const pairs = [...new Set(trials.map((t) => t.pair))].sort((a, b) => a - b);
  return pairs.flatMap((pair) => {
    const reading = (arm: TrialEntry["arm"]) => {
      const t = trials.find((x) => x.pair === pair && x.arm === arm);
      return t ? metricReading(id, t.report, percentile) : undefined;
    };
    const b = reading("baseline");
    const c = reading("candidate");
    return b && c && b.value > 0 && c.value > 0 ? [{ pair, b, c }] : [];
  });
}

/** The pairs (0-based numbers) a metric's comparison takes, in its order. */
export const comparedPairs = (
  id: MetricId,
  trials: readonly TrialEntry[],
  percentile: PercentileKey,
): number[] => pairReadings(id, trials, percentile).map((r) => r.pair);

/** Each complete pair's readings of a metric, in pair order. */
export function pairValues(
  spec: MetricSpec,
  trials: readonly TrialEntry[],
  percentile: PercentileKey,
): PairValues[] {
  return pairReadings(spec.id, trials, percentile).map(({ b, c }) => ({
    baseline: b.value,
    candidate: c.value,
    baselineCensored: b.censored,
    candidateCensored: c.censored,
    baselineContamination: b.contamination,
    candidateContamination: c.contamination,
  }));
}
