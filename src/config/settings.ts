// Every setting, once: its name (the action input, the CLI flag and the config
// file key), its kind, its default, what it accepts, one line of help and where
// it applies. Parsing, the CLI's flags and --help, the secret list, action.yml
// and docs/inputs.md derive from this table (the tables are in table-*.ts).

import { InputError } from "../common/errors.ts";
import { parseAccepted } from "./accepts.ts";
import { type CommandName, SCOPES, type Setting, type SettingScope } from "./setting.ts";
import { ACCURACY_SETTINGS } from "./table-accuracy.ts";
import { GATE_SETTINGS, SWEEP_SETTINGS } from "./table-gate.ts";
import { JUDGE_SETTINGS } from "./table-judge.ts";
import { OTHER_SETTINGS } from "./table-other.ts";
import { SHARD_SETTINGS } from "./table-shard.ts";
import { STRESS_SETTINGS } from "./table-stress.ts";
import { CHECK_SETTINGS, REQUEST_SETTINGS } from "./table-trial.ts";

export type { Setting, SettingKind, SettingScope } from "./setting.ts";

export const SETTINGS = [
  ...REQUEST_SETTINGS,
  ...CHECK_SETTINGS,
  ...SWEEP_SETTINGS,
  ...GATE_SETTINGS,
  ...ACCURACY_SETTINGS,
  ...JUDGE_SETTINGS,
  ...STRESS_SETTINGS,
  ...SHARD_SETTINGS,
  ...OTHER_SETTINGS,
] as const satisfies readonly Setting[];

type Entry = (typeof SETTINGS)[number];
export type SettingName = Entry["name"];

const BY_NAME = new Map<string, Setting>(SETTINGS.map((s) => [s.name, s]));

export function setting(name: string): Setting | undefined {
  return BY_NAME.get(name);
}

export function settingsIn(...scopes: SettingScope[]): Entry[] {
  return SETTINGS.filter((s) => scopes.some((scope) => scope === s.scope));
}

/** The settings that are the action's inputs. */
export const ACTION_SETTINGS: readonly (Setting & { name: SettingName })[] = SETTINGS.filter(
  (s) => SCOPES[s.scope].action,
);
export const ACTION_INPUTS: readonly string[] = ACTION_SETTINGS.map((s) => s.name);

/** The settings a command takes as flags. */
export function commandSettings(command: CommandName): Setting[] {
  return SETTINGS.filter((s) => (SCOPES[s.scope].commands as readonly string[]).includes(command));
}

/** Raw settings as strings (flags, action inputs, a config file); lists for `lines` ones. */
export type RawSettings = Partial<Record<string, string | string[]>>;

/** The value given for a setting: the last one of a list, trimmed; empty is not given. */
export function given(raw: RawSettings, name: SettingName): string | undefined {
  const v = raw[name];
  const s = Array.isArray(v) ? v.at(-1) : v;
  return s === undefined || s.trim() === "" ? undefined : s.trim();
}

/** The value given, else the table's default. */
export function value(raw: RawSettings, name: SettingName): string | undefined {
  return given(raw, name) ?? setting(name)?.default;
}

/** The value of a setting the table has a default for. */
export function defaulted(raw: RawSettings, name: SettingName): string {
  const v = value(raw, name);
  if (v === undefined) throw new Error(`internal error: ${name} has no default`);
  return v;
}

/** Fails on the first of `names` that is given: a setting the rest of the settings make meaningless. */
export function refuseGiven(
  raw: RawSettings,
  names: readonly SettingName[],
  why: (name: SettingName, value: string) => string,
): void {
  for (const name of names) {
    const v = given(raw, name);
    if (v !== undefined) throw new InputError(why(name, v));
  }
}

/** Every line given for a `lines` setting. */
export function lines(raw: RawSettings, name: SettingName): string[] {
  const v = raw[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

/** A value parsed by its setting's rule in the table (an internal error for a name not in it). */
function accepted(name: SettingName, text: string): number | boolean | string {
  const s = setting(name);
  if (!s) throw new Error(`internal error: no setting ${name}`);
  return parseAccepted(name, text, s.accepts);
}

function asNumber(name: SettingName, v: number | boolean | string): number {
  if (typeof v !== "number") throw new Error(`internal error: ${name} is not a number setting`);
  return v;
}

/** The value given for a setting that must be given: `what` says what it is for. */
export function requiredText(raw: RawSettings, name: SettingName, what: string): string {
  const v = given(raw, name);
  if (v === undefined) throw new InputError(`${name} is required: ${what}`);
  return v;
}

/** A number, duration (seconds) or fraction setting: the value given, else its default. */
export function readNumber(raw: RawSettings, name: SettingName): number {
  return asNumber(name, accepted(name, defaulted(raw, name)));
}

/** A number, duration or fraction setting without a default: undefined when not given. */
export function optionalNumber(raw: RawSettings, name: SettingName): number | undefined {
  const v = given(raw, name);
  return v === undefined ? undefined : asNumber(name, accepted(name, v));
}

/** A number, duration or fraction setting that must be given: `what` says what it is for. */
export function requiredNumber(raw: RawSettings, name: SettingName, what: string): number {
  return asNumber(name, accepted(name, requiredText(raw, name, what)));
}

export function readBoolean(raw: RawSettings, name: SettingName): boolean {
  const v = accepted(name, defaulted(raw, name));
  if (typeof v !== "boolean") throw new Error(`internal error: ${name} is not a boolean setting`);
  return v;
}

/** One of `choices` (the caller's typed list; the table's rule checks the value). */
function oneOf<T extends string>(name: SettingName, v: string, choices: readonly T[]): T {
  const found = choices.find((c) => c === v);
  if (found === undefined) throw new Error(`internal error: ${name} = ${v} is not in its choices`);
  return found;
}

/** A choice setting's value, one of `choices` (the table's list, typed by the caller). */
export function readChoice<T extends string>(
  raw: RawSettings,
  name: SettingName,
  choices: readonly T[],
): T {
  return oneOf(name, String(accepted(name, defaulted(raw, name))), choices);
}

/** A list setting's values, each one of `choices`. */
export function readList<T extends string>(
  raw: RawSettings,
  name: SettingName,
  choices: readonly T[],
): T[] {
  const v = String(accepted(name, defaulted(raw, name)));
  return v
    .split(",")
    .filter(Boolean)
    .map((x) => oneOf(name, x, choices));
}

/** Every value given checked by its own rule, used in this mode or not: a bad one is a mistake either way. */
export function checkEveryGiven(raw: RawSettings): void {
  for (const [name, v] of Object.entries(raw)) {
    const rule = setting(name);
    for (const text of Array.isArray(v) ? v : [v]) {
      if (rule && typeof text === "string" && text.trim() !== "")
        parseAccepted(name, text.trim(), rule.accepts);
    }
  }
}
