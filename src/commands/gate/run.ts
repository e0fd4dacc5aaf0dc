// One run of the gate, as the action, the CLI and the demo do it: the plan's
// settings → Config → servers → gate → results → results file. A bad setting
// is not thrown: it becomes an `error` results file that says which and why.
// Every secret the settings and the environment hold is redacted from the log
// lines and the results (response bodies, server log tails, guards).

import { errorMessage, InputError } from "../../common/errors.ts";
import { type Redact, redactDeep, redactor } from "../../common/redact.ts";
import { type Config, parseConfig } from "../../config/config.ts";
import { secretsOf } from "../../config/sources.ts";
import { runGate } from "../../gate/gate.ts";
import type { GateRun } from "../../gate/gate-run.ts";
import type { GateDeps } from "../../gate/options.ts";
import { headlineFor } from "../../report/headline.ts";
import { RequestsFile } from "../../requests/file.ts";
import {
  buildResults,
  type EnvironmentFacts,
  errorRun,
  type GateResults,
} from "../../results/model.ts";
import { lifecycleFor } from "../../servers/lifecycle.ts";
import type { ShardSection } from "../../shard/section.ts";
import { type CommandIo, withCancel } from "../io.ts";
import { PLACEHOLDER, type Watchdog, type WatchdogOptions } from "../watchdog.ts";
import { describeConfig } from "./describe.ts";
import { captureEnvironment } from "./environment.ts";
import { attempt, type RunPlan } from "./plan.ts";
import { mergeRun, shardRun } from "./shards.ts";

/** The io of a gate run, with stand-ins for its measurement in tests. */
export interface GateIo
  extends Omit<CommandIo, "stdout" | "stderr">,
    Omit<GateDeps, "signal" | "log" | "servers"> {
  log(line: string): void;
  /** The GitHub event that started the job: the results file records its pull request. */
  event?: Record<string, unknown>;
  /** The event-loop watchdog (the real one in the commands; none in tests that need no worker). */
  startWatchdog?: (options: WatchdogOptions) => Watchdog;
}

/**
 * A loop blocked this long ends the run: longer than any synchronous step a
 * legitimate run takes (parsing the largest trace file allowed).
 */
export const WATCHDOG_BOUND_MS = 120_000;

/** Results of a gate run, with its headline. */
export function resultsOf(
  run: GateRun,
  config: Config | null,
  environment: EnvironmentFacts,
  now: Date,
): GateResults {
  return buildResults(run, config && describeConfig(config), environment, now, headlineFor(run));
}

/** Opens the requests file the report settings ask for (none: null). */
function openRequests(config: Config, io: GateIo, redact: Redact): RequestsFile | null {
  const path = config.report.requestsPath;
  return path === null
    ? null
    : RequestsFile.open("requests-path", path, redact, io.openWriteStream);
}

async function gateResults(
  config: Config,
  io: GateIo,
  environment: EnvironmentFacts,
  requests: RequestsFile | null,
) {
  const g = config.gate;
  const servers = lifecycleFor(
    config.servers,
    { baseline: g.baseline.target, candidate: g.candidate.target },
    io.log,
  );
  const hooks = {
    // No new trial, the running one ends, the servers stop (hurried), the results are written.
    onFirst: (signal: string) => {
      io.log(
        `${signal}: cancelling: no new trial${servers ? "; stopping the servers the gate started" : ""}; writing the results`,
      );
      servers?.hurry();
    },
    onSecond: (signal: string) => {
      io.log(`${signal} again: killing the servers the gate started, and exiting`);
      servers?.killAll();
    },
  };
  const now = io.now ?? (() => new Date());
  if (g.mergeFrom !== undefined) {
    const at = { now: now(), resultsPath: config.report.resultsPath };
    const merged = mergeRun(config, g.mergeFrom, io, at);
    return {
      ...resultsOf(merged.run, config, environment, now()),
      shard_requests_files: merged.requestsFiles,
    };
  }
  let run: GateRun;
  let shard: ShardSection | undefined;
  try {
    run = await withCancel(io, hooks, async (cancel) => {
      const deps = {
        ...io,
        signal: cancel.signal,
        ...(servers ? { servers } : {}),
        ...(requests ? { requestRecord: requests.add, requestLine: requests.write } : {}),
      };
      if (!g.shard) return runGate(g, deps);
      const sharded = await shardRun(config, deps);
      shard = sharded.shard;
      return sharded.run;
    });
  } catch (error) {
    // What was written so far is flushed, whatever ended the run.
    await requests?.close();
    throw error;
  }
  const results = resultsOf(run, config, environment, now());
  return {
    ...results,
    requests_file: (await requests?.close()) ?? null,
    ...(shard ? { shard } : {}),
  };
}

export async function runGateCommand(plan: RunPlan, given: GateIo): Promise<GateResults> {
  const redact = redactor(secretsOf(plan.raw, given.env));
  let watchdog: Watchdog | undefined;
  const log = (line: string) => {
    const shown = redact(line);
    watchdog?.phase(shown);
    given.log(shown);
  };
  const io: GateIo = { ...given, log };
  const environment = captureEnvironment(io.env, io.event);
  const now = io.now ?? (() => new Date());
  const invalid = (error: InputError, code: "configuration" | "results_file" = "configuration") =>
    resultsOf(
      errorRun({ code, message: `invalid configuration: ${error.message}` }),
      null,
      environment,
      now(),
    );
  const path = plan.report.resultsPath;
  // Written before the first request (an unwritable path is found now, not after an
  // hour of trials) and replaced at the end: a crash, a kill or a hang leaves an
  // `error` results file, never an empty one.
  const unfinished = (reason: string) => unfinishedFile(environment, now(), redact, reason);
  try {
    io.writeFile(
      path,
      unfinished(
        "the run did not finish: it ended (killed, crashed or cancelled by the runner) before writing its results",
      ),
    );
  } catch (error) {
    const reason = `results-path = ${JSON.stringify(path)} cannot be written: ${errorMessage(error)}`;
    return redactDeep(invalid(new InputError(reason), "results_file"), redact);
  }
  watchdog = io.startWatchdog?.({
    boundMs: WATCHDOG_BOUND_MS,
    resultsPath: path,
    template: unfinished(PLACEHOLDER),
  });
  try {
    return await decideAndWrite(plan, io, { environment, redact, invalid, path });
  } finally {
    await watchdog?.stop();
  }
}

/** The unfinished results file, with its reason given. */
function unfinishedFile(
  environment: EnvironmentFacts,
  at: Date,
  redact: Redact,
  reason: string,
): string {
  const run = errorRun({ code: "unfinished", message: reason });
  return `${JSON.stringify(redactDeep(resultsOf(run, null, environment, at), redact), null, 2)}\n`;
}

async function decideAndWrite(
  plan: RunPlan,
  io: GateIo,
  at: {
    environment: EnvironmentFacts;
    redact: Redact;
    invalid: (error: InputError) => GateResults;
    path: string;
  },
): Promise<GateResults> {
  const { environment, redact, invalid, path } = at;
  let results: GateResults;
  if (plan.problem) results = invalid(plan.problem);
  else {
    const problems: InputError[] = [];
    const config = attempt<Config | undefined>(
      () => parseConfig(plan.raw, io.env, io.readFile),
      undefined,
      problems,
    );
    // A merge sends no request: it writes no requests file.
    const requests =
      config &&
      config.gate.mergeFrom === undefined &&
      attempt(() => openRequests(config, io, redact), null, problems);
    if (!config || problems.length > 0)
      results = invalid(problems[0] ?? new InputError("the configuration could not be read"));
    else
      try {
        results = await gateResults(config, io, environment, requests || null);
      } catch (error) {
        // A merge's shards that do not belong together: said like a bad setting.
        if (!(error instanceof InputError)) throw error;
        results = invalid(error);
      }
  }
  results = redactDeep(results, redact);
  io.writeFile(path, `${JSON.stringify(results, null, 2)}\n`);
  return results;
}
