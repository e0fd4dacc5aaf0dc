// One run of the gate, as the action, the CLI and the demo do it: settings →
// Config → servers → gate → results → results file. A bad setting is not
// thrown: it becomes an `error` results file that says which and why.

import { arch, cpus, platform } from "node:os";
import { InputError } from "./common/errors.ts";
import {
  type Config,
  type Mode,
  parseConfig,
  parseMode,
  parseReportSettings,
  type ReportSettings,
} from "./config/config.ts";
import { describeConfig } from "./config/describe.ts";
import type { ReadFile } from "./config/measure.ts";
import { given, type RawSettings } from "./config/settings.ts";
import { mergeSettings, readConfigFile } from "./config/sources.ts";
import { type GateDeps, runGate } from "./gate/gate.ts";
import {
  buildResults,
  type EnvironmentFacts,
  errorResults,
  type GateResults,
} from "./report/results.ts";
import { lifecycleFor, type ServerLifecycle } from "./servers/lifecycle.ts";

/** The merged settings and where the results go; a bad setting is kept as the problem. */
export interface RunPlan {
  raw: RawSettings;
  mode: Mode;
  report: ReportSettings;
  problem: InputError | undefined;
}

/** Stops the started servers when the process is cancelled; returns what removes it. */
export type OnCancel = (servers: ServerLifecycle, log: (line: string) => void) => () => void;

export interface PipelineDeps extends GateDeps {
  env: Record<string, string | undefined>;
  readFile: ReadFile;
  writeFile: (path: string, text: string) => void;
  log: (line: string) => void;
  now?: () => Date;
  onCancel?: OnCancel;
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

export function captureEnvironment(env: Record<string, string | undefined>): EnvironmentFacts {
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

/**
 * When the runner cancels the job (SIGINT, SIGTERM), stop what was started
 * before exiting.
 */
export const stopOnSignals: OnCancel = (servers, log) => {
  const handler = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping the servers the gate started`);
    servers.stopAll().finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
  };
  process.once("SIGINT", handler);
  process.once("SIGTERM", handler);
  return () => {
    process.off("SIGINT", handler);
    process.off("SIGTERM", handler);
  };
};

async function gateResults(config: Config, deps: PipelineDeps, environment: EnvironmentFacts) {
  const g = config.gate;
  const servers = lifecycleFor(
    config.servers,
    { baseline: g.baseline.target, candidate: g.candidate.target },
    deps.log,
  );
  const release = servers ? (deps.onCancel ?? stopOnSignals)(servers, deps.log) : () => {};
  try {
    const run = await runGate(g, { ...deps, ...(servers ? { servers } : {}) });
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

/** Runs the gate the plan describes and writes its results file, whatever the verdict. */
export async function runPipeline(plan: RunPlan, deps: PipelineDeps): Promise<GateResults> {
  const environment = captureEnvironment(deps.env);
  const now = deps.now ?? (() => new Date());
  const invalid = (error: InputError) =>
    errorResults(
      { code: "configuration", message: `invalid configuration: ${error.message}` },
      environment,
      now(),
    );
  let results: GateResults;
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
  deps.writeFile(plan.report.resultsPath, `${JSON.stringify(results, null, 2)}\n`);
  return results;
}
