// The GitHub Action entry: inputs (and the config file) → gate → results file
// → PR comment, job summary, outputs → step failure per `fail-on`.
// mode: run (measure and report), measure (results file only, for
// unprivileged fork jobs), report (read a results file and post).

import { readFileSync } from "node:fs";
import * as core from "@actions/core";
import { ConfigError } from "./config/errors.ts";
import {
  GATE_KEYS,
  MEASURE_KEYS,
  mergeSettings,
  parseGateConfig,
  parseMode,
  parseReportSettings,
  readConfigFile,
} from "./config/gate.ts";
import type { RawSettings } from "./config/measure.ts";
import { runGate } from "./gate.ts";
import { githubApi } from "./github/octokit.ts";
import { type ActionIo, publish } from "./github/publish.ts";
import {
  buildResults,
  errorResults,
  type GateResults,
  readResults,
  writeResults,
} from "./report/results.ts";
import { lifecycleFor, stopOnSignals } from "./servers/lifecycle.ts";

const SECRET_INPUTS = ["api-key", "baseline-api-key", "candidate-api-key", "github-token"];

function readInputs(): RawSettings {
  const raw: RawSettings = {};
  for (const key of [...GATE_KEYS, ...MEASURE_KEYS]) {
    raw[key] = key === "header" ? core.getMultilineInput(key) : core.getInput(key);
    const v = raw[key];
    if (SECRET_INPUTS.includes(key) && typeof v === "string" && v !== "") core.setSecret(v);
  }
  return raw;
}

function readEvent(path: string | undefined): Record<string, unknown> {
  if (!path) return {};
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  } catch {
    return {};
  }
}

const io: ActionIo = {
  setOutput: (name, value) => core.setOutput(name, value),
  info: (message) => core.info(message),
  warning: (message) => core.warning(message),
  error: (message) => core.error(message),
  writeSummary: async (markdown) => {
    await core.summary.addRaw(markdown).write();
  },
};

async function run(): Promise<void> {
  const env = process.env;
  const inputs = readInputs();
  const configPath =
    typeof inputs.config === "string" && inputs.config !== "" ? inputs.config : undefined;
  const raw = mergeSettings(
    configPath ? readConfigFile(configPath, (p) => readFileSync(p, "utf8")) : {},
    inputs,
  );
  const mode = parseMode(raw);
  const settings = parseReportSettings(raw);
  const token = (inputs["github-token"] as string) || env.GITHUB_TOKEN;
  const ctx = {
    env,
    eventPayload: readEvent(env.GITHUB_EVENT_PATH),
    api: token ? githubApi(token) : undefined,
  };

  let results: GateResults;
  if (mode === "report") {
    results = readResults(settings.resultsPath);
  } else {
    try {
      const config = parseGateConfig(raw, env);
      const log = (line: string) => core.info(line);
      const servers = lifecycleFor(config, log);
      const release = servers ? stopOnSignals(servers, log) : () => {};
      try {
        results = buildResults(
          config,
          await runGate(config, { log, ...(servers ? { servers } : {}) }),
          env,
        );
      } finally {
        release();
      }
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      results = errorResults(`invalid configuration: ${error.message}`, env);
    }
    writeResults(settings.resultsPath, results);
    core.info(`results written to ${settings.resultsPath}`);
  }
  await publish(results, settings, settings.resultsPath, ctx, io, mode !== "measure");
  core.info(`llm-perf-gate: ${results.verdict} — ${results.headline}`);
  if (settings.failOn.includes(results.verdict)) {
    core.setFailed(`llm-perf-gate: ${results.verdict} — ${results.headline}`);
  }
}

run().catch((error: unknown) => {
  core.setFailed(
    error instanceof ConfigError
      ? error.message
      : `llm-perf-gate: ${(error as Error).message ?? error}`,
  );
});
