// What a gate run is given: its options, and its dependencies (the real ones
// by default; stand-ins in tests that measure nothing real).

import type { AccuracyDeps, AccuracyOptions } from "../accuracy/options.ts";
import type { CapacityOptions } from "../capacity/run.ts";
import type { Arm } from "../common/arms.ts";
import type { Order } from "../compare/plan.ts";
import type { DecisionOptions } from "../compare/verdict.ts";
import type { ContractDeps, ContractOptions } from "../contract/options.ts";
import type { JudgeOptions } from "../judge/options.ts";
import type { RequestRecord } from "../load/record.ts";
import { origin, requestHeaders, type Target } from "../openai/target.ts";
import type { QualityDeps, QualityOptions } from "../quality/options.ts";
import type { ReadDeps } from "../replicas/read.ts";
import type { RequestLine, TrialContext, TrialTag } from "../requests/line.ts";
import type { ServerMetricsOptions } from "../servermetrics/scraper.ts";
import { serverSlots } from "../servermetrics/slots.ts";
import type { Servers } from "../servers/lifecycle.ts";
import { type IdleCheck, type PreflightReport, preflight, waitIdle } from "../servers/preflight.ts";
import type {
  DrainOptions,
  ScalingOptions,
  SurgeOptions,
  TruncationOptions,
} from "../stress/options.ts";
import type { TrialDeps, TrialOptions, TrialReport } from "../trial/measure.ts";

export interface GateOptions {
  baseline: TrialOptions;
  candidate: TrialOptions;
  /** Pairs before the first look. */
  trials: number;
  /** Pairs at most: one more per look while a metric is inconclusive. */
  maxTrials: number;
  order: Order;
  cooldownS: number;
  /** Times a pair is run again when one of its trials fails its self-checks. */
  maxReruns: number;
  /** How long the idle check before a trial may wait for a busy server. */
  idleTimeoutS: number;
  decision: DecisionOptions;
  /** undefined: no quality suite. */
  quality: QualityOptions | undefined;
  /** undefined: no contract suite. */
  contract?: ContractOptions;
  /** undefined: no accuracy suite. */
  accuracy?: AccuracyOptions;
  /** undefined: no judge of open-ended answers. */
  judge?: JudgeOptions;
  /** undefined: no replay of answers cut short by load. */
  truncation?: TruncationOptions;
  /** undefined: no surge suite. */
  surge?: SurgeOptions;
  /** undefined: no scaling scenario. */
  scaling?: ScalingOptions;
  /** undefined: no drain probe (the gate does not start both servers). */
  drain?: DrainOptions;
  /** Run the side-suites before the pairs, and stop the pairs at the first look when one regressed. */
  failFast: boolean;
  /** What the configuration itself warns about how the run was set up (shown first). */
  setupNotes?: string[];
  /** undefined: a gate at the configured rate; else sweep both arms, then pairs at the baseline's capacity. */
  capacity: CapacityOptions | undefined;
  /** This run measures one slice of a sharded plan (and writes it for the merge). */
  shard?: ShardSettings;
  /** This run measures nothing: it merges the shards' results files in this directory and decides. */
  mergeFrom?: string;
}

/** This run's slice of a sharded plan. */
export interface ShardSettings {
  /** 0-based: this run's slice. */
  index: number;
  count: number;
  /** When the plan's first trial starts (Unix ms). */
  startAtUnixMs: number;
}

/** The checks of a server before trials: stand-ins in tests that measure nothing real. */
export interface ServerChecks {
  preflight(arm: Arm, target: Target, timeoutS: number): Promise<PreflightReport>;
  waitIdle(
    target: Target,
    idleTtftMs: number,
    timeoutS: number,
    metrics: ServerMetricsOptions | null,
  ): Promise<IdleCheck>;
  /** How many requests the server runs at once, where it says so (accuracy-concurrency auto); absent: never said. */
  slots?(target: Target): Promise<{ slots: number; source: string } | null>;
}

export const REAL_CHECKS: ServerChecks = {
  preflight,
  waitIdle,
  slots: (target) => serverSlots(origin(target), requestHeaders(target, false)),
};

export interface GateDeps extends QualityDeps, ContractDeps, AccuracyDeps {
  measureTrial?: (options: TrialOptions, deps: TrialDeps) => Promise<TrialReport>;
  /** Receives every measured request of every trial, with its trial (the requests file). */
  requestRecord?: (tag: TrialTag, r: RequestRecord, at: TrialContext) => void;
  /** Receives the line of every request sent apart from the trials (a side-suite's), for the requests file. */
  requestLine?: (line: RequestLine) => void;
  /** Aborted when the job is cancelled: no trial starts after it, the running one ends. */
  signal?: AbortSignal;
  log?: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
  /** A monotonic clock (ms): the capacity gate's max-duration, and what the run's parts took. */
  nowMs?: () => number;
  /** Starts, checks and stops the variants when the gate manages them. */
  servers?: Servers;
  checks?: ServerChecks;
  /** Reads a replica count between the scaling trials (tests: stand-ins). */
  readReplicas?: ReadDeps;
}

/** Thrown where a cancelled run stops; the gate keeps what was measured. */
export class Cancelled extends Error {
  override name = "Cancelled";
}
