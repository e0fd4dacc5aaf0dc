// Both arms' server views over the gate's trials: each arm's median trial,
// the names one arm exposes and the other does not (a runtime upgrade that
// renamed a series shows here), and where a TTFT change went — the client's
// TTFT against the server's own TTFT and queue time, paired by trial pair.
// Means, not percentiles: a server histogram's mean (Δsum ÷ Δcount) is exact,
// its percentiles only as fine as its buckets.

import { median } from "simple-statistics";
import type { Arm } from "../common/arms.ts";
import { compact, count, plural, signedMs } from "../common/format.ts";
import type { Runtime } from "../common/runtimes.ts";
import { GAUGES, type GaugeSeries, HISTOGRAMS, type HistogramSeries } from "./runtimes.ts";
import { type ServerMetrics, scrapeFailed } from "./scraper.ts";
import type { ServerView } from "./view.ts";

export interface TrialServerInput {
  pair: number;
  metrics: ServerMetrics | null;
  /** The client's mean TTFT of the trial (ms, from the scheduled send). */
  clientTtftMeanMs: number | null;
}

export interface ArmServerView {
  url: string | null;
  runtime: Runtime | null;
  /** Trials with a view, and those whose scrapes failed (with the distinct reasons). */
  trials: number;
  failed: number;
  errors: string[];
  /** Medians over the trials of each trial's mean and max. */
  gauges: Partial<Record<GaugeSeries, { mean: number; max: number }>>;
  preemptions_per_trial: number | null;
  prefix_cache_hit_rate: number | null;
  /** Speculative decoding, medians over the trials; null: not exposed (absent in older files). */
  spec_decode_acceptance?: number | null;
  spec_decode_tokens_per_step?: number | null;
  /** Medians over the trials; p95 bucket-interpolated, or a bound ("≥", "≤") in an end bucket. */
  histograms: Partial<
    Record<
      HistogramSeries,
      { mean_ms: number | null; p95_ms: number | null; p95_bound: "≥" | "≤" | "" }
    >
  >;
  names: string[];
  notes: string[];
}

export interface TtftBreakdown {
  /** Pairs with both arms' views. */
  pairs: number;
  /** Median over pairs of candidate − baseline mean (ms). */
  client_ms: number;
  server_ttft_ms: number | null;
  queue_ms: number | null;
  /** Where the change went, in words; null when TTFT did not rise. */
  words: string | null;
}

export interface ServerComparison {
  baseline: ArmServerView;
  candidate: ArmServerView;
  /** Metric names only one arm exposed (none when the arms are different runtimes). */
  only_in: Record<Arm, string[]>;
  ttft: TtftBreakdown | null;
}

const med = (xs: number[]): number | null => (xs.length === 0 ? null : median(xs));
const round = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 1000);

function armView(inputs: readonly TrialServerInput[]): ArmServerView {
  const views = inputs.flatMap((t) => (t.metrics && !scrapeFailed(t.metrics) ? [t.metrics] : []));
  const failures = inputs.flatMap((t) => (scrapeFailed(t.metrics) ? [t.metrics] : []));
  const first = views[0] ?? failures[0];
  const gauges: ArmServerView["gauges"] = {};
  for (const g of Object.keys(GAUGES) as GaugeSeries[]) {
    const stats = views.flatMap((v) => v.gauges[g] ?? []);
    if (stats.length > 0)
      gauges[g] = {
        mean: round(med(stats.map((s) => s.mean))) as number,
        max: round(med(stats.map((s) => s.max))) as number,
      };
  }
  const histograms: ArmServerView["histograms"] = {};
  for (const h of Object.keys(HISTOGRAMS) as HistogramSeries[]) {
    const stats = views.flatMap((v) => v.histograms[h] ?? []);
    if (stats.length > 0)
      histograms[h] = {
        mean_ms: round(med(stats.flatMap((s) => s.mean_ms ?? []))),
        p95_ms: round(med(stats.flatMap((s) => s.p95_ms ?? []))),
        p95_bound: stats.some((s) => s.lower_bounds.includes("p95_ms"))
          ? "≥"
          : stats.every((s) => s.upper_bounds.includes("p95_ms"))
            ? "≤"
            : "",
      };
  }
  return {
    url: first?.url ?? null,
    runtime: views[0]?.runtime ?? null,
    trials: views.length,
    failed: failures.length,
    errors: [...new Set(failures.map((f) => f.error))].slice(0, 3),
    gauges,
    preemptions_per_trial: med(views.flatMap((v) => v.counters.preemptions ?? [])),
    prefix_cache_hit_rate: round(med(views.flatMap((v) => v.prefix_cache_hit_rate ?? []))),
    spec_decode_acceptance: round(med(views.flatMap((v) => v.spec_decode?.acceptance_rate ?? []))),
    spec_decode_tokens_per_step: round(
      med(views.flatMap((v) => v.spec_decode?.tokens_per_step ?? [])),
    ),
    histograms,
    names: [...new Set(views.flatMap((v) => v.names))].sort(),
    notes: [...new Set(views.flatMap((v) => v.notes))].slice(0, 5),
  };
}

export function compareServerViews(
  trials: Record<Arm, readonly TrialServerInput[]>,
): ServerComparison | null {
  if (![...trials.baseline, ...trials.candidate].some((t) => t.metrics)) return null;
  const baseline = armView(trials.baseline);
  const candidate = armView(trials.candidate);
  const sameRuntime = baseline.runtime !== null && baseline.runtime === candidate.runtime;
  const onlyIn = (a: string[], b: string[]) => (sameRuntime ? a.filter((n) => !b.includes(n)) : []);
  return {
    baseline,
    candidate,
    only_in: {
      baseline: onlyIn(baseline.names, candidate.names),
      candidate: onlyIn(candidate.names, baseline.names),
    },
    ttft: breakdown(trials, baseline, candidate),
  };
}

function breakdown(
  trials: Record<Arm, readonly TrialServerInput[]>,
  baseline: ArmServerView,
  candidate: ArmServerView,
): TtftBreakdown | null {
  const view = (t: TrialServerInput | undefined): ServerView | undefined =>
    t?.metrics && !scrapeFailed(t.metrics) ? t.metrics : undefined;
  const client: number[] = [];
  const server: number[] = [];
  const queue: number[] = [];
  for (const b of trials.baseline) {
    const c = trials.candidate.find((t) => t.pair === b.pair);
    const bv = view(b);
    const cv = view(c);
    if (!bv || !cv || b.clientTtftMeanMs === null || c?.clientTtftMeanMs == null) continue;
    client.push(c.clientTtftMeanMs - b.clientTtftMeanMs);
    const diff = (h: HistogramSeries) => {
      const x = bv.histograms[h]?.mean_ms;
      const y = cv.histograms[h]?.mean_ms;
      return x == null || y == null ? [] : [y - x];
    };
    server.push(...diff("ttft"));
    queue.push(...diff("queue_time"));
  }
  if (client.length === 0) return null;
  const out: TtftBreakdown = {
    pairs: client.length,
    client_ms: round(median(client)) as number,
    // Only when every pair has it: a median over fewer pairs than the client's is not comparable.
    server_ttft_ms: server.length === client.length ? round(median(server)) : null,
    queue_ms: queue.length === client.length ? round(median(queue)) : null,
    words: null,
  };
  out.words = explain(out, baseline, candidate);
  return out;
}

/** Where a TTFT rise went, in words; null when TTFT did not rise. */
function explain(b: TtftBreakdown, base: ArmServerView, cand: ArmServerView): string | null {
  if (b.client_ms <= 0) return null;
  const head = `${signedMs(b.client_ms)} mean TTFT`;
  if (b.queue_ms !== null && b.queue_ms >= 0.5 * b.client_ms)
    return `${head}, of which ${signedMs(b.queue_ms)} server queue time: ${queueCause(base, cand)}`;
  if (b.server_ttft_ms !== null && b.server_ttft_ms >= 0.5 * b.client_ms) {
    const queued = b.queue_ms === null ? "" : ` (queue time ${signedMs(b.queue_ms)})`;
    return `${head}, of which ${signedMs(b.server_ttft_ms)} inside the server's own TTFT${queued}: it takes longer to compute the first token, not to schedule it`;
  }
  if (b.server_ttft_ms !== null)
    return `${head}, but the server's own TTFT changed ${signedMs(b.server_ttft_ms)}: the rest is outside the server — the network, a gateway or proxy, or the client`;
  if (b.queue_ms !== null)
    return `${head}, of which ${signedMs(b.queue_ms)} server queue time; the server exposes no TTFT histogram to account for the rest`;
  return null;
}

/** Why requests wait longer, from the gauges and counters. */
function queueCause(base: ArmServerView, cand: ArmServerView): string {
  const run = (v: ArmServerView) => v.gauges.running;
  const b = run(base);
  const c = run(cand);
  if (b && c && c.max < 0.9 * b.max)
    return `the candidate runs fewer sequences at once (at most ${count(c.max)} running vs ${count(b.max)}, mean ${compact(c.mean)} vs ${compact(b.mean)})`;
  const bp = base.preemptions_per_trial ?? 0;
  const cp = cand.preemptions_per_trial ?? 0;
  if (cp > bp)
    return `the candidate preempts more (${plural(cp, "preemption")} per trial vs ${count(bp)})`;
  const kv = cand.gauges.kv_cache_usage;
  if (kv && kv.max >= 0.95)
    return `the candidate's KV cache is full (at most ${compact(kv.max * 100)} % used)`;
  return "requests wait longer before the candidate schedules them";
}
