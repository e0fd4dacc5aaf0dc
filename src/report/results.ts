// The results file: a versioned JSON document with the configuration
// (secrets redacted), the environment, every trial's measurement report, the
// comparisons, the guards and the verdict. Written whatever the verdict.

import { readFileSync, writeFileSync } from "node:fs";
import { arch, cpus, platform } from "node:os";
import pkg from "../../package.json" with { type: "json" };
import { ConfigError } from "../config/errors.ts";
import type { GateConfig, Verdict } from "../config/gate.ts";
import type { MeasureConfig } from "../config/measure.ts";
import { formatSlo } from "../config/slo.ts";
import { type GateOutcome, RESULTS_SCHEMA } from "../gate.ts";
import { describeWorkload } from "../workload/plan.ts";

export interface GateResults extends GateOutcome {
  schema: typeof RESULTS_SCHEMA;
  created_at: string;
  tool: { name: string; version: string };
  environment: Record<string, unknown>;
  config: Record<string, unknown>;
  verdict: Verdict;
}

function redactedTarget(c: MeasureConfig) {
  return {
    url: c.target.baseUrl,
    model: c.target.model,
    endpoint: c.target.endpoint,
    api_key: c.target.apiKey ? "***" : null,
    headers: Object.fromEntries(Object.keys(c.target.headers).map((k) => [k, "***"])),
    extra_body: c.target.extraBody,
    include_usage: c.target.includeUsage,
    temperature: c.target.temperature,
  };
}

export function describeConfig(config: GateConfig): Record<string, unknown> {
  return {
    baseline: redactedTarget(config.baseline),
    candidate: redactedTarget(config.candidate),
    workload: describeWorkload(config.baseline.workload),
    timeout_s: config.baseline.timeoutS,
    max_concurrency: config.baseline.maxConcurrency ?? null,
    slo: formatSlo(config.baseline.slo),
    self_check_limits: config.baseline.limits,
    trials: config.trials,
    max_trials: config.maxTrials,
    order: config.order,
    cooldown_s: config.cooldownS,
    percentile: config.percentile,
    tolerances: config.tolerances,
    decision_rule: config.rule,
    confidence: config.confidence,
    max_error_rate: config.maxErrorRate,
    max_trial_cv: config.maxTrialCv,
    min_ok_requests: config.minOkRequests,
    quality: config.quality.suite
      ? {
          suite: config.quality.suite.name,
          cases: config.quality.suite.cases.length,
          vllm_sampling: config.quality.vllmSampling,
          rule: config.quality.rule,
        }
      : null,
    // Whether the gate started the servers; the commands themselves may hold secrets.
    servers: {
      baseline_start: config.servers.commands.baseline !== undefined,
      candidate_start: config.servers.commands.candidate !== undefined,
      restart: config.servers.restart,
      ready_timeout_s: config.servers.readyTimeoutS,
      log_dir: config.servers.logDir,
    },
    fail_on: config.report.failOn,
  };
}

export function environment(env: Record<string, string | undefined>): Record<string, unknown> {
  return {
    node: process.version,
    platform: platform(),
    arch: arch(),
    cpus: cpus().length,
    runner: env.RUNNER_NAME
      ? { name: env.RUNNER_NAME, os: env.RUNNER_OS, arch: env.RUNNER_ARCH }
      : null,
    github: env.GITHUB_REPOSITORY
      ? {
          repository: env.GITHUB_REPOSITORY,
          sha: env.GITHUB_SHA,
          ref: env.GITHUB_REF,
          run_id: env.GITHUB_RUN_ID,
          event: env.GITHUB_EVENT_NAME,
        }
      : null,
  };
}

export function buildResults(
  config: GateConfig,
  outcome: GateOutcome,
  env: Record<string, string | undefined>,
  now = new Date(),
): GateResults {
  return { ...header(env, now), config: describeConfig(config), ...outcome };
}

function header(env: Record<string, string | undefined>, now: Date) {
  return {
    schema: RESULTS_SCHEMA as typeof RESULTS_SCHEMA,
    created_at: now.toISOString(),
    tool: { name: pkg.name, version: pkg.version },
    environment: environment(env),
  };
}

export function writeResults(path: string, results: unknown): void {
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);
}

/** Results for a run that could not measure at all (bad configuration): still a results file. */
export function errorResults(
  reason: string,
  env: Record<string, string | undefined>,
  now = new Date(),
): GateResults {
  return {
    ...header(env, now),
    config: {},
    trials: [],
    comparisons: [],
    guards: [reason],
    verdict: "error",
    headline: reason,
    pairs: 0,
    looks: 1,
    confidence_per_look: 0,
    pooled: { baseline: {}, candidate: {} },
    servers: [],
    quality: null,
  };
}

export function readResults(path: string): GateResults {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ConfigError(
      `results-path = ${JSON.stringify(path)} cannot be read as a results file: ${(error as Error).message}`,
    );
  }
  const schema = (parsed as { schema?: unknown })?.schema;
  if (schema !== RESULTS_SCHEMA) {
    throw new ConfigError(
      `results-path = ${JSON.stringify(path)} has schema ${JSON.stringify(schema)}; expected ${RESULTS_SCHEMA}`,
    );
  }
  return parsed as GateResults;
}
