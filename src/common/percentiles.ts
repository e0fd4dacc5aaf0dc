// The percentiles every latency summary has, by their key in reports.

export const PERCENTILE_KEYS = ["p50", "p90", "p95", "p99", "p999"] as const;
export type PercentileKey = (typeof PERCENTILE_KEYS)[number];
export const PERCENTILE_VALUES: Record<PercentileKey, number> = {
  p50: 50,
  p90: 90,
  p95: 95,
  p99: 99,
  p999: 99.9,
};

/** p95, p99.9: a percentile key as people write it. */
export const percentileLabel = (p: PercentileKey): string => (p === "p999" ? "p99.9" : p);

/** The latency metrics the results pool over all of an arm's trials (descriptive only). */
export const POOLED_METRICS = ["ttft_ms", "itl_ms", "tpot_ms", "e2el_ms"] as const;
