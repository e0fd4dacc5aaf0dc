// Descriptive percentiles pooled over all trials of an arm, by merging the
// trials' encoded HDR histograms. Shown to humans only: pooling requests
// across trials ignores the trial-to-trial noise, so no verdict uses it.

import * as hdr from "hdr-histogram-js";
import { newHdr } from "./histogram.ts";

export interface PooledPercentiles {
  count: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

export function poolHistograms(encoded: string[]): PooledPercentiles {
  const total = newHdr();
  for (const e of encoded) total.add(hdr.decodeFromCompressedBase64(e));
  const at = (p: number) =>
    total.totalCount > 0 ? Math.round(total.getValueAtPercentile(p)) / 1000 : null;
  return { count: total.totalCount, p50: at(50), p95: at(95), p99: at(99) };
}
