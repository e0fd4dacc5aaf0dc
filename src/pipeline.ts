// One run of the gate, as the action, the CLI and the demo do it: settings →
// Config → servers → gate → results → results file. A bad setting is not
// thrown: it becomes an `error` results file that says which and why.

import { arch, cpus, platform } from "node:os";
import { errorMessage, InputError } from "./common/errors.ts";
import { redactDeep, redactor } from "./common/redact.ts";
import {
  type Config,
  type Mode,
  parseConfig,
  parseMode,
  parseReportSettings,
  type ReportSettings,
} from "./config/config.ts";
import { describeConfig } from "./config/describe.ts";
import { given, type RawSettings } from "./config/settings.ts";
import { mergeSettings, readConfigFile, secretsOf } from "./config/sources.ts";
import type { ReadFile } from "./config/trial.ts";
import { type GateDeps, runGate } from "./gate/gate.ts";
import {
  buildResults,
  type EnvironmentFacts,
  errorResults,
  type GateResults,
} from "./report/results.ts";
import { lifecycleFor } from "./servers/lifecycle.ts";

/** The merged settings and where the results go; a bad setting is kept as the problem. */
export interface RunPlan {
  raw: RawSettings;
  mode: Mode;
  report: ReportSettings;
  problem: InputError | undefined;
}

/** Where cancellation comes from: the runner's SIGINT and SIGTERM, in production. */
export interface Signals {
  /** Calls onSignal on each signal; returns what stops listening. */
  listen(onSignal: (signal: NodeJS.Signals) => void): () => void;
}

export const PROCESS_SIGNALS: Signals = {
  listen(onSignal) {
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    return () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    };
  },
};

export interface PipelineDeps extends GateDeps {
  env: Record<string, string | undefined>;
  readFile: ReadFile;
  writeFile: (path: string, text: string) => void;
  log: (line: string) => void;
  /** The GitHub event that started the job: the results file records its pull request. */
  event?: Record<string, unknown>;
  now?: () => Date;
  signals?: Signals;
  /** Ends the process after a second signal (process.exit by default). */
  exit?: (code: number) => void;
}

function attempt<T>(parse: () => T, fallback: T, problems: InputError[]): T {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    problems.push(error);
    return fallback;
  }
}

export function planRun(overrides: RawSettings, readFile: ReadFile): RunPlan {
  const problems: InputError[] = [];
  const configPath = given(overrides, "config");
  const raw = attempt(
    () => mergeSettings(configPath ? readConfigFile(configPath, readFile) : {}, overrides),
    overrides,
    problems,
  );
  const mode = attempt(() => parseMode(raw), "run", problems);
  // With a bad report setting the run still writes its results where it was asked to.
  const defaults = parseReportSettings({});
  const report = attempt(
    () => parseReportSettings(raw),
    { ...defaults, resultsPath: given(raw, "results-path") ?? defaults.resultsPath },
    problems,
  );
  return { raw, mode, report, problem: problems[0] };
}

/** The pull request of a pull_request event, as the results file carries it. */
function pullRequestOf(event: Record<string, unknown> | undefined) {
  const pr = event?.pull_request;
  if (typeof pr !== "object" || pr === null || !("number" in pr) || typeof pr.number !== "number")
    return null;
  const head = "head" in pr && typeof pr.head === "object" && pr.head !== null ? pr.head : {};
  const sha = "sha" in head && typeof head.sha === "string" ? head.sha : null;
  const repo =
    "repo" in head &&
    typeof head.repo === "object" &&
    head.repo !== null &&
    "full_name" in head.repo
      ? String(head.repo.full_name)
      : null;
  return { number: pr.number, head_sha: sha, head_repo: repo };
}

export function captureEnvironment(
  env: Record<string, string | undefined>,
  event?: Record<string, unknown>,
): EnvironmentFacts {
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
          pull_request: pullRequestOf(event),
        }
      : null,
  };
}

async function gateResults(config: Config, deps: PipelineDeps, environment: EnvironmentFacts) {
  const g = config.gate;
  const servers = lifecycleFor(
    config.servers,
    { baseline: g.baseline.target, candidate: g.candidate.target },
    deps.log,
  );
  // The first signal cancels: no new trial, the running one ends, the servers
  // stop (hurried), the results are written and posted. A second one (GitHub's
  // SIGTERM 7.5 s after its SIGINT) kills the servers' process groups and exits.
  const controller = new AbortController();
  let signals = 0;
  const release = (deps.signals ?? PROCESS_SIGNALS).listen((signal) => {
    if (++signals === 1) {
      deps.log(
        `${signal}: cancelling: no new trial${servers ? "; stopping the servers the gate started" : ""}; writing the results`,
      );
      servers?.hurry();
      controller.abort(signal);
      return;
    }
    deps.log(`${signal} again: killing the servers the gate started, and exiting`);
    servers?.killAll();
    (deps.exit ?? ((code) => process.exit(code)))(signal === "SIGINT" ? 130 : 143);
  });
  try {
    const run = await runGate(g, {
      ...deps,
      signal: controller.signal,
      ...(servers ? { servers } : {}),
    });
    return buildResults(
      run,
      describeConfig(config),
      environment,
      (deps.now ?? (() => new Date()))(),
    );
  } finally {
    release();
  }
}

/**
 * Runs the gate the plan describes and writes its results file, whatever the
 * verdict. Every secret the settings and the environment hold is redacted from
 * the log lines and the results (response bodies, server log tails, guards).
 */
export async function runPipeline(plan: RunPlan, given: PipelineDeps): Promise<GateResults> {
  const redact = redactor(secretsOf(plan.raw, given.env));
  const deps: PipelineDeps = { ...given, log: (line) => given.log(redact(line)) };
  const environment = captureEnvironment(deps.env, deps.event);
  const now = deps.now ?? (() => new Date());
  const invalid = (error: InputError, code: "configuration" | "results_file" = "configuration") =>
    errorResults({ code, message: `invalid configuration: ${error.message}` }, environment, now());
  let results: GateResults;
  const path = plan.report.resultsPath;
  try {
    // Found before the first request, not after an hour of trials.
    deps.writeFile(path, "");
  } catch (error) {
    const reason = `results-path = ${JSON.stringify(path)} cannot be written: ${errorMessage(error)}`;
    return redactDeep(invalid(new InputError(reason), "results_file"), redact);
  }
  if (plan.problem) {
    results = invalid(plan.problem);
  } else {
    const problems: InputError[] = [];
    const config = attempt<Config | undefined>(
      () => parseConfig(plan.raw, deps.env, deps.readFile),
      undefined,
      problems,
    );
    results = config
      ? await gateResults(config, deps, environment)
      : invalid(problems[0] as InputError);
  }
  results = redactDeep(results, redact);
  deps.writeFile(plan.report.resultsPath, `${JSON.stringify(results, null, 2)}\n`);
  return results;
}
