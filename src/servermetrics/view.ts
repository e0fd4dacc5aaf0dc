// A trial's scrapes reduced to the server's view of it: gauges over the
// measurement window (mean, p95, max of the scrapes in it), counters and
// histograms as the change from the scrape before the trial to the one after
// it drained. The histograms' percentiles are interpolated within the runtime's
// buckets, as Prometheus' histogram_quantile does; their means (Δsum ÷ Δcount)
// are exact.

import { quantileSorted } from "simple-statistics";
import { at } from "../common/arrays.ts";
import type { Runtime } from "../common/runtimes.ts";
import type { CounterSeries, GaugeSeries, HistogramSeries } from "./runtimes.ts";
import type { Buckets, Snapshot } from "./snapshot.ts";

export interface GaugeStats {
  mean: number;
  p95: number;
  max: number;
}

export interface HistogramStats {
  /** Requests (or tokens, for ITL) the server observed over the trial, warm-up included. */
  count: number;
  mean_ms: number | null;
  p50_ms: number | null;
  p95_ms: number | null;
  /**
   * Percentiles known only as a bound: in the +Inf bucket, at least the highest
   * finite bound (lower_bounds); in the lowest bucket, at most its bound
   * (upper_bounds) — interpolating between 0 and it would invent a value.
   */
  lower_bounds: string[];
  upper_bounds: string[];
}

export interface ServerView {
  url: string;
  /** null: the names matched no known runtime (the names are still kept). */
  runtime: Runtime | null;
  /** Scrapes that answered, and those in the measurement window. */
  scrapes: number;
  window_scrapes: number;
  failed_scrapes: number;
  gauges: Partial<Record<GaugeSeries, GaugeStats>>;
  counters: Partial<Record<CounterSeries, number>>;
  /** Prefix-cache hits ÷ queries (prompt tokens) over the trial; null: not exposed or no queries. */
  prefix_cache_hit_rate: number | null;
  /** Speculative decoding over the trial; null: not exposed or no drafts (absent in older files). */
  spec_decode?: SpecDecodeStats | null;
  histograms: Partial<Record<HistogramSeries, HistogramStats>>;
  /** Every metric name the server exposed (from the last scrape). */
  names: string[];
  /** What went wrong or needs saying: failed scrapes, counter resets. */
  notes: string[];
}

export interface SpecDecodeStats {
  drafts: number;
  /** Accepted ÷ proposed draft tokens. */
  acceptance_rate: number;
  /** Tokens a decode step yields: 1 + accepted ÷ drafts. */
  tokens_per_step: number;
}

/** Acceptance and tokens per step from the spec-decode counters' deltas. */
function specDecode(counters: Partial<Record<CounterSeries, number>>): SpecDecodeStats | null {
  const drafts = counters.spec_decode_drafts;
  const proposed = counters.spec_decode_draft_tokens;
  const accepted = counters.spec_decode_accepted_tokens;
  if (!drafts || !proposed || accepted === undefined) return null;
  return {
    drafts,
    acceptance_rate: round(accepted / proposed, 4),
    tokens_per_step: round(1 + accepted / drafts, 3),
  };
}

export interface ViewInput {
  url: string;
  runtime: Runtime | null;
  before: Snapshot;
  after: Snapshot;
  /** The scrapes during the trial; those inside [windowStartMs, windowEndMs] make the gauges. */
  during: Snapshot[];
  windowStartMs: number;
  windowEndMs: number;
  failedScrapes: number;
  names: string[];
  notes: string[];
}

const round = (v: number, digits = 3) => Math.round(v * 10 ** digits) / 10 ** digits;

export function serverView(input: ViewInput): ServerView {
  const notes = [...input.notes];
  const inWindow = input.during.filter(
    (s) => s.atMs >= input.windowStartMs && s.atMs <= input.windowEndMs,
  );
  const gauges: ServerView["gauges"] = {};
  for (const series of new Set(inWindow.flatMap((s) => Object.keys(s.gauges) as GaugeSeries[]))) {
    const values = inWindow.flatMap((s) => s.gauges[series] ?? []).sort((a, b) => a - b);
    gauges[series] = {
      mean: round(values.reduce((a, v) => a + v, 0) / values.length),
      p95: round(quantileSorted(values, 0.95)),
      max: round(values.at(-1) as number),
    };
  }
  const resets = new Set<string>();
  const counters: ServerView["counters"] = {};
  for (const series of Object.keys(input.after.counters) as CounterSeries[]) {
    const a = input.after.counters[series];
    const b = input.before.counters[series];
    if (a === undefined || b === undefined) continue;
    // A counter that went down was reset (the server restarted): what it counts since.
    if (a < b) resets.add(series);
    counters[series] = round(a < b ? a : a - b);
  }
  const histograms: ServerView["histograms"] = {};
  for (const series of Object.keys(input.after.histograms) as HistogramSeries[]) {
    const a = input.after.histograms[series] as Buckets;
    const b = input.before.histograms[series];
    if (!b) continue;
    const delta = bucketDelta(a, b);
    if (delta === "reset") resets.add(series);
    histograms[series] = histogramStats(delta === "reset" ? a : delta);
  }
  if (resets.size > 0)
    notes.push(
      `counters went down during the trial (the server restarted?): ${[...resets].join(", ")} counted from 0`,
    );
  const hits = counters.prefix_cache_hits;
  const queries = counters.prefix_cache_queries;
  return {
    url: input.url,
    runtime: input.runtime,
    scrapes: input.during.length + 2,
    window_scrapes: inWindow.length,
    failed_scrapes: input.failedScrapes,
    gauges,
    counters,
    prefix_cache_hit_rate:
      hits !== undefined && queries !== undefined && queries > 0 ? round(hits / queries, 4) : null,
    spec_decode: specDecode(counters),
    histograms,
    names: input.names,
    notes,
  };
}

/** after − before per bucket; "reset" when the buckets differ or a count went down. */
function bucketDelta(after: Buckets, before: Buckets): Buckets | "reset" {
  if (after.le.length !== before.le.length || after.le.some((b, i) => b !== before.le[i]))
    return "reset";
  const counts = after.counts.map((c, i) => c - at(before.counts, i));
  if (counts.some((c) => c < 0) || after.count < before.count) return "reset";
  return {
    le: after.le,
    counts,
    sumS: after.sumS - before.sumS,
    count: after.count - before.count,
  };
}

export function histogramStats(h: Buckets): HistogramStats {
  const out: HistogramStats = {
    count: h.count,
    mean_ms: h.count > 0 ? round((h.sumS / h.count) * 1000) : null,
    p50_ms: null,
    p95_ms: null,
    lower_bounds: [],
    upper_bounds: [],
  };
  for (const [key, q] of [
    ["p50_ms", 0.5],
    ["p95_ms", 0.95],
  ] as const) {
    const v = bucketQuantile(h, q);
    if (v === null) continue;
    out[key] = round(v.ms);
    if (v.bound === "at_least") out.lower_bounds.push(key);
    if (v.bound === "at_most") out.upper_bounds.push(key);
  }
  return out;
}

export interface BucketQuantile {
  ms: number;
  /** exact: interpolated inside a finite bucket above the lowest one. */
  bound: "exact" | "at_least" | "at_most";
}

/**
 * The q-quantile (ms) by linear interpolation inside its bucket, as
 * Prometheus' histogram_quantile does; in the lowest bucket its upper bound
 * ("at most"), in the +Inf bucket the highest finite bound ("at least").
 */
export function bucketQuantile(h: Buckets, q: number): BucketQuantile | null {
  const total = h.counts.at(-1) ?? 0;
  if (total <= 0) return null;
  const rank = q * total;
  const i = h.counts.findIndex((c) => c >= rank);
  const upper = at(h.le, i);
  if (i === 0)
    return { ms: upper * 1000, bound: upper === Number.POSITIVE_INFINITY ? "at_least" : "at_most" };
  const lower = at(h.le, i - 1);
  if (upper === Number.POSITIVE_INFINITY) return { ms: lower * 1000, bound: "at_least" };
  const below = at(h.counts, i - 1);
  const inBucket = at(h.counts, i) - below;
  const s = inBucket > 0 ? lower + ((upper - lower) * (rank - below)) / inBucket : upper;
  return { ms: s * 1000, bound: "exact" };
}
