// The GitHub Action: its inputs (from the settings table) → the mode's
// command: run, measure and report are the gate (commands/gate/action.ts),
// burst a lanes burst (commands/lanes/burst-action.ts). `runAction` takes
// everything it touches as a dependency, so tests run the action's path
// without the bundle; the bundle calls it with the real ones.

import * as core from "@actions/core";
import { type GateActionDeps, runGateAction } from "./commands/gate/action.ts";
import { runBurstAction } from "./commands/lanes/burst-action.ts";
import { startWatchdog } from "./commands/watchdog.ts";
import { isEntryModule } from "./common/entry.ts";
import { errorMessage, InputError } from "./common/errors.ts";
import { readInputFile } from "./common/files.ts";
import { writeOutputFile } from "./common/outputs.ts";
import { ACTION_SETTINGS, type RawSettings } from "./config/settings.ts";
import { githubApi } from "./github/octokit.ts";

export interface ActionInputs {
  /** An input's value ("" when not set), as core.getInput gives it. */
  input(name: string): string;
  /** A multi-line input's non-empty lines. */
  multilineInput(name: string): string[];
}

/** Everything the action touches. */
export type ActionDeps = ActionInputs & GateActionDeps;

function readInputs(deps: ActionDeps): RawSettings {
  const raw: RawSettings = {};
  for (const s of ACTION_SETTINGS) {
    const v = s.kind === "lines" ? deps.multilineInput(s.name) : deps.input(s.name);
    raw[s.name] = v;
    if (s.secret && typeof v === "string" && v !== "") deps.io.setSecret(v);
  }
  return raw;
}

export async function runAction(deps: ActionDeps): Promise<void> {
  const inputs = readInputs(deps);
  if (inputs.mode === "burst") await runBurstAction(inputs, deps);
  else await runGateAction(inputs, deps);
}

/** The real dependencies: @actions/core, the file system, GitHub's REST API. */
export function actionDeps(): ActionDeps {
  return {
    env: process.env,
    readFile: readInputFile,
    writeFile: writeOutputFile,
    startWatchdog,
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
