// What the settings table says of each setting, and where each group of
// settings applies: which commands take it as a flag, whether the action takes
// it as an input.

import type { Accepts } from "./accepts.ts";

export type SettingKind = "text" | "boolean" | "lines";

export const COMMAND_NAMES = [
  "gate",
  "measure",
  "sweep",
  "burst",
  "lanes-report",
  "report",
  "mock",
  "demo",
] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

/** Each group of settings: the commands whose flags they are, and whether they are action inputs. */
export const SCOPES = {
  /** The `measure` and `sweep` endpoint (the gate has baseline-url and candidate-url). */
  endpoint: { commands: ["measure", "sweep"], action: false },
  /** How one measurement is made. */
  trial: { commands: ["measure", "sweep", "gate"], action: true },
  /** How a rate sweep runs (and re-runs): `sweep`, and the gate's capacity phase and re-runs. */
  sweep: { commands: ["sweep", "gate"], action: true },
  gate: { commands: ["gate"], action: true },
  action: { commands: [], action: true },
  lanes: { commands: ["burst", "lanes-report"], action: true },
  "lanes-cli": { commands: ["burst", "lanes-report"], action: false },
  "report-file": { commands: ["measure", "sweep", "lanes-report"], action: false },
  progress: { commands: ["measure"], action: false },
  /** The HTML page of a run (the gate's is report-html). */
  html: { commands: ["measure", "sweep", "report"], action: false },
  /** What `report` draws from. */
  report: { commands: ["report"], action: false },
  mock: { commands: ["mock"], action: false },
} as const satisfies Record<string, { commands: readonly CommandName[]; action: boolean }>;
export type SettingScope = keyof typeof SCOPES;

export interface Setting {
  name: string;
  scope: SettingScope;
  /** text (default): one value; boolean: a switch; lines: repeatable, or several lines. */
  kind?: SettingKind;
  /** As a user writes it; absent: no default, or one computed from other settings (the help says which). */
  default?: string;
  /** One line: what it does. */
  help: string;
  /** What it accepts: the bounds the value is checked against. */
  accepts: Accepts;
  /** Never written, never accepted in a config file, masked in the action. */
  secret?: boolean;
  /** Other flag names the CLI accepts for it. */
  aliases?: readonly string[];
}
