// A part of one trial (a worker's or a shard's slice of its schedule), as a
// results file or a worker's message holds it, and the merge of every part
// into the trial's report. Histograms and counts merge
// exactly (recorder-state.ts). The self-checks run twice: on the merged trial
// (the whole plan's offered rate, late sends, unsent requests) and on each
// shard's own load generator (its event-loop delay, CPU, GC, send skew, hard
// stop), recomputed from its part, a shard's reasons named by the shard.

import type { ProbeReadings } from "../load/probes.ts";
import type { LoadSlice } from "../load/run.ts";
import {
  mergeRecorderState,
  type RecorderState,
  recorderState,
} from "../metrics/recorder-state.ts";
import { limitsReport } from "../metrics/summary.ts";
import { bucketSeconds, type TimelineState, TimelineTally } from "../metrics/timeline.ts";
import type { ReplicasRecord } from "../replicas/sampler.ts";
import type { ServerMetrics } from "../servermetrics/scraper.ts";
import { buildWorkload, type Workload } from "../workload/plan.ts";
import {
  emptyParts,
  type GaugeSeries,
  reportOf,
  type TrialOptions,
  type TrialParts,
  type TrialReport,
} from "./measure.ts";
import type { TrialTally } from "./tally.ts";

export interface TrialPartState {
  slice: LoadSlice;
  recorder: RecorderState;
  prompt: TrialTally["prompt"];
  /** When its last request ended, from the trial's start (ms); null: none ended. */
  last_end_ms: number | null;
  timeline: TimelineState;
  readings: ProbeReadings;
  hard_stopped: boolean;
  never_due: number;
  /** The server's gauges during the trial, from its start (ms): the first shard's. */
  gauges: GaugeSeries;
}

/** What a shard keeps of a trial it measured. */
export function partState(parts: TrialParts, slice: LoadSlice): TrialPartState {
  const { run, tally } = parts;
  return {
    slice,
    recorder: recorderState(parts.recorder),
    prompt: { ...tally.prompt },
    last_end_ms: Number.isNaN(tally.lastEndMs) ? null : tally.lastEndMs - run.startMs,
    timeline: parts.timeline.state(),
    readings: run.readings,
    hard_stopped: run.hardStopped,
    never_due: run.neverDue,
    gauges: parts.gauges.map((g) => ({ ...g, atMs: g.atMs - run.startMs })),
  };
}

/**
 * The worst of each reading: a limit any part's generator broke is broken in
 * the merge. The CPU is one part's, the busiest's (its user, system and wall
 * time together).
 */
function worstReadings(all: ProbeReadings[]): ProbeReadings {
  const max = (f: (r: ProbeReadings) => number) => Math.max(0, ...all.map(f));
  const busiest = all.reduce<ProbeReadings["cpu"] | undefined>(
    (a, r) => (a === undefined || r.cpu.shareOfCore > a.shareOfCore ? r.cpu : a),
    undefined,
  );
  return {
    eventLoopDelayMs: {
      p50: max((r) => r.eventLoopDelayMs.p50),
      p99: max((r) => r.eventLoopDelayMs.p99),
      max: max((r) => r.eventLoopDelayMs.max),
    },
    gc: { count: max((r) => r.gc.count), totalMs: max((r) => r.gc.totalMs) },
    cpu: busiest ?? { userMs: 0, systemMs: 0, wallMs: 0, shareOfCore: 0 },
  };
}

/** Every shard's part added into one trial's parts, on a clock whose zero is the trial's start. */
export function mergeParts(
  options: TrialOptions,
  states: TrialPartState[],
  workload: Workload,
  serverMetrics: ServerMetrics | null = null,
): TrialParts {
  const { recorder, tally } = emptyParts(options, workload);
  const scheduleS = (workload.windowStartMs + workload.windowMs) / 1000;
  const timeline = new TimelineTally(bucketSeconds(scheduleS), scheduleS, options.slo);
  for (const s of states) {
    mergeRecorderState(recorder, s.recorder);
    tally.prompt.intended += s.prompt.intended;
    tally.prompt.server += s.prompt.server;
    tally.prompt.requests += s.prompt.requests;
    if (s.last_end_ms !== null && !(s.last_end_ms <= tally.lastEndMs))
      tally.lastEndMs = s.last_end_ms;
    timeline.merge(s.timeline);
  }
  return {
    workload,
    recorder,
    tally,
    timeline,
    run: {
      startMs: 0,
      readings: worstReadings(states.map((s) => s.readings)),
      hardStopped: states.some((s) => s.hard_stopped),
      neverDue: states.reduce((n, s) => n + s.never_due, 0),
    },
    serverMetrics,
    // The first shard's: its scrapes, and its replica samples (with or without a scrape).
    gauges: states.find((s) => s.gauges.length > 0)?.gauges ?? [],
  };
}

/** The trial's seeded workload (the same in every shard and in the merge). */
export const trialWorkload = (options: TrialOptions): Workload => buildWorkload(options.workload);

/** The longest a trial of these options can take: its schedule and its timeout. */
export function trialSpanMs(
  options: TrialOptions,
  w: Workload = buildWorkload(options.workload),
): number {
  return w.windowStartMs + w.windowMs + options.timeoutS * 1000;
}

/**
 * The options with only the load generator's own checks: a shard's slice of
 * the offered load is judged in the merge, where it is whole (a slice holds
 * 1/N of the arrivals its offered-rate windows were sized for).
 */
function generatorOnly(options: TrialOptions): TrialOptions {
  return {
    ...options,
    limits: {
      ...options.limits,
      maxSkewEffect: Number.POSITIVE_INFINITY,
      maxOfferedDrift: Number.POSITIVE_INFINITY,
      maxLateSends: undefined,
      maxUnsent: Number.POSITIVE_INFINITY,
    },
  };
}

const shardName = (s: LoadSlice) => `shard ${s.index}/${s.count}`;

/** The options without the load generator's own checks: those are each shard's (generatorOnly). */
function planOnly(options: TrialOptions): TrialOptions {
  return {
    ...options,
    limits: {
      ...options.limits,
      maxEventLoopDelayP99Ms: Number.POSITIVE_INFINITY,
      maxClientCpu: Number.POSITIVE_INFINITY,
      maxSendSkewP99Ms: undefined,
      maxGcShare: undefined,
    },
  };
}

/**
 * The trial's report from every shard's part. Its self-checks: the merged
 * trial's over the whole plan, and each shard's generator's, named by the
 * shard; the limits reported are the configured ones.
 */
export function mergedReport(
  options: TrialOptions,
  states: TrialPartState[],
  at: {
    workload: Workload;
    serverMetrics: ServerMetrics | null;
    now: Date;
    /** The server's gauges from the trial's start, when not a part's (the main thread's scrape). */
    gauges?: GaugeSeries;
    /** The replica count's source (the main thread's sampler). */
    replicas?: ReplicasRecord | null;
  },
  partName: (s: LoadSlice) => string = shardName,
): TrialReport {
  const { workload, now } = at;
  const plan = planOnly(options);
  const parts = mergeParts(plan, states, workload, at.serverMetrics);
  const merged = {
    ...(at.gauges ? { ...parts, gauges: at.gauges } : parts),
    replicas: at.replicas ?? null,
  };
  // A hard stop is a shard's generator's fault: said by that shard.
  const report = reportOf(plan, { ...merged, run: { ...merged.run, hardStopped: false } }, now);
  const v = report.validity;
  const own = generatorOnly(options);
  const byShard = states.flatMap((s) =>
    reportOf(own, mergeParts(own, [s], workload), now).validity.reasons.map(
      (r) => `${partName(s.slice)}: ${r}`,
    ),
  );
  const reasons = [...v.reasons, ...byShard];
  return {
    ...report,
    validity: {
      ...v,
      limits: limitsReport(options.limits),
      valid: reasons.length === 0,
      reasons,
      // Lateness alone in the merge may be kept; a shard's generator's fault may not.
      lateness_only: v.lateness_only === true && byShard.length === 0,
    },
  };
}
