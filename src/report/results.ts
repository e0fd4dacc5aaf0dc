// The results file: a versioned JSON document with the configuration (secrets
// redacted), the environment, every trial's measurement report, the
// comparisons, the guards and the verdict. Built here from plain data; the
// entry points read and write it.

import pkg from "../../package.json" with { type: "json" };
import type { CapacityRun } from "../capacity/report.ts";
import type { Arm } from "../common/arms.ts";
import type { Guard } from "../common/guard.ts";
import type { Outcome } from "../common/outcomes.ts";
import type { PercentileKey } from "../common/percentiles.ts";
import type { MetricComparison } from "../compare/decide.ts";
import type { Tolerances } from "../compare/gated.ts";
import type { ReliabilityComparison } from "../compare/reliability.ts";
import type { TrialEntry } from "../compare/trials.ts";
import type { Verdict } from "../compare/verdict.ts";
import type { LatencySummary } from "../metrics/histogram.ts";
import { poolHistograms } from "../metrics/pool.ts";
import type { LimitsReport } from "../metrics/summary.ts";
import type { QualityReport } from "../quality/paired.ts";
import { compareServerViews, type ServerComparison } from "../servermetrics/compare.ts";
import type { StartRecord } from "../servers/lifecycle.ts";
import type { IdleCheck, PreflightReport } from "../servers/preflight.ts";
import type { WorkloadDescription } from "../workload/plan.ts";
import { headlineFor } from "./headline.ts";

export const RESULTS_SCHEMA = "llm-perf-gate/results@2";

/** What a gate run found: the results file but its header, configuration and the words. */
export interface GateRun {
  trials: TrialEntry[];
  comparisons: MetricComparison[];
  /** The failure rates of both arms, compared; null before any trial ran. */
  reliability: ReliabilityComparison | null;
  /** Why there is no performance verdict (empty when there is one). */
  guards: Guard[];
  verdict: Verdict;
  pairs: number;
  looks: number;
  confidence_per_look: number;
  /** Each arm's check before its first trial. */
  preflight: PreflightReport[];
  /** The idle check before each trial (busy: the server was still busy when the trial began). */
  idle_checks: IdleRecord[];
  /** Pairs run again because a trial failed its self-checks. */
  reruns: RerunRecord[];
  /** Servers the gate started: readiness, cold start, logs. */
  servers: StartRecord[];
  /** The quality suite's comparison, when one ran. */
  quality: QualityReport | null;
  /** Why the quality suite did not run, when it was asked for. */
  quality_skipped: string | null;
  /** What a reader must know about how this run was set up (shown first). */
  warnings: string[];
  /** The signal that cancelled the job (verdict cancelled), else null. */
  cancelled_by: string | null;
  /** A capacity gate's sweep of both arms and their capacities; null for a gate at a set rate. */
  capacity: CapacityRun | null;
}

export interface IdleRecord extends IdleCheck {
  pair: number;
  arm: Arm;
}

export interface RerunRecord {
  pair: number;
  /** 1 for the first re-run of the pair. */
  attempt: number;
  invalid: { arm: Arm; reasons: string[] }[];
}

export interface TargetDescription {
  url: string;
  model: string;
  endpoint: string;
  /** "***" when a key is set: the key itself is never written. */
  api_key: string | null;
  /** Header names; their values are "***". */
  headers: Record<string, string>;
  extra_body: Record<string, unknown>;
  include_usage: boolean;
  temperature: number;
  /** The server's metrics scraped beside each trial; null: not scraped. */
  metrics: { url: string; interval_s: number; runtime: string } | null;
}

/** The configuration as the results file records it: no secret, no command. */
export interface ConfigDescription {
  baseline: TargetDescription;
  candidate: TargetDescription;
  workload: WorkloadDescription;
  timeout_s: number;
  max_concurrency: number | null;
  slo: string;
  self_check_limits: LimitsReport;
  trials: number;
  max_trials: number;
  order: string;
  cooldown_s: number;
  max_reruns: number;
  idle_timeout_s: number;
  percentile: PercentileKey;
  tolerances: Tolerances;
  decision_rule: string;
  confidence: number;
  max_error_rate: number;
  max_trial_cv: number;
  min_ok_requests: number;
  max_failure_increase: number;
  reliability_exclude: Outcome[];
  quality: {
    suite: string;
    cases: number;
    vllm_sampling: boolean;
    rule: { alpha: number; min_effect: number; large_effect: number; confirm_reruns: number };
  } | null;
  /** Whether the gate started the servers; the commands themselves may hold secrets. */
  servers: {
    baseline_start: boolean;
    candidate_start: boolean;
    restart: string;
    ready_timeout_s: number;
    log_dir: string;
  };
  fail_on: Verdict[];
}

export interface EnvironmentFacts {
  node: string;
  platform: string;
  arch: string;
  cpus: number;
  runner: { name: string; os: string | undefined; arch: string | undefined } | null;
  github: {
    repository: string;
    sha: string | undefined;
    ref: string | undefined;
    run_id: string | undefined;
    event: string | undefined;
    /** The pull request the measuring job ran for: report mode checks it before commenting. */
    pull_request: { number: number; head_sha: string | null; head_repo: string | null } | null;
  } | null;
}

export const POOLED_METRICS = ["ttft_ms", "itl_ms", "tpot_ms", "e2el_ms"] as const;
export type PooledMetrics = Record<(typeof POOLED_METRICS)[number], LatencySummary>;

export interface GateResults extends GateRun {
  schema: typeof RESULTS_SCHEMA;
  created_at: string;
  tool: { name: string; version: string };
  environment: EnvironmentFacts;
  /** null when the configuration could not be read. */
  config: ConfigDescription | null;
  headline: string;
  /** Descriptive percentiles over all of an arm's requests: never used for the verdict. */
  pooled: Record<Arm, PooledMetrics> | null;
  /** The servers' own metrics over the paired trials; null when none were scraped. */
  server_view: ServerComparison | null;
}

const histogramKey = {
  ttft_ms: "ttft_us",
  itl_ms: "itl_us",
  tpot_ms: "tpot_us",
  e2el_ms: "e2el_us",
} as const;

export function pooledPercentiles(trials: readonly TrialEntry[]): Record<Arm, PooledMetrics> {
  const pool = (arm: Arm): PooledMetrics => {
    const mine = trials.filter((t) => t.arm === arm).map((t) => t.report);
    const metric = (m: (typeof POOLED_METRICS)[number]) =>
      poolHistograms(
        mine.map((r) => ({
          encoded: r.histograms[histogramKey[m]],
          summary: r.metrics[m],
          censorMs: r.workload.timeout_s * 1000,
        })),
      );
    return {
      ttft_ms: metric("ttft_ms"),
      itl_ms: metric("itl_ms"),
      tpot_ms: metric("tpot_ms"),
      e2el_ms: metric("e2el_ms"),
    };
  };
  return { baseline: pool("baseline"), candidate: pool("candidate") };
}

function header(environment: EnvironmentFacts, now: Date) {
  return {
    schema: RESULTS_SCHEMA,
    created_at: now.toISOString(),
    tool: { name: pkg.name, version: pkg.version },
    environment,
  } as const;
}

export function buildResults(
  run: GateRun,
  config: ConfigDescription,
  environment: EnvironmentFacts,
  now: Date,
): GateResults {
  return {
    ...header(environment, now),
    config,
    headline: headlineFor(run),
    ...run,
    pooled: pooledPercentiles(run.trials),
    server_view: serverViewOf(run.trials),
  };
}

export function serverViewOf(trials: readonly TrialEntry[]): ServerComparison | null {
  const inputs = (arm: Arm) =>
    trials
      .filter((t) => t.arm === arm)
      .map((t) => ({
        pair: t.pair,
        metrics: t.report.server_metrics,
        clientTtftMeanMs: t.report.metrics.ttft_ms.mean,
      }));
  return compareServerViews({ baseline: inputs("baseline"), candidate: inputs("candidate") });
}

/** Results for a run that could not measure at all (bad configuration): still a results file. */
export function errorResults(guard: Guard, environment: EnvironmentFacts, now: Date): GateResults {
  const run: GateRun = {
    trials: [],
    comparisons: [],
    reliability: null,
    guards: [guard],
    verdict: "error",
    pairs: 0,
    looks: 1,
    confidence_per_look: 0,
    preflight: [],
    idle_checks: [],
    reruns: [],
    servers: [],
    quality: null,
    quality_skipped: null,
    warnings: [],
    cancelled_by: null,
    capacity: null,
  };
  return {
    ...header(environment, now),
    config: null,
    headline: headlineFor(run),
    ...run,
    pooled: null,
    server_view: null,
  };
}
