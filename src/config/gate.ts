// The gate's settings: action inputs, `gate` flags and a YAML/JSON config
// file share one set of kebab-case names; inputs and flags override the file.
// Everything is validated before any request is sent.

import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import type { DecisionRule } from "../compare/decide.ts";
import { ORDERS, type Order } from "../compare/plan.ts";
import { BUILTIN_SUITE_YAML } from "../quality/builtin.ts";
import type { QualityRule } from "../quality/compare.ts";
import { parseSuite, type Suite } from "../quality/suite.ts";
import { ConfigError, rejectValue } from "./errors.ts";
import {
  type MeasureConfig,
  parseMeasureConfig,
  type RawSettings,
  type ReadFile,
  settingValue,
} from "./measure.ts";
import { parseBoolean, parseChoice, parseDurationS, parseNumber } from "./values.ts";

export const VERDICTS = ["pass", "inconclusive", "fail", "error"] as const;
export type Verdict = (typeof VERDICTS)[number];
export type Mode = "run" | "measure" | "report";
export type CommentPolicy = "always" | "on-regression" | "never";

/** The settings `measure` has, shared by both arms. */
export const MEASURE_KEYS = [
  "endpoint",
  "header",
  "extra-body",
  "no-usage",
  "temperature",
  "arrival",
  "rate",
  "burstiness",
  "burst-size",
  "burst-interval",
  "requests",
  "duration",
  "warmup",
  "seed",
  "input-len",
  "output-len",
  "max-tokens",
  "ignore-eos",
  "dataset",
  "max-concurrency",
  "slo",
  "timeout",
  "max-send-skew-ms",
  "max-unsent",
  "max-event-loop-delay-ms",
  "max-gc-share",
  "max-client-cpu",
] as const;

export const GATE_KEYS = [
  "mode",
  "config",
  "baseline-url",
  "candidate-url",
  "model",
  "baseline-model",
  "candidate-model",
  "api-key",
  "baseline-api-key",
  "candidate-api-key",
  "trials",
  "max-trials",
  "order",
  "cooldown",
  "percentile",
  "max-goodput-drop",
  "max-ttft-regression",
  "max-itl-regression",
  "max-tpot-regression",
  "max-e2el-regression",
  "max-success-rate-drop",
  "decision-rule",
  "confidence",
  "max-error-rate",
  "max-trial-cv",
  "min-ok-requests",
  "fail-on",
  "comment",
  "comment-key",
  "github-token",
  "job-summary",
  "results-path",
  "baseline-start",
  "candidate-start",
  "baseline-stop",
  "candidate-stop",
  "restart",
  "ready-timeout",
  "server-log-dir",
  "quality-suite",
  "quality-vllm-sampling",
  "quality-confirm-reruns",
  "quality-alpha",
  "quality-min-effect",
  "quality-large-effect",
] as const;

/** Settings a config file must not hold: secrets belong in inputs or the environment. */
const SECRET_KEYS = new Set(["api-key", "baseline-api-key", "candidate-api-key", "github-token"]);

export const PERCENTILES = {
  p50: "p50",
  p90: "p90",
  p95: "p95",
  p99: "p99",
  "p99.9": "p999",
  p999: "p999",
} as const;
export type PercentileKey = (typeof PERCENTILES)[keyof typeof PERCENTILES];

export interface Tolerances {
  goodput: number;
  ttft: number;
  itl: number;
  tpot: number | undefined;
  e2el: number | undefined;
  successRate: number | undefined;
}

export interface ReportSettings {
  failOn: Verdict[];
  comment: CommentPolicy;
  commentKey: string;
  jobSummary: boolean;
  resultsPath: string;
}

export interface ServerSettings {
  commands: Partial<Record<"baseline" | "candidate", { start: string; stop: string | undefined }>>;
  restart: "never" | "per-trial";
  readyTimeoutS: number;
  logDir: string;
}

export interface QualitySettings {
  /** undefined: no quality checks (quality-suite: none). */
  suite: Suite | undefined;
  vllmSampling: boolean;
  rule: QualityRule;
}

export interface GateConfig {
  mode: Mode;
  baseline: MeasureConfig;
  candidate: MeasureConfig;
  trials: number;
  maxTrials: number;
  order: Order;
  cooldownS: number;
  percentile: PercentileKey;
  tolerances: Tolerances;
  rule: DecisionRule;
  confidence: number;
  maxErrorRate: number;
  maxTrialCv: number;
  minOkRequests: number;
  servers: ServerSettings;
  quality: QualitySettings;
  report: ReportSettings;
}

const ALL_KEYS = new Set<string>([...MEASURE_KEYS, ...GATE_KEYS]);

/** "5%" or a fraction "0.05". */
export function parseFraction(name: string, raw: string, max = 1): number {
  const t = raw.trim();
  const m = t.match(/^(\d+(?:\.\d+)?)\s*%$/);
  const v = m ? Number(m[1]) / 100 : /^\d+(\.\d+)?$/.test(t) ? Number(t) : Number.NaN;
  if (!(Number.isFinite(v) && v >= 0 && v <= max)) {
    throw rejectValue(
      name,
      raw,
      `a percentage such as 5% or a fraction such as 0.05, at most ${max * 100}%`,
    );
  }
  return v;
}

/** Reads the config file named by `config` (YAML or JSON) into raw settings. */
export function readConfigFile(path: string, readFile: ReadFile): RawSettings {
  let parsed: unknown;
  try {
    parsed = parseYaml(readFile(path));
  } catch (error) {
    throw new ConfigError(
      `config = ${JSON.stringify(path)} cannot be read as YAML or JSON: ${(error as Error).message}`,
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(
      `config ${path}: expected a mapping of settings (kebab-case keys, as the inputs)`,
    );
  }
  const raw: RawSettings = {};
  for (const [key, v] of Object.entries(parsed)) {
    if (!ALL_KEYS.has(key)) {
      throw new ConfigError(
        `config ${path}: unknown setting "${key}"; accepted: ${[...ALL_KEYS].sort().join(", ")}`,
      );
    }
    if (SECRET_KEYS.has(key)) {
      throw new ConfigError(
        `config ${path}: "${key}" must not be in a file; pass it as an input or in the environment`,
      );
    }
    raw[key] = Array.isArray(v) ? v.map(String) : v === null ? undefined : String(v);
  }
  return raw;
}

/** Later sources override earlier ones; empty values do not override. */
export function mergeSettings(...sources: RawSettings[]): RawSettings {
  const merged: RawSettings = {};
  for (const source of sources) {
    for (const [key, v] of Object.entries(source)) {
      const empty = v === undefined || (Array.isArray(v) ? v.length === 0 : v.trim() === "");
      if (!empty) merged[key] = v;
    }
  }
  return merged;
}

function armSettings(raw: RawSettings, arm: "baseline" | "candidate"): RawSettings {
  const shared: RawSettings = {};
  for (const key of MEASURE_KEYS) shared[key] = raw[key];
  const url = settingValue(raw, `${arm}-url`);
  if (url === undefined)
    throw new ConfigError(
      `${arm}-url is required: the ${arm} endpoint's OpenAI base URL, e.g. http://127.0.0.1:8000/v1`,
    );
  const model = settingValue(raw, `${arm}-model`) ?? settingValue(raw, "model");
  if (model === undefined)
    throw new ConfigError(`model (or ${arm}-model) is required: the model name the ${arm} serves`);
  return {
    ...shared,
    url,
    model,
    "api-key": settingValue(raw, `${arm}-api-key`) ?? settingValue(raw, "api-key"),
  };
}

function prefixErrors<T>(arm: string, f: () => T): T {
  try {
    return f();
  } catch (error) {
    if (error instanceof ConfigError && /^(url|model|api-key)\b/.test(error.message)) {
      throw new ConfigError(`${arm}-${error.message}`);
    }
    throw error;
  }
}

export function parseReportSettings(raw: RawSettings): ReportSettings {
  const failOn = (settingValue(raw, "fail-on") ?? "fail,error")
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((v) => parseChoice("fail-on", v, VERDICTS));
  const commentKey = settingValue(raw, "comment-key") ?? "default";
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(commentKey)) {
    throw rejectValue(
      "comment-key",
      commentKey,
      "1–64 letters, digits, dots, dashes or underscores",
    );
  }
  return {
    failOn,
    comment: parseChoice<CommentPolicy>("comment", settingValue(raw, "comment") ?? "always", [
      "always",
      "on-regression",
      "never",
    ]),
    commentKey,
    jobSummary: parseBoolean("job-summary", settingValue(raw, "job-summary") ?? "true"),
    resultsPath: settingValue(raw, "results-path") ?? "llm-perf-gate-results.json",
  };
}

export function parseMode(raw: RawSettings): Mode {
  return parseChoice<Mode>("mode", settingValue(raw, "mode") ?? "run", [
    "run",
    "measure",
    "report",
  ]);
}

function parseServerSettings(raw: RawSettings): ServerSettings {
  const commands: ServerSettings["commands"] = {};
  for (const arm of ["baseline", "candidate"] as const) {
    const start = settingValue(raw, `${arm}-start`);
    const stop = settingValue(raw, `${arm}-stop`);
    if (stop !== undefined && start === undefined) {
      throw new ConfigError(
        `${arm}-stop is set without ${arm}-start: the gate only stops what it started`,
      );
    }
    if (start !== undefined) commands[arm] = { start, stop };
  }
  return {
    commands,
    restart: parseChoice("restart", settingValue(raw, "restart") ?? "never", [
      "never",
      "per-trial",
    ] as const),
    readyTimeoutS: parseDurationS("ready-timeout", settingValue(raw, "ready-timeout") ?? "10m", {
      above: 0,
    }),
    logDir: settingValue(raw, "server-log-dir") ?? "llm-perf-gate-logs",
  };
}

function parseQualitySettings(raw: RawSettings, readFile: ReadFile): QualitySettings {
  const which = settingValue(raw, "quality-suite") ?? "builtin";
  let suite: Suite | undefined;
  if (which === "builtin") suite = parseSuite(BUILTIN_SUITE_YAML, "builtin");
  else if (which !== "none") {
    let text: string;
    try {
      text = readFile(which);
    } catch (error) {
      throw new ConfigError(
        `quality-suite = ${JSON.stringify(which)} cannot be read: ${(error as Error).message}; accepted: a file path, builtin or none`,
      );
    }
    suite = parseSuite(text, which);
  }
  return {
    suite,
    vllmSampling: parseBoolean(
      "quality-vllm-sampling",
      settingValue(raw, "quality-vllm-sampling") ?? "false",
    ),
    rule: {
      alpha: parseNumber("quality-alpha", settingValue(raw, "quality-alpha") ?? "0.05", {
        above: 0,
        max: 0.5,
      }),
      minEffect: parseFraction(
        "quality-min-effect",
        settingValue(raw, "quality-min-effect") ?? "2%",
      ),
      largeEffect: parseFraction(
        "quality-large-effect",
        settingValue(raw, "quality-large-effect") ?? "10%",
      ),
      confirmReruns: parseNumber(
        "quality-confirm-reruns",
        settingValue(raw, "quality-confirm-reruns") ?? "2",
        { integer: true, min: 0, max: 10 },
      ),
    },
  };
}

export function parseGateConfig(
  raw: RawSettings,
  env: Record<string, string | undefined> = {},
  readFile: ReadFile = (path) => readFileSync(path, "utf8"),
): GateConfig {
  const optionalFraction = (key: string) => {
    const v = settingValue(raw, key);
    return v === undefined ? undefined : parseFraction(key, v, 10);
  };
  const trials = parseNumber("trials", settingValue(raw, "trials") ?? "3", {
    integer: true,
    min: 1,
    max: 100,
  });
  const maxTrialsRaw = settingValue(raw, "max-trials");
  const maxTrials =
    maxTrialsRaw === undefined
      ? trials
      : parseNumber("max-trials", maxTrialsRaw, { integer: true, min: 1, max: 100 });
  if (maxTrials < trials)
    throw new ConfigError(
      `max-trials = ${maxTrials} is not accepted; expected at least trials (${trials})`,
    );
  const percentileRaw = settingValue(raw, "percentile") ?? "p95";
  const percentile = PERCENTILES[percentileRaw as keyof typeof PERCENTILES];
  if (percentile === undefined)
    throw rejectValue("percentile", percentileRaw, "one of p50, p90, p95, p99, p99.9");
  return {
    mode: parseMode(raw),
    baseline: prefixErrors("baseline", () =>
      parseMeasureConfig(armSettings(raw, "baseline"), env, readFile),
    ),
    candidate: prefixErrors("candidate", () =>
      parseMeasureConfig(armSettings(raw, "candidate"), env, readFile),
    ),
    trials,
    maxTrials,
    order: parseChoice("order", settingValue(raw, "order") ?? "abba", ORDERS),
    cooldownS: parseDurationS("cooldown", settingValue(raw, "cooldown") ?? "0", { min: 0 }),
    percentile,
    tolerances: {
      goodput: parseFraction(
        "max-goodput-drop",
        settingValue(raw, "max-goodput-drop") ?? "5%",
        0.99,
      ),
      ttft: parseFraction(
        "max-ttft-regression",
        settingValue(raw, "max-ttft-regression") ?? "10%",
        10,
      ),
      itl: parseFraction(
        "max-itl-regression",
        settingValue(raw, "max-itl-regression") ?? "10%",
        10,
      ),
      tpot: optionalFraction("max-tpot-regression"),
      e2el: optionalFraction("max-e2el-regression"),
      successRate: (() => {
        const v = settingValue(raw, "max-success-rate-drop");
        return v === undefined ? undefined : parseFraction("max-success-rate-drop", v, 0.99);
      })(),
    },
    rule: parseChoice<DecisionRule>(
      "decision-rule",
      settingValue(raw, "decision-rule") ?? "significant-and-material",
      ["significant-and-material", "confirm"],
    ),
    confidence: parseNumber("confidence", settingValue(raw, "confidence") ?? "0.95", {
      above: 0.5,
      max: 0.999,
    }),
    maxErrorRate: parseFraction("max-error-rate", settingValue(raw, "max-error-rate") ?? "1%"),
    maxTrialCv: parseFraction("max-trial-cv", settingValue(raw, "max-trial-cv") ?? "10%", 10),
    minOkRequests: parseNumber("min-ok-requests", settingValue(raw, "min-ok-requests") ?? "10", {
      integer: true,
      min: 1,
    }),
    servers: parseServerSettings(raw),
    quality: parseQualitySettings(raw, readFile),
    report: parseReportSettings(raw),
  };
}
