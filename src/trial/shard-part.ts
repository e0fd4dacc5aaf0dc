// A shard's part of one trial, as its partial results file holds it, and the
// merge of every shard's part into the trial's report. Histograms and counts
// merge exactly (recorder-state.ts); the self-checks run on each shard's own
// slice (its generator) and on the merged trial (the offered load, late sends,
// unsent requests of the whole plan), a shard's reasons named by the shard.

import type { ProbeReadings } from "../load/probes.ts";
import type { LoadSlice } from "../load/run.ts";
import {
  mergeRecorderState,
  type RecorderState,
  recorderState,
} from "../metrics/recorder-state.ts";
import { bucketSeconds, type TimelineState, TimelineTally } from "../metrics/timeline.ts";
import type { Validity } from "../metrics/validity.ts";
import type { ServerMetrics } from "../servermetrics/scraper.ts";
import { buildWorkload } from "../workload/plan.ts";
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
  /** The server's metrics (the first shard scrapes them; the others do not). */
  server_metrics: ServerMetrics | null;
  /** The server's gauges during the trial, from its start (ms). */
  gauges: GaugeSeries;
  /** The shard's own self-checks, over its slice. */
  validity: Validity;
}

/** What a shard keeps of a trial it measured. */
export function partState(
  parts: TrialParts,
  slice: LoadSlice,
  report: TrialReport,
): TrialPartState {
  const { run, tally } = parts;
  const v = report.validity;
  return {
    slice,
    recorder: recorderState(parts.recorder),
    prompt: { ...tally.prompt },
    last_end_ms: Number.isNaN(tally.lastEndMs) ? null : tally.lastEndMs - run.startMs,
    timeline: parts.timeline.state(),
    readings: run.readings,
    hard_stopped: run.hardStopped,
    never_due: run.neverDue,
    server_metrics: parts.serverMetrics,
    gauges: parts.gauges.map((g) => ({ ...g, atMs: g.atMs - run.startMs })),
    validity: {
      valid: v.valid,
      reasons: v.reasons,
      warnings: v.warnings,
      ...(v.lateness_only !== undefined ? { lateness_only: v.lateness_only } : {}),
    },
  };
}

/** The worst of each reading: a limit any shard's generator broke is broken in the merge. */
function worstReadings(all: ProbeReadings[]): ProbeReadings {
  const max = (f: (r: ProbeReadings) => number) => Math.max(0, ...all.map(f));
  return {
    eventLoopDelayMs: {
      p50: max((r) => r.eventLoopDelayMs.p50),
      p99: max((r) => r.eventLoopDelayMs.p99),
      max: max((r) => r.eventLoopDelayMs.max),
    },
    gc: { count: max((r) => r.gc.count), totalMs: max((r) => r.gc.totalMs) },
    cpu: {
      userMs: max((r) => r.cpu.userMs),
      systemMs: max((r) => r.cpu.systemMs),
      wallMs: max((r) => r.cpu.wallMs),
      shareOfCore: max((r) => r.cpu.shareOfCore),
    },
  };
}

/** Every shard's part added into one trial's parts, on a clock whose zero is the trial's start. */
export function mergeParts(options: TrialOptions, states: TrialPartState[]): TrialParts {
  const { workload, recorder, tally } = emptyParts(options);
  const scheduleS = (workload.windowStartMs + workload.windowMs) / 1000;
  const timeline = new TimelineTally(bucketSeconds(scheduleS), scheduleS);
  for (const s of states) {
    mergeRecorderState(recorder, s.recorder);
    tally.prompt.intended += s.prompt.intended;
    tally.prompt.server += s.prompt.server;
    tally.prompt.requests += s.prompt.requests;
    if (s.last_end_ms !== null && !(s.last_end_ms <= tally.lastEndMs))
      tally.lastEndMs = s.last_end_ms;
    timeline.merge(s.timeline);
  }
  const scraped = states.find((s) => s.server_metrics !== null);
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
    serverMetrics: scraped?.server_metrics ?? null,
    gauges: scraped?.gauges ?? [],
  };
}

/** The longest a trial of these options can take: its schedule and its timeout. */
export function trialSpanMs(options: TrialOptions): number {
  const w = buildWorkload(options.workload);
  return w.windowStartMs + w.windowMs + options.timeoutS * 1000;
}

const shardName = (s: LoadSlice) => `shard ${s.index}/${s.count}`;

/**
 * The trial's report from every shard's part. Its self-checks: the merged
 * trial's, and each shard's own, named; a reading only the worst shard broke
 * is said once, by that shard.
 */
export function mergedReport(
  options: TrialOptions,
  states: TrialPartState[],
  now: Date,
): TrialReport {
  const report = reportOf(options, mergeParts(options, states), now);
  const v = report.validity;
  const byShard = states.flatMap((s) => s.validity.reasons.map((r) => ({ shard: s.slice, r })));
  const own = new Set(byShard.map((x) => x.r));
  const reasons = [
    ...v.reasons.filter((r) => !own.has(r)),
    ...byShard.map((x) => `${shardName(x.shard)}: ${x.r}`),
  ];
  const warnings = [
    ...v.warnings,
    ...states.flatMap((s) => s.validity.warnings.map((w) => `${shardName(s.slice)}: ${w}`)),
  ];
  const latenessOnly =
    reasons.length > 0 &&
    (v.valid || v.lateness_only === true) &&
    states.every((s) => s.validity.valid || s.validity.lateness_only === true);
  return {
    ...report,
    validity: {
      ...v,
      valid: reasons.length === 0,
      reasons,
      warnings: [...new Set(warnings)],
      ...(latenessOnly ? { lateness_only: true } : { lateness_only: false }),
    },
  };
}
