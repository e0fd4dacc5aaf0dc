// The GitHub Action entry: inputs (and the config file) → gate → results file
// → PR comment, job summary, outputs → step failure per `fail-on`.
// mode: run (measure and report), measure (results file only, for
// unprivileged fork jobs), report (read a results file and post); burst (a
// scheduled burst on the lanes of a lanes file: src/burst-action.ts).
// `runAction` takes everything it touches as a dependency, so tests run the
// action's path without the bundle; the bundle calls it with the real ones.

import { readFileSync, writeFileSync } from "node:fs";
import * as core from "@actions/core";
import { runBurstAction } from "./burst-action.ts";
import { isEntryModule } from "./common/entry.ts";
import { errorMessage, InputError } from "./common/errors.ts";
import { type RawSettings, settingsIn } from "./config/settings.ts";
import { secretsOf } from "./config/sources.ts";
import { type GitHubApi, githubApi } from "./github/octokit.ts";
import { type ActionIo, publish } from "./github/publish.ts";
import { type PipelineDeps, planRun, runPipeline } from "./pipeline.ts";
import type { GateResults } from "./report/results.ts";
import { trustResults } from "./report/untrusted.ts";

export interface ActionDeps extends Omit<PipelineDeps, "log"> {
  /** An input's value ("" when not set), as core.getInput gives it. */
  input(name: string): string;
  /** A multi-line input's non-empty lines. */
  multilineInput(name: string): string[];
  io: ActionIo & { setFailed(message: string): void; setSecret(value: string): void };
  githubApi(token: string): GitHubApi;
}

function readInputs(deps: ActionDeps): RawSettings {
  const raw: RawSettings = {};
  for (const s of settingsIn("trial", "sweep", "gate", "action")) {
    const v = "kind" in s && s.kind === "lines" ? deps.multilineInput(s.name) : deps.input(s.name);
    raw[s.name] = v;
    if ("secret" in s && s.secret && typeof v === "string" && v !== "") deps.io.setSecret(v);
  }
  return raw;
}

function readEvent(deps: ActionDeps): Record<string, unknown> {
  const path = deps.env.GITHUB_EVENT_PATH;
  if (!path) return {};
  try {
    const parsed: unknown = JSON.parse(deps.readFile(path));
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function readResults(path: string, deps: ActionDeps): GateResults {
  const source = `results-path = ${JSON.stringify(path)}`;
  let text: string;
  try {
    text = deps.readFile(path);
  } catch (error) {
    throw new InputError(`${source} cannot be read as a results file: ${errorMessage(error)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new InputError(`${source} cannot be read as a results file: ${errorMessage(error)}`);
  }
  // Written by another (unprivileged) job: checked, neutralized and re-decided.
  return trustResults(parsed, source);
}

export async function runAction(deps: ActionDeps): Promise<void> {
  const { io, env } = deps;
  // Not a gate: a scheduled burst on the lanes of a lanes file.
  if (deps.input("mode") === "burst") {
    if (deps.input("github-token")) io.setSecret(deps.input("github-token"));
    await runBurstAction(deps);
    return;
  }
  const inputs = readInputs(deps);
  const plan = planRun(inputs, deps.readFile);
  // Masked in the runner's log too: keys from the environment, credential headers.
  for (const secret of secretsOf(plan.raw, env)) if (secret) io.setSecret(secret);
  const log = (line: string) => io.info(line);
  let results: GateResults;
  const event = readEvent(deps);
  if (plan.mode === "report" && !plan.problem) {
    results = readResults(plan.report.resultsPath, deps);
  } else {
    results = await runPipeline(plan, { ...deps, log, event });
    if (!results.guards.some((g) => g.code === "results_file"))
      io.info(`results written to ${plan.report.resultsPath}`);
  }
  const token = inputs["github-token"] || env.GITHUB_TOKEN;
  const ctx = {
    env,
    eventPayload: event,
    api: typeof token === "string" && token !== "" ? deps.githubApi(token) : undefined,
  };
  await publish(results, plan.report, plan.report.resultsPath, ctx, io, plan.mode !== "measure");
  io.info(`llm-perf-gate: ${results.verdict} — ${results.headline}`);
  if (plan.report.failOn.includes(results.verdict)) {
    io.setFailed(`llm-perf-gate: ${results.verdict} — ${results.headline}`);
  }
}

/** The real dependencies: @actions/core, the file system, GitHub's REST API. */
export function actionDeps(): ActionDeps {
  return {
    env: process.env,
    readFile: (path) => readFileSync(path, "utf8"),
    writeFile: (path, text) => writeFileSync(path, text),
    input: (name) => core.getInput(name),
    multilineInput: (name) => core.getMultilineInput(name),
    githubApi,
    io: {
      setOutput: (name, value) => core.setOutput(name, value),
      info: (message) => core.info(message),
      warning: (message) => core.warning(message),
      error: (message) => core.error(message),
      setFailed: (message) => core.setFailed(message),
      setSecret: (value) => core.setSecret(value),
      writeSummary: async (markdown) => {
        await core.summary.addRaw(markdown).write();
      },
    },
  };
}

if (isEntryModule(import.meta.url)) {
  runAction(actionDeps()).catch((error: unknown) => {
    core.setFailed(
      error instanceof InputError ? error.message : `llm-perf-gate: ${errorMessage(error)}`,
    );
  });
}
