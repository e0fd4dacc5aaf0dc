// Every setting, once: its name (the action input, the CLI flag and the config
// file key), its kind, its default and where it applies. Parsing, the CLI's
// flags, the secret list and the docs test (action.yml, README) derive from
// this table.

import { InputError } from "../common/errors.ts";

export type SettingKind = "text" | "boolean" | "lines";

/**
 * - endpoint: the `measure` command's URL (the gate has baseline-url and candidate-url)
 * - trial: how one measurement is made (`measure`, and both arms of the gate)
 * - sweep: how a rate sweep runs (`sweep`, and the gate: its pairs' re-runs, its capacity sweep)
 * - gate: the gate's own (action inputs and `gate` flags)
 * - action: action inputs only
 */
export type SettingScope = "endpoint" | "trial" | "sweep" | "gate" | "action";

export interface Setting {
  name: string;
  scope: SettingScope;
  kind?: SettingKind;
  /** As a user writes it; absent: no default, or one computed from other settings. */
  default?: string;
  /** Never written, never accepted in a config file, masked in the action. */
  secret?: boolean;
}

export const SETTINGS = [
  { name: "url", scope: "endpoint" },
  // Both arms' model and key, unless baseline-/candidate- ones are given.
  { name: "model", scope: "trial" },
  { name: "api-key", scope: "trial", secret: true },

  { name: "endpoint", scope: "trial", default: "chat" },
  { name: "header", scope: "trial", kind: "lines" },
  { name: "extra-body", scope: "trial" },
  { name: "no-usage", scope: "trial", kind: "boolean", default: "false" },
  { name: "temperature", scope: "trial", default: "0" },
  { name: "arrival", scope: "trial", default: "poisson" },
  { name: "rate", scope: "trial" },
  { name: "burstiness", scope: "trial", default: "1" },
  { name: "burst-size", scope: "trial" },
  { name: "burst-interval", scope: "trial" },
  { name: "requests", scope: "trial" },
  { name: "duration", scope: "trial", default: "30s" },
  { name: "warmup", scope: "trial", default: "2s" },
  { name: "seed", scope: "trial", default: "1" },
  { name: "input-len", scope: "trial", default: "256" },
  // Shared prefixes before each synthetic prompt: off with 0 groups.
  { name: "prefix-groups", scope: "trial", default: "0" },
  { name: "prefix-len", scope: "trial", default: "512" },
  { name: "prefix-pick", scope: "trial", default: "uniform" },
  // A model's tokenizer.json (or its directory) for exact synthetic prompt lengths.
  { name: "tokenizer", scope: "trial" },
  // Multi-turn sessions: the arrivals start sessions; 1 turn = single requests.
  { name: "turns", scope: "trial", default: "1" },
  { name: "think-time", scope: "trial", default: "0s" },
  // The later turns' user messages; default: input-len.
  { name: "turn-input-len", scope: "trial" },
  // A replayed trace instead of an arrival process and synthetic lengths.
  { name: "trace", scope: "trial" },
  { name: "trace-format", scope: "trial", default: "auto" },
  { name: "time-scale", scope: "trial", default: "1" },
  { name: "trace-start", scope: "trial", default: "0s" },
  { name: "max-requests", scope: "trial" },
  // Without a dataset only: a dataset keeps its own output lengths.
  { name: "output-len", scope: "trial", default: "128" },
  { name: "max-tokens", scope: "trial" },
  { name: "ignore-eos", scope: "trial", kind: "boolean", default: "false" },
  { name: "dataset", scope: "trial" },
  { name: "max-concurrency", scope: "trial" },
  { name: "slo", scope: "trial" },
  { name: "timeout", scope: "trial", default: "60s" },
  // Default: a quarter of max-ttft-regression in the gate (2.5 %), 2.5 % for `measure`.
  { name: "max-skew-effect", scope: "trial" },
  { name: "max-late-sends", scope: "trial", default: "1%" },
  { name: "max-unsent", scope: "trial", default: "0" },
  { name: "max-event-loop-delay-ms", scope: "trial", default: "20" },
  { name: "max-client-cpu", scope: "trial", default: "0.95" },
  // Absolute limits, off unless set: the checks above judge what lateness did.
  { name: "max-send-skew-ms", scope: "trial" },
  { name: "max-gc-share", scope: "trial" },
  // The baseline's (gate) or the endpoint's (measure) failure rate beyond which it is broken.
  { name: "max-error-rate", scope: "trial", default: "1%" },
  { name: "reliability-exclude", scope: "trial", default: "rate_limited_quota" },
  // The server's Prometheus metrics; default: the base URL's origin + /metrics.
  { name: "metrics-url", scope: "trial" },
  { name: "metrics-interval", scope: "trial", default: "1s" },
  { name: "metrics-runtime", scope: "trial", default: "auto" },

  { name: "max-reruns", scope: "sweep", default: "2" },
  { name: "sync-requests", scope: "sweep", default: "16" },
  { name: "offline-requests", scope: "sweep", default: "256" },
  { name: "sweep-points", scope: "sweep", default: "8" },
  { name: "capacity-resolution", scope: "sweep", default: "2%" },
  { name: "min-attainment", scope: "sweep", default: "0.99" },
  // No cap unless set.
  { name: "max-duration", scope: "sweep" },

  { name: "mode", scope: "action", default: "run" },
  { name: "github-token", scope: "action", secret: true },
  // mode: burst — one burst of a lanes file's lanes, its history kept and reported.
  { name: "lanes", scope: "action" },
  { name: "lanes-history", scope: "action", default: "llm-perf-gate-lanes.jsonl" },
  // Empty: the history file stays in the workspace (keep it as an artifact or a cache).
  { name: "lanes-history-branch", scope: "action" },
  { name: "lanes-issue", scope: "action", kind: "boolean", default: "false" },
  { name: "config", scope: "gate" },
  { name: "baseline-url", scope: "gate" },
  { name: "candidate-url", scope: "gate" },
  { name: "baseline-model", scope: "gate" },
  { name: "candidate-model", scope: "gate" },
  { name: "baseline-api-key", scope: "gate", secret: true },
  { name: "candidate-api-key", scope: "gate", secret: true },
  { name: "baseline-metrics-url", scope: "gate" },
  { name: "candidate-metrics-url", scope: "gate" },
  { name: "trials", scope: "gate", default: "3" },
  // Default: = trials.
  { name: "max-trials", scope: "gate" },
  { name: "order", scope: "gate", default: "abba" },
  { name: "cooldown", scope: "gate", default: "0" },
  { name: "idle-timeout", scope: "gate", default: "60s" },
  { name: "percentile", scope: "gate", default: "p95" },
  { name: "max-goodput-drop", scope: "gate", default: "5%" },
  { name: "max-ttft-regression", scope: "gate", default: "10%" },
  { name: "max-itl-regression", scope: "gate", default: "10%" },
  { name: "max-tpot-regression", scope: "gate" },
  { name: "max-e2el-regression", scope: "gate" },
  // Percentage points: 0.5% = the candidate may fail 0.5 % more of its requests.
  { name: "max-failure-increase", scope: "gate", default: "0.5%" },
  { name: "decision-rule", scope: "gate", default: "significant-and-material" },
  { name: "confidence", scope: "gate", default: "0.95" },
  { name: "max-trial-cv", scope: "gate", default: "10%" },
  { name: "min-ok-requests", scope: "gate", default: "10" },
  { name: "fail-on", scope: "gate", default: "fail,error" },
  { name: "comment", scope: "gate", default: "always" },
  { name: "comment-key", scope: "gate", default: "default" },
  { name: "job-summary", scope: "gate", kind: "boolean", default: "true" },
  { name: "results-path", scope: "gate", default: "llm-perf-gate-results.json" },
  { name: "baseline-start", scope: "gate" },
  { name: "candidate-start", scope: "gate" },
  { name: "baseline-stop", scope: "gate" },
  { name: "candidate-stop", scope: "gate" },
  { name: "restart", scope: "gate", default: "never" },
  { name: "ready-timeout", scope: "gate", default: "10m" },
  { name: "server-log-dir", scope: "gate", default: "llm-perf-gate-logs" },
  { name: "capacity", scope: "gate", kind: "boolean", default: "false" },
  { name: "max-capacity-drop", scope: "gate", default: "5%" },
  { name: "gate-rate-fraction", scope: "gate", default: "1" },
  { name: "quality-suite", scope: "gate", default: "builtin" },
  { name: "quality-vllm-sampling", scope: "gate", kind: "boolean", default: "false" },
  { name: "quality-confirm-reruns", scope: "gate", default: "2" },
  { name: "quality-alpha", scope: "gate", default: "0.05" },
  { name: "quality-min-effect", scope: "gate", default: "2%" },
  { name: "quality-large-effect", scope: "gate", default: "10%" },
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

/** The names of the action's inputs. */
export const ACTION_INPUTS: readonly SettingName[] = settingsIn(
  "trial",
  "sweep",
  "gate",
  "action",
).map((s) => s.name);

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
