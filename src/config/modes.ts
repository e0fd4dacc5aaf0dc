// The action's modes, and which action inputs each reads, so that one given
// to a mode that does not read it is named in a warning rather than silently
// ignored (its value is still checked by its rule: settings.ts checkEveryGiven).

import {
  ACTION_SETTINGS,
  given,
  type RawSettings,
  readChoice,
  type SettingName,
  settingsIn,
} from "./settings.ts";

export type Mode = "run" | "measure" | "report" | "burst";
const MODES: readonly Mode[] = ["run", "measure", "report", "burst"];

export function parseMode(raw: RawSettings): Mode {
  return readChoice(raw, "mode", MODES);
}

/** What a report job reads: the results file and how to post it (it measures nothing). */
const REPORT_READS: readonly SettingName[] = [
  "mode",
  "config",
  "github-token",
  "results-path",
  "requests-path",
  "report-html",
  "comment",
  "comment-key",
  "fail-on",
  "job-summary",
];
/** Read by mode burst only, though they are the action's and not the lanes scope's. */
const BURST_ONLY: readonly SettingName[] = ["lanes-history-branch", "lanes-issue"];
const LANES: readonly SettingName[] = settingsIn("lanes").map((s) => s.name);
/** What a burst reads: the lanes files, and where to keep the history and the issue. */
const BURST_READS: readonly SettingName[] = ["mode", "github-token", ...BURST_ONLY, ...LANES];

function readsOf(mode: Mode): (name: SettingName) => boolean {
  if (mode === "report") return (name) => REPORT_READS.includes(name);
  if (mode === "burst") return (name) => BURST_READS.includes(name);
  return (name) => !BURST_ONLY.includes(name) && !LANES.includes(name);
}

/** The action inputs given (non-empty) that `mode` does not read, in the table's order. */
export function unusedByMode(inputs: RawSettings, mode: Mode): string[] {
  const reads = readsOf(mode);
  return ACTION_SETTINGS.map((s) => s.name).filter(
    (name) => given(inputs, name) !== undefined && !reads(name),
  );
}

const WHY: Record<Mode, string> = {
  run: "mode burst reads it",
  measure: "mode burst reads it",
  report: "mode report re-decides the results file's own trials and posts them",
  burst: "mode burst reads the lanes file, not the gate's settings",
};

/** One warning naming them, or none. */
export function unusedNote(inputs: RawSettings, mode: Mode): string[] {
  const names = unusedByMode(inputs, mode);
  if (names.length === 0) return [];
  const one = names.length === 1;
  const gate = mode === "run" || mode === "measure";
  return [
    `${names.join(", ")} ${one ? "is" : "are"} set but not used by ${gate ? "a gate (modes run and measure)" : `mode ${mode}`}: ${WHY[mode]} — remove ${one ? "it" : "them"}, or run the mode that reads ${one ? "it" : "them"}`,
  ];
}
