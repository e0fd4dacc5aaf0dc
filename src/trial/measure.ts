// Measures one endpoint in this thread: workload → open-loop trial → metrics →
// report. trial.ts runs it, or splits the trial over workers that each run
// its parts.

import { formatSlo, type Slo, sloRecord } from "../common/slo.ts";
import type { OpenLimit, RequestRecord } from "../load/record.ts";
import { type LoadRun, type LoadSlice, type Progress, runLoad, sliceSize } from "../load/run.ts";
import { type Clock, MONOTONIC } from "../load/scheduler.ts";
import { TrialRecorder } from "../metrics/recorder.ts";
import { summarizeTrial, type TrialSummary } from "../metrics/summary.ts";
import { bucketSeconds, TimelineTally, type TrialTimeline } from "../metrics/timeline.ts";
import type { SelfCheckLimits } from "../metrics/validity.ts";
import type { Target } from "../openai/target.ts";
import { REAL_READ, type ReadDeps } from "../replicas/read.ts";
import { ReplicaSampler, type ReplicasRecord } from "../replicas/sampler.ts";
import type { ReplicasSource } from "../replicas/source.ts";
import type { TrialContext } from "../requests/line.ts";
import {
  type FetchMetrics,
  metricsFetcher,
  type ServerMetrics,
  type ServerMetricsOptions,
  TrialScrape,
} from "../servermetrics/scraper.ts";
import type { ArrivalSpec } from "../workload/arrivals.ts";
import { describeWorkload, type WorkloadDescription } from "../workload/describe.ts";
import { buildWorkload, type Workload, type WorkloadSpec } from "../workload/plan.ts";
import { shapePeakRate } from "../workload/shape.ts";
import { type SessionSummary, TrialTally } from "./tally.ts";
import type { WorkerSetting } from "./worker-count.ts";

export const MEASURE_SCHEMA = "llm-perf-gate/measure@2";

/** What one measurement needs: where, what load, and its limits. */
export interface TrialOptions {
  target: Target;
  workload: WorkloadSpec;
  timeoutS: number;
  maxConcurrency: number | undefined;
  slo: Slo;
  limits: SelfCheckLimits;
  /** The server's /metrics, scraped beside the trial; null: not scraped. */
  serverMetrics: ServerMetricsOptions | null;
  /** Where the replica count is read once a second beside the trial; absent: not read. */
  replicas?: ReplicasSource | null;
  /** Worker threads the schedule is split over (worker-count.ts); absent: this thread alone. */
  workers?: WorkerSetting;
}

export interface TrialReport extends TrialSummary {
  schema: typeof MEASURE_SCHEMA;
  created_at: string;
  target: { url: string; model: string; endpoint: string };
  workload: WorkloadDescription & {
    max_concurrency: number | null;
    timeout_s: number;
    slo: string;
    include_usage: boolean;
    fingerprint: string;
    warmup_requests: number;
  };
  /** Multi-turn sessions: how they ended, and TTFT per turn (turn 1 vs later shows the prefix cache). */
  sessions: SessionSummary | null;
  /** The server's own view of the trial, from its /metrics; null: not scraped. */
  server_metrics: ServerMetrics | null;
  /** Time inside the trial, bucket by bucket (absent in older files). */
  timeline?: TrialTimeline;
  /** The replica count's source, its samples' count and its error (absent: none read). */
  replicas?: ReplicasRecord;
}

/** The timeline, with the server's queue from the scrapes during the trial. */
function timelineOf(timeline: TimelineTally, gauges: GaugeSeries): TrialTimeline {
  for (const g of gauges) timeline.addGauges(g.atMs, g.running, g.waiting, g.replicas);
  return timeline.timeline();
}

/**
 * A send later than this changes the offered load: a tenth of the mean gap
 * between arrivals, at least 1 ms. Bursts have no gap to keep: not checked.
 */
export function lateSendMs(arrival: ArrivalSpec): number | undefined {
  if (arrival.kind === "burst" || arrival.kind === "all-at-once" || arrival.kind === "swept")
    return undefined;
  // A shape keeps its tightest gaps: at its peak rate.
  const perS = arrival.kind === "shaped" ? shapePeakRate(arrival.segments) : arrival.ratePerS;
  return Math.max(1, 1000 / perS / 10);
}

/**
 * The windows over which the offered rate is checked: at least a second, and
 * long enough to expect 20 arrivals, so one request more or less is not a
 * change of the load. Bursts and a closed loop have no rate to keep.
 */
export function offeredWindowMs(
  arrival: ArrivalSpec,
  maxConcurrency: number | undefined,
): number | undefined {
  if (maxConcurrency !== undefined) return undefined;
  switch (arrival.kind) {
    case "poisson":
    case "gamma":
    case "constant":
    case "trace":
    case "shaped":
      return Math.max(1000, (20 / arrival.ratePerS) * 1000);
    default:
      return undefined;
  }
}

export interface TrialDeps {
  clock?: Clock;
  onProgress?: (p: Progress) => void;
  now?: () => Date;
  /** Cancels the trial (it ends as at its hard deadline). */
  signal?: AbortSignal;
  /** GETs the server's metrics page (tests: a recorded one). */
  fetchMetrics?: FetchMetrics;
  /** Each measured request once its outcome is known, for the requests file. */
  onRequestLine?: (r: RequestRecord, at: TrialContext) => void;
  /** Reads a replica count (tests: stand-ins for the query and the command). */
  readReplicas?: ReadDeps;
}

export type GaugeSeries = (ReturnType<TrialScrape["gaugeSeries"]>[number] & {
  replicas?: number;
})[];

interface Beside<T> {
  result: T;
  serverMetrics: ServerMetrics | null;
  gauges: GaugeSeries;
  replicas: ReplicasRecord | null;
}

/** The replica count sampled beside the measurement (scrapeBeside's), its samples among the gauges. */
async function sampleBeside<T>(
  options: TrialOptions,
  deps: TrialDeps,
  clock: Clock,
  measure: () => Promise<Omit<Beside<T>, "replicas">>,
): Promise<Beside<T>> {
  if (!options.replicas) return { ...(await measure()), replicas: null };
  const sampler = new ReplicaSampler(options.replicas, deps.readReplicas ?? REAL_READ, () =>
    clock.now(),
  );
  sampler.start();
  try {
    const measured = await measure();
    const replicas = await sampler.stop();
    const samples = sampler.samples.map((s) => ({
      atMs: s.atMs,
      running: undefined,
      waiting: undefined,
      replicas: s.replicas,
    }));
    return { ...measured, gauges: [...measured.gauges, ...samples], replicas };
  } finally {
    await sampler.stop();
  }
}

/** The server's metrics scraped beside the trial (before, during and after it), and its replica count sampled. */
export function scrapeBeside<T>(
  options: TrialOptions,
  deps: TrialDeps,
  clock: Clock,
  measure: () => Promise<T>,
  windowOf: (result: T) => [number, number],
): Promise<Beside<T>> {
  return sampleBeside(options, deps, clock, () =>
    scrapeMetrics(options, deps, clock, measure, windowOf),
  );
}

async function scrapeMetrics<T>(
  options: TrialOptions,
  deps: TrialDeps,
  clock: Clock,
  measure: () => Promise<T>,
  windowOf: (result: T) => [number, number],
): Promise<Omit<Beside<T>, "replicas">> {
  if (!options.serverMetrics) return { result: await measure(), serverMetrics: null, gauges: [] };
  const fetcher = deps.fetchMetrics ? undefined : metricsFetcher();
  const fetch = deps.fetchMetrics ?? fetcher?.fetch;
  if (!fetch) throw new Error("internal error: no metrics fetcher");
  const scrape = new TrialScrape(options.serverMetrics, options.target.model, {
    fetch,
    now: () => clock.now(),
  });
  try {
    await scrape.start();
    let result: T;
    try {
      result = await measure();
    } catch (error) {
      await scrape.finish(0, 0);
      throw error;
    }
    const [fromMs, toMs] = windowOf(result);
    const serverMetrics = await scrape.finish(fromMs, toMs);
    return { result, serverMetrics, gauges: scrape.gaugeSeries() };
  } finally {
    await fetcher?.close();
  }
}

/** Where each measured request goes: the tally (and recorder), the timeline, the requests file. */
function requestSinks(
  workload: Workload,
  tally: TrialTally,
  options: TrialOptions,
  deps: TrialDeps,
  clock: Clock,
) {
  const scheduleS = (workload.windowStartMs + workload.windowMs) / 1000;
  const timeline = new TimelineTally(bucketSeconds(scheduleS), scheduleS, options.slo);
  const start = { startMs: 0, startUnixMs: 0, slo: options.slo };
  const onStart = (startMs: number) => {
    start.startMs = startMs;
    timeline.startMs = startMs;
    start.startUnixMs = (deps.now?.() ?? new Date()).getTime() + (startMs - clock.now());
  };
  const onLine = deps.onRequestLine;
  const onRequest = (r: RequestRecord) => {
    tally.add(r);
    timeline.add(r);
    onLine?.(r, tally.context(r, start));
  };
  return { timeline, onStart, onRequest };
}

/** What a trial measured: the pieces its report is made of (one process's, or shards' merged). */
export interface TrialParts {
  workload: Workload;
  recorder: TrialRecorder;
  tally: TrialTally;
  timeline: TimelineTally;
  run: Omit<LoadRun, "endMs">;
  serverMetrics: ServerMetrics | null;
  gauges: GaugeSeries;
  /** The replica count's source as the report names it (null: none read). */
  replicas?: ReplicasRecord | null;
}

/** The empty pieces of a trial, ready to record into (or to merge shards into). */
export function emptyParts(options: TrialOptions, workload = buildWorkload(options.workload)) {
  const recorder = new TrialRecorder(
    options.slo,
    options.timeoutS * 1000,
    lateSendMs(options.workload.arrival),
    offeredWindowMs(options.workload.arrival, options.maxConcurrency),
  );
  const tally = new TrialTally(workload, recorder);
  return { workload, recorder, tally };
}

/** The measured window on the clock of a trial that started at startMs: what a scrape brackets. */
export function measuredWindowMs(workload: Workload, startMs: number): [number, number] {
  const fromMs = startMs + workload.windowStartMs;
  return [fromMs, fromMs + workload.windowMs];
}

/** The measured (not warm-up) requests of the trial, or of a slice of it. */
export function measuredInSlice(w: Workload, slice?: LoadSlice): number {
  return sliceSize(w.offsetsMs.length, slice) - sliceSize(w.warmupCount, slice);
}

/** A shard's or a worker's part of the plan: its slice of the trial, and the trial's start on the clock. */
export interface ShardPart {
  slice: LoadSlice;
  startAtMs: number;
  /** A worker thread's share of the process's open limit; absent: all of it. */
  openLimit?: OpenLimit;
}

/** Measures the trial (or a shard's slice of it): its parts, not yet a report. */
export async function measureParts(
  options: TrialOptions,
  deps: TrialDeps = {},
  shard?: ShardPart,
  built: Workload = buildWorkload(options.workload),
): Promise<TrialParts> {
  const { workload, recorder, tally } = emptyParts(options, built);
  const clock = deps.clock ?? MONOTONIC;
  const sinks = requestSinks(workload, tally, options, deps, clock);
  const onStart = (startMs: number) => {
    recorder.offeredOriginMs = startMs;
    sinks.onStart(startMs);
  };
  const {
    result: run,
    serverMetrics,
    gauges,
    replicas,
  } = await scrapeBeside(
    options,
    deps,
    clock,
    () =>
      runLoad({
        target: options.target,
        workload,
        timeoutS: options.timeoutS,
        maxConcurrency: options.maxConcurrency,
        onRequest: sinks.onRequest,
        onStart,
        ...(shard ? shard : {}),
        ...(deps.onProgress ? { onProgress: deps.onProgress } : {}),
        ...(deps.clock ? { clock: deps.clock } : {}),
        ...(deps.signal ? { signal: deps.signal } : {}),
      }),
    (r) => measuredWindowMs(workload, r.startMs),
  );
  const measured = measuredInSlice(workload, shard?.slice);
  // Every request has an outcome, but a session's turns after it ended never fell due.
  if (recorder.scheduled + run.neverDue !== measured) {
    throw new Error(
      `internal error: ${recorder.scheduled} outcomes and ${run.neverDue} turns never due for ${measured} requests`,
    );
  }
  return {
    workload,
    recorder,
    tally,
    timeline: sinks.timeline,
    run,
    serverMetrics,
    gauges,
    replicas,
  };
}

/** Measures the trial in this thread (trial.ts decides between this and workers). */
export async function measureInThread(
  options: TrialOptions,
  deps: TrialDeps = {},
  workload: Workload = buildWorkload(options.workload),
): Promise<TrialReport> {
  const parts = await measureParts(options, deps, undefined, workload);
  return reportOf(options, parts, deps.now?.() ?? new Date());
}

/** The trial's report from what it measured. */
export function reportOf(options: TrialOptions, parts: TrialParts, now: Date): TrialReport {
  const { workload, recorder, tally, run } = parts;
  // Offline throughput (all-at-once) is over the time the burst took; every
  // other arrival process is over its scheduled window.
  const windowS =
    options.workload.arrival.kind === "all-at-once"
      ? Math.max(0, (tally.lastEndMs - (run.startMs + workload.windowStartMs)) / 1000)
      : options.workload.durationS;
  const summary = summarizeTrial(recorder, {
    windowS,
    readings: run.readings,
    hardStopped: run.hardStopped,
    maxConcurrency: options.maxConcurrency,
    limits: options.limits,
    slo: options.slo,
    promptTokens: tally.prompt,
  });
  return {
    schema: MEASURE_SCHEMA,
    created_at: now.toISOString(),
    target: {
      url: options.target.baseUrl,
      model: options.target.model,
      endpoint: options.target.endpoint,
    },
    workload: {
      ...describeWorkload(options.workload),
      max_concurrency: options.maxConcurrency ?? null,
      timeout_s: options.timeoutS,
      slo: formatSlo(sloRecord(options.slo)),
      include_usage: options.target.includeUsage,
      fingerprint: workload.fingerprint,
      warmup_requests: workload.warmupCount,
    },
    sessions: tally.sessions(),
    server_metrics: parts.serverMetrics,
    timeline: timelineOf(parts.timeline, parts.gauges),
    ...(parts.replicas ? { replicas: parts.replicas } : {}),
    ...summary,
  };
}
