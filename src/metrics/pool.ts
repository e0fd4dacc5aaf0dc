// Descriptive percentiles pooled over all trials of an arm, by merging the
// trials' histograms. Shown to humans only: pooling requests across trials
// ignores the trial-to-trial noise, so no verdict uses it. Censored values
// stay censored: a pooled percentile among them is a lower bound too.

import { LatencyHistogram, type LatencySummary } from "./histogram.ts";

export interface TrialHistogram {
  /** HdrHistogram compressed base64, values in µs. */
  encoded: string;
  summary: LatencySummary;
  /** The value censored requests were recorded at (the trial's timeout). */
  censorMs: number;
}

/** The trials' histograms merged into one (censored values stay censored). */
export function poolHistogram(trials: readonly TrialHistogram[]): LatencyHistogram {
  const total = new LatencyHistogram();
  for (const t of trials) total.add(LatencyHistogram.fromReport(t.encoded, t.summary, t.censorMs));
  return total;
}

export function poolHistograms(trials: TrialHistogram[]): LatencySummary {
  return poolHistogram(trials).summary();
}
