// Latency histograms: HdrHistogram (3 significant digits) over integer
// microseconds, an exact sum for the mean, and censoring. Censored values
// (timeouts) are recorded at the censoring value, which is at least every
// observed value, so they are the top ranks: a percentile whose rank falls
// among them is a lower bound, never a plain number.

import * as hdr from "hdr-histogram-js";
import { PERCENTILE_KEYS, PERCENTILE_VALUES } from "../common/percentiles.ts";
import { encodingProblem } from "./hdr-check.ts";

export interface LatencySummary {
  count: number;
  censored: number;
  mean: number | null;
  p50: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
  p999: number | null;
  max: number | null;
  /** Names of the fields above that are lower bounds ("≥ value"). */
  lower_bounds: string[];
}

/** A histogram as a shard writes it: the HDR counts (µs) and what they do not carry. */
export interface HistogramState {
  encoded: string;
  sum_ms: number;
  max_ms: number;
  censored: number;
  censor_ms: number;
}

export function newHdr(): hdr.Histogram {
  return hdr.build({
    bitBucketSize: 32,
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 3,
    autoResize: true,
    useWebAssembly: false,
  });
}

/** Decodes an encoding from a file, checked first (metrics/hdr-check.ts). */
function decodeChecked(encoded: string): hdr.Histogram {
  const problem = encodingProblem(encoded);
  if (problem) throw new Error(`a histogram cannot be read: ${problem}`);
  return hdr.decodeFromCompressedBase64(encoded);
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;

/**
 * The rank (1-based) of the p-th percentile of n values: ⌈p·n/100⌉. Computed
 * so that 99.9 % of 1,000 is rank 999, not 1,000 (99.9 / 100 × 1000 is
 * 999.0000000000001 in floating point).
 */
export function percentileRank(p: number, n: number): number {
  return Math.max(1, Math.ceil((p * n) / 100 - 1e-9));
}

export class LatencyHistogram {
  readonly hdr: hdr.Histogram;
  private sumMs = 0;
  private maxMs = 0;
  private censoredCount = 0;
  private censorMs = 0;

  constructor(counts: hdr.Histogram = newHdr()) {
    this.hdr = counts;
  }

  /**
   * A trial's histogram rebuilt from its report: the encoded counts, plus what
   * the encoding does not carry (the exact sum and max, and how many values
   * are censored at censorMs).
   */
  static fromReport(encoded: string, summary: LatencySummary, censorMs: number): LatencyHistogram {
    const h = new LatencyHistogram();
    h.hdr.add(decodeChecked(encoded));
    h.sumMs = (summary.mean ?? 0) * summary.count;
    h.maxMs = summary.max ?? 0;
    h.censoredCount = summary.censored;
    h.censorMs = summary.censored > 0 ? censorMs : 0;
    return h;
  }

  /** Everything this histogram holds, as JSON: a shard's part of a trial. */
  state(): HistogramState {
    return {
      encoded: this.encode(),
      sum_ms: this.sumMs,
      max_ms: this.maxMs,
      censored: this.censoredCount,
      censor_ms: this.censorMs,
    };
  }

  /** A histogram rebuilt from its state (exact: the counts, sum and max as they were). */
  static fromState(s: HistogramState): LatencyHistogram {
    const h = new LatencyHistogram();
    h.hdr.add(decodeChecked(s.encoded));
    h.sumMs = s.sum_ms;
    h.maxMs = s.max_ms;
    h.censoredCount = s.censored;
    h.censorMs = s.censor_ms;
    return h;
  }

  /** Merges another histogram into this one (pooling trials). */
  add(other: LatencyHistogram): void {
    this.hdr.add(other.hdr);
    this.sumMs += other.sumMs;
    this.maxMs = Math.max(this.maxMs, other.maxMs);
    this.censoredCount += other.censoredCount;
    this.censorMs = Math.max(this.censorMs, other.censorMs);
  }

  get count(): number {
    return this.hdr.totalCount;
  }

  record(ms: number): void {
    const v = Math.max(0, ms);
    this.hdr.recordValue(Math.round(v * 1000));
    this.sumMs += v;
    if (v > this.maxMs) this.maxMs = v;
  }

  /** A value known only to be ≥ ms (a timeout). */
  recordCensored(ms: number): void {
    this.record(ms);
    this.censoredCount++;
    this.censorMs = Math.max(this.censorMs, ms);
  }

  /** The value at a percentile (0–100) and whether it is a lower bound. */
  percentile(p: number): { value: number; lowerBound: boolean } | undefined {
    const n = this.count;
    if (n === 0) return undefined;
    const rank = percentileRank(p, n);
    if (rank > n - this.censoredCount) return { value: this.censorMs, lowerBound: true };
    // HDR reports a bucket's upper edge (≤ 0.1 % high); never above the largest value recorded.
    return {
      value: Math.min(this.hdr.getValueAtPercentile(p) / 1000, this.maxMs),
      lowerBound: false,
    };
  }

  /**
   * How finely this many samples resolve the percentile: half the distance
   * between the values one rank below and one rank above it. A shift smaller
   * than this is within the percentile's own sampling resolution.
   */
  rankResolution(p: number): number | undefined {
    const n = this.count;
    if (n < 3) return undefined;
    const rank = percentileRank(p, n);
    const at = (k: number) => this.percentile((100 * Math.min(n, Math.max(1, k))) / n);
    const below = at(rank - 1);
    const above = at(rank + 1);
    if (!below || !above || below.lowerBound || above.lowerBound) return undefined;
    return (above.value - below.value) / 2;
  }

  summary(): LatencySummary {
    const n = this.count;
    const out: LatencySummary = {
      count: n,
      censored: this.censoredCount,
      mean: n > 0 ? round3(this.sumMs / n) : null,
      p50: null,
      p90: null,
      p95: null,
      p99: null,
      p999: null,
      max: n > 0 ? round3(this.maxMs) : null,
      lower_bounds: [],
    };
    if (n === 0) return out;
    if (this.censoredCount > 0) out.lower_bounds.push("mean");
    for (const key of PERCENTILE_KEYS) {
      const v = this.percentile(PERCENTILE_VALUES[key]);
      if (!v) continue;
      out[key] = round3(v.value);
      if (v.lowerBound) out.lower_bounds.push(key);
    }
    if (this.censoredCount > 0) out.lower_bounds.push("max");
    return out;
  }

  /** HdrHistogram's standard compressed base64 form (values in µs), mergeable across runs. */
  encode(): string {
    return hdr.encodeIntoCompressedBase64(this.hdr);
  }
}
