// The results file: a versioned JSON document with the configuration (secrets
// redacted), the environment, every trial's measurement report, the
// comparisons, the guards, the verdict and its headline. Built here from plain
// data; the commands write it, and read it back (results/trust.ts).

import pkg from "../../package.json" with { type: "json" };
import type { Arm } from "../common/arms.ts";
import type { Guard } from "../common/guard.ts";
import type { Outcome } from "../common/outcomes.ts";
import type { PercentileKey, POOLED_METRICS } from "../common/percentiles.ts";
import type { SloRecord } from "../common/slo.ts";
import type { Budgets } from "../compare/budgets.ts";
import type { Tolerances } from "../compare/gated.ts";
import type { TrialEntry } from "../compare/trials.ts";
import type { Verdict } from "../compare/verdict.ts";
import { type GateRun, runRecord } from "../gate/gate-run.ts";
import type { SuiteConfig } from "../gate/suites.ts";
import type { LatencySummary } from "../metrics/histogram.ts";
import { poolHistograms } from "../metrics/pool.ts";
import type { LimitsReport } from "../metrics/summary.ts";
import type { RequestsFileSummary } from "../requests/file.ts";
import { compareServerViews, type ServerComparison } from "../servermetrics/compare.ts";
import type { ShardSection } from "../shard/section.ts";
import type { WorkloadDescription } from "../workload/describe.ts";

export const RESULTS_SCHEMA = "llm-perf-gate/results@4";

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
/** Each side-suite's settings (null: not run) as the results file records them. */
export interface ConfigDescription extends SuiteConfig {
  baseline: TargetDescription;
  candidate: TargetDescription;
  workload: WorkloadDescription;
  timeout_s: number;
  max_concurrency: number | null;
  slo: SloRecord;
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
  /** Absolute limits on the candidate (ms, a failure rate, req/s); absent in older files. */
  budgets?: Budgets;
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
    /** GITHUB_SERVER_URL: where the run's page (and its artifacts) is. */
    server_url?: string | undefined;
    event: string | undefined;
    /** The pull request the measuring job ran for: report mode checks it before commenting. */
    pull_request: { number: number; head_sha: string | null; head_repo: string | null } | null;
  } | null;
}

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
  /** The requests file (one line per measured request); absent or null: none written. */
  requests_file?: RequestsFileSummary | null;
  /** A merge of a sharded run: each shard's requests file, as the shard wrote it (absent otherwise). */
  shard_requests_files?: RequestsFileSummary[];
  /** A shard of a sharded run: its parts of every trial, for the merge (absent otherwise). */
  shard?: ShardSection;
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

/** The results file of a run; `config` null when the configuration could not be read. */
export function buildResults(
  run: GateRun,
  config: ConfigDescription | null,
  environment: EnvironmentFacts,
  now: Date,
  headline: string,
): GateResults {
  return {
    ...header(environment, now),
    config,
    headline,
    ...run,
    pooled: config === null ? null : pooledPercentiles(run.trials),
    server_view: config === null ? null : serverViewOf(run.trials),
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

/** The run of a gate that could not measure at all (a bad setting): nothing but its guard. */
export function errorRun(guard: Guard): GateRun {
  return runRecord({ guards: [guard], verdict: "error" });
}
