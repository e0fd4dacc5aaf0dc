// The gate's settings merged (a config file, then the inputs or flags) and
// where its results go. A bad setting is kept as the plan's problem, not
// thrown: the run still writes an `error` results file that says which.

import { InputError } from "../../common/errors.ts";
import { parseReportSettings, type ReportSettings } from "../../config/config.ts";
import { type Mode, parseMode } from "../../config/modes.ts";
import { checkEveryGiven, given, type RawSettings } from "../../config/settings.ts";
import { mergeSettings, readConfigFile } from "../../config/sources.ts";
import type { ReadFile } from "../../config/workload.ts";

export interface RunPlan {
  raw: RawSettings;
  mode: Mode;
  report: ReportSettings;
  problem: InputError | undefined;
}

/** The parsed value, or the fallback with the problem kept. */
export function attempt<T>(parse: () => T, fallback: T, problems: InputError[]): T {
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
  // Every value given is checked by its own rule, whether this mode uses it or not: a bad
  // value is a mistake even where it would be ignored (report mode measures nothing).
  attempt(() => checkEveryGiven(raw), undefined, problems);
  // With a bad report setting the run still writes its results where it was asked to.
  const defaults = parseReportSettings({});
  const report = attempt(
    () => parseReportSettings(raw),
    {
      ...defaults,
      resultsPath: given(raw, "results-path") ?? defaults.resultsPath,
      requestsPath: null,
      htmlPath: null,
    },
    problems,
  );
  return { raw, mode, report, problem: problems[0] };
}
