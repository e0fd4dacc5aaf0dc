// The settings of one measurement — the `measure` command's flags, and the
// same names for both arms of the gate — validated into TrialOptions before
// any request is sent.

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { errorMessage, InputError, rejectValue } from "../common/errors.ts";
import { OUTCOMES, type Outcome } from "../common/outcomes.ts";
import type { PercentileKey } from "../common/percentiles.ts";
import { RUNTIMES } from "../common/runtimes.ts";
import { httpUrl } from "../common/url.ts";
import type { SelfCheckLimits } from "../metrics/validity.ts";
import type { Endpoint } from "../openai/target.ts";
import type { ServerMetricsOptions } from "../servermetrics/scraper.ts";
import type { TrialOptions } from "../trial/measure.ts";
import { ARRIVAL_KINDS, type ArrivalSpec } from "../workload/arrivals.ts";
import { parseDataset } from "../workload/dataset.ts";
import type { WorkloadSpec } from "../workload/plan.ts";
import { tokenCounter } from "../workload/tokens.ts";
import { parseTrace, TRACE_FORMATS, type Trace } from "../workload/trace.ts";
import { WORDS } from "../workload/words.ts";
import {
  defaulted,
  given,
  lines,
  type RawSettings,
  refuseGiven,
  type SettingName,
  value,
} from "./settings.ts";
import { parseSlo } from "./slo.ts";
import {
  MAX_TOKENS,
  parseBaseUrl,
  parseBoolean,
  parseChoice,
  parseDurationS,
  parseFraction,
  parseHeaders,
  parseJsonObject,
  parseLengthSpec,
  parseNumber,
} from "./values.ts";

/** The server's metrics to scrape beside each trial; null with metrics-url none. */
export function parseServerMetrics(raw: RawSettings, baseUrl: string): ServerMetricsOptions | null {
  const url = given(raw, "metrics-url") ?? `${new URL(baseUrl).origin}/metrics`;
  if (url === "none") return null;
  return {
    url: parseMetricsUrl(url),
    intervalS: parseDurationS("metrics-interval", defaulted(raw, "metrics-interval"), {
      min: 0.1,
      max: 60,
    }),
    runtime: parseChoice("metrics-runtime", defaulted(raw, "metrics-runtime"), [
      "auto",
      ...RUNTIMES,
    ]),
  };
}

function parseMetricsUrl(raw: string): string {
  const url = httpUrl(raw);
  if (!url)
    throw rejectValue(
      "metrics-url",
      raw,
      "an http(s) URL such as http://127.0.0.1:8000/metrics, or none",
    );
  if (url.username || url.password)
    throw new InputError("metrics-url: credentials in the URL are not accepted");
  return url.toString();
}

/** reliability-exclude: failure classes that are not the server's fault ("none" for none). */
export function parseOutcomeList(raw: RawSettings): Outcome[] {
  const text = defaulted(raw, "reliability-exclude");
  if (text.trim() === "none") return [];
  const classes = OUTCOMES.filter((o) => o !== "ok");
  return text
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((v) => parseChoice("reliability-exclude", v, classes));
}

/** When an endpoint counts as failing: its failure rate limit and what is not its failure. */
export function parseFailureLimit(raw: RawSettings): { maxErrorRate: number; exclude: Outcome[] } {
  return {
    maxErrorRate: parseFraction("max-error-rate", defaulted(raw, "max-error-rate")),
    exclude: parseOutcomeList(raw),
  };
}

/** Environment variables read for the API key when no setting gives one, in order. */
export const API_KEY_ENV = ["LLM_PERF_GATE_API_KEY", "OPENAI_API_KEY"] as const;

/** Reads a file a setting names; its problems are reported with the setting. */
export type ReadFile = (path: string) => string;

export const readTextFile: ReadFile = (path) => readFileSync(path, "utf8");

function required(raw: RawSettings, name: SettingName, what: string): string {
  const v = given(raw, name);
  if (v === undefined) throw new InputError(`${name} is required: ${what}`);
  return v;
}

function parseArrival(raw: RawSettings): ArrivalSpec {
  const kind = parseChoice("arrival", defaulted(raw, "arrival"), ARRIVAL_KINDS);
  // The generator holds about 2,000 req/s on 2 cores (bench/README.md): far beyond
  // that, nothing it measures would mean anything.
  const rate = () =>
    parseNumber("rate", required(raw, "rate", `requests per second for ${kind} arrivals`), {
      above: 0,
      max: 10_000,
    });
  switch (kind) {
    case "poisson":
    case "constant":
      return { kind, ratePerS: rate() };
    case "gamma":
      return {
        kind,
        ratePerS: rate(),
        burstiness: parseNumber("burstiness", defaulted(raw, "burstiness"), { above: 0 }),
      };
    case "burst":
      return {
        kind,
        burstSize: parseNumber(
          "burst-size",
          required(raw, "burst-size", "requests per burst for burst arrivals"),
          { integer: true, min: 1, max: 100_000 },
        ),
        burstIntervalS: parseDurationS(
          "burst-interval",
          required(raw, "burst-interval", "time between bursts for burst arrivals"),
          { above: 0, max: 3600 },
        ),
      };
    case "all-at-once":
      return {
        kind,
        count: parseNumber(
          "requests",
          required(raw, "requests", "how many requests all-at-once sends"),
          { integer: true, min: 1, max: 100_000 },
        ),
      };
  }
}

/** What the self-checks look at, from the gate: its percentile and a quarter of its TTFT tolerance. */
export interface CheckDefaults {
  percentile: PercentileKey;
  maxSkewEffect: number;
}

const MEASURE_CHECKS: CheckDefaults = { percentile: "p95", maxSkewEffect: 0.025 };

function parseLimits(raw: RawSettings, checks: CheckDefaults): SelfCheckLimits {
  const limit = (name: SettingName, rule: { integer?: boolean; max?: number }) =>
    parseNumber(name, defaulted(raw, name), { min: 0, ...rule });
  const optional = (name: SettingName, rule: { max?: number }) => {
    const v = given(raw, name);
    return v === undefined ? undefined : parseNumber(name, v, { min: 0, ...rule });
  };
  const skewEffect = given(raw, "max-skew-effect");
  return {
    percentile: checks.percentile,
    maxSkewEffect:
      skewEffect === undefined
        ? checks.maxSkewEffect
        : parseFraction("max-skew-effect", skewEffect),
    maxLateSends: parseFraction("max-late-sends", defaulted(raw, "max-late-sends")),
    maxUnsent: limit("max-unsent", { integer: true }),
    maxEventLoopDelayP99Ms: limit("max-event-loop-delay-ms", {}),
    maxClientCpu: limit("max-client-cpu", {}),
    maxSendSkewP99Ms: optional("max-send-skew-ms", {}),
    maxGcShare: optional("max-gc-share", { max: 1 }),
  };
}

function parseDatasetFile(path: string, readFile: ReadFile): WorkloadSpec["dataset"] {
  let content: string;
  try {
    content = readFile(path);
  } catch (error) {
    throw new InputError(
      `dataset = ${JSON.stringify(path)} cannot be read: ${errorMessage(error)}`,
    );
  }
  return { name: path, entries: parseDataset(content, `dataset ${path}`) };
}

/** A trace replaces the arrival process and the lengths: settings for those are refused with it. */
const NOT_WITH_TRACE: SettingName[] = [
  "arrival",
  "rate",
  "burstiness",
  "burst-size",
  "burst-interval",
  "requests",
  "input-len",
  "output-len",
  "dataset",
  "prefix-groups",
];

function parseReplay(
  raw: RawSettings,
  readFile: ReadFile,
  trialS: number,
): { arrival: ArrivalSpec; trace: Trace } | undefined {
  const path = given(raw, "trace");
  if (path === undefined) {
    refuseGiven(
      raw,
      ["trace-format", "time-scale", "trace-start", "max-requests"],
      (name, v) => `${name} = ${v} is used only with a trace (set trace, or remove ${name})`,
    );
    return undefined;
  }
  refuseGiven(
    raw,
    NOT_WITH_TRACE,
    (name, v) =>
      `${name} = ${v} is not used with a trace: its rows give the arrivals and the lengths (remove ${name})`,
  );
  const format = parseChoice("trace-format", defaulted(raw, "trace-format"), [
    "auto",
    ...TRACE_FORMATS,
  ]);
  let content: string;
  try {
    content = readFile(path);
  } catch (error) {
    throw new InputError(`trace = ${JSON.stringify(path)} cannot be read: ${errorMessage(error)}`);
  }
  const trace = parseTrace(content, path, format);
  const timeScale = parseNumber("time-scale", defaulted(raw, "time-scale"), {
    above: 0,
    max: 1000,
  });
  const startS = parseDurationS("trace-start", defaulted(raw, "trace-start"), {
    min: 0,
    max: 10 ** 9,
  });
  const cap = given(raw, "max-requests");
  const maxRequests =
    cap === undefined
      ? undefined
      : parseNumber("max-requests", cap, { integer: true, min: 1, max: MAX_REQUESTS_PER_TRIAL });
  // What one trial replays: rows from trace-start until the trial's end, at most max-requests.
  const endMs = startS * 1000 + (trialS * 1000) / timeScale;
  const count = Math.min(
    trace.rows.filter((r) => r.offsetMs >= startS * 1000 && r.offsetMs < endMs).length,
    maxRequests ?? Number.POSITIVE_INFINITY,
  );
  if (count === 0)
    throw new InputError(
      `trace ${path}: no row between trace-start ${startS} s and the trial's end (${Number(((endMs - startS * 1000) / 1000).toPrecision(4))} s of the trace at time-scale ${timeScale}); the trace spans ${Number(((trace.rows.at(-1)?.offsetMs ?? 0) / 1000).toPrecision(4))} s`,
    );
  return {
    trace,
    arrival: {
      kind: "trace",
      name: path,
      timeScale,
      startS,
      maxRequests,
      ratePerS: count / trialS,
    },
  };
}

/** tokenizer: a tokenizer.json, or a model directory holding one (and maybe tokenizer_config.json). */
function parseTokenizer(raw: RawSettings, readFile: ReadFile): WorkloadSpec["tokenizer"] {
  const path = given(raw, "tokenizer");
  if (path === undefined) return undefined;
  const file = path.endsWith(".json") ? path : join(path, "tokenizer.json");
  const read = (p: string): object => {
    const parsed = JSON.parse(readFile(p));
    if (typeof parsed !== "object" || parsed === null) throw new Error("not a JSON object");
    return parsed;
  };
  let json: object;
  try {
    json = read(file);
  } catch (error) {
    throw new InputError(
      `tokenizer = ${JSON.stringify(path)}: ${file} cannot be read as a tokenizer.json: ${errorMessage(error)} (expected a tokenizer.json file or a model directory holding one)`,
    );
  }
  let config: object = {};
  try {
    config = read(join(dirname(file), "tokenizer_config.json"));
  } catch {
    // Optional: tokenizer.json alone is enough to count.
  }
  try {
    return tokenCounter(path, json, config, WORDS);
  } catch (error) {
    throw new InputError(
      `tokenizer = ${JSON.stringify(path)}: ${file} is not a tokenizer this tool can read: ${errorMessage(error)}`,
    );
  }
}

/** Multi-turn sessions (turns, think-time, turn-input-len): synthetic prompts only. */
function parseSessions(
  raw: RawSettings,
  dataset: WorkloadSpec["dataset"],
  withTrace: boolean,
): WorkloadSpec["sessions"] {
  const turns = parseNumber("turns", defaulted(raw, "turns"), { integer: true, min: 1, max: 100 });
  if (turns === 1) {
    refuseGiven(
      raw,
      ["think-time", "turn-input-len"],
      (name, v) => `${name} = ${v} is used only with turns above 1 (set turns, or remove ${name})`,
    );
    return undefined;
  }
  if (withTrace)
    throw new InputError(
      `turns = ${turns} is not used with a trace: its rows are single requests (remove turns)`,
    );
  if (dataset && !dataset.entries.some((e) => e.later.length > 0))
    throw new InputError(
      `turns = ${turns} needs conversations of several user turns: dataset ${dataset.name} has none (a ShareGPT file's conversations are sessions; JSONL lines are single requests)`,
    );
  const later = given(raw, "turn-input-len") ?? defaulted(raw, "input-len");
  return {
    turns,
    thinkS: parseDurationS("think-time", defaulted(raw, "think-time"), { min: 0, max: 3600 }),
    laterInputLen: parseLengthSpec("turn-input-len", later),
  };
}

/** Shared prefixes (prefix-groups, prefix-len, prefix-pick): synthetic prompts only. */
function parsePrefix(raw: RawSettings, withDataset: boolean): WorkloadSpec["prefix"] {
  const groups = parseNumber("prefix-groups", defaulted(raw, "prefix-groups"), {
    integer: true,
    min: 0,
    max: 100_000,
  });
  if (groups === 0) return undefined;
  if (withDataset)
    throw new InputError(
      `prefix-groups = ${groups} is not used with a dataset: its prompts are its own (remove prefix-groups, or the dataset)`,
    );
  const tokens = parseNumber("prefix-len", defaulted(raw, "prefix-len"), {
    integer: true,
    min: 1,
    max: 1_000_000,
  });
  const pick = defaulted(raw, "prefix-pick").trim();
  const zipf = pick.match(/^zipf(?::(\d+(?:\.\d+)?))?$/);
  if (pick !== "uniform" && !zipf)
    throw new InputError(
      `prefix-pick = ${JSON.stringify(pick)} is not accepted; expected uniform, zipf (exponent 1) or zipf:S (e.g. zipf:1.2)`,
    );
  const zipfS = zipf ? Number(zipf[1] ?? 1) : 0;
  if (zipf && !(zipfS > 0 && zipfS <= 10))
    throw new InputError(
      `prefix-pick = ${JSON.stringify(pick)} is not accepted; the zipf exponent must be in (0, 10]`,
    );
  return { groups, tokens, zipfS };
}

/** Requests in one trial, warm-up included: each needs a little memory until it ends. */
export const MAX_REQUESTS_PER_TRIAL = 2_000_000;

function checkTrialSize(options: TrialOptions): void {
  const a = options.workload.arrival;
  const seconds = options.workload.warmupS + options.workload.durationS;
  const expected =
    a.kind === "all-at-once"
      ? a.count * (options.workload.warmupS > 0 ? 2 : 1)
      : a.kind === "burst"
        ? (a.burstSize * seconds) / a.burstIntervalS
        : a.ratePerS * seconds;
  if (expected > MAX_REQUESTS_PER_TRIAL) {
    throw new InputError(
      `rate × (warmup + duration) = ${Math.round(expected).toLocaleString("en-US")} requests per trial is not accepted; expected at most ${MAX_REQUESTS_PER_TRIAL.toLocaleString("en-US")} (lower the rate or shorten the trial)`,
    );
  }
}

export function parseTrialOptions(
  raw: RawSettings,
  env: Record<string, string | undefined> = {},
  readFile: ReadFile = readTextFile,
  checks: CheckDefaults = MEASURE_CHECKS,
): TrialOptions {
  const baseUrl = parseBaseUrl(
    "url",
    required(raw, "url", "the endpoint's OpenAI base URL, e.g. http://127.0.0.1:8000/v1"),
  );
  const model = required(raw, "model", "the model name the server serves");
  const endpoint = parseChoice<Endpoint>("endpoint", defaulted(raw, "endpoint"), [
    "chat",
    "completions",
  ]);
  const apiKey =
    given(raw, "api-key") ??
    API_KEY_ENV.map((k) => env[k]).find((v) => v !== undefined && v !== "");
  const ignoreEos = parseBoolean("ignore-eos", defaulted(raw, "ignore-eos"));
  const datasetPath = given(raw, "dataset");
  const dataset = datasetPath === undefined ? undefined : parseDatasetFile(datasetPath, readFile);
  // A dataset keeps its own output lengths unless output-len is given.
  const outputLen = dataset ? given(raw, "output-len") : value(raw, "output-len");
  const maxTokens = given(raw, "max-tokens");
  const maxConcurrency = given(raw, "max-concurrency");
  const extraBody = given(raw, "extra-body");
  const slo = given(raw, "slo");

  const warmupS = parseDurationS("warmup", defaulted(raw, "warmup"), { min: 0, max: 3600 });
  const durationS = parseDurationS("duration", defaulted(raw, "duration"), {
    above: 0,
    max: 86_400,
  });
  const replay = parseReplay(raw, readFile, warmupS + durationS);
  const options: TrialOptions = {
    target: {
      baseUrl,
      model,
      endpoint,
      apiKey,
      headers: parseHeaders("header", lines(raw, "header")),
      extraBody: extraBody === undefined ? {} : parseJsonObject("extra-body", extraBody),
      includeUsage: !parseBoolean("no-usage", defaulted(raw, "no-usage")),
      ignoreEos,
      temperature: parseNumber("temperature", defaulted(raw, "temperature"), { min: 0, max: 2 }),
    },
    workload: {
      arrival: replay?.arrival ?? parseArrival(raw),
      warmupS,
      durationS,
      seed: parseNumber("seed", defaulted(raw, "seed"), {
        integer: true,
        min: 0,
        max: 2 ** 32 - 1,
      }),
      inputLen: parseLengthSpec("input-len", defaulted(raw, "input-len")),
      outputLen: outputLen === undefined ? undefined : parseLengthSpec("output-len", outputLen),
      maxTokens:
        maxTokens === undefined
          ? undefined
          : parseNumber("max-tokens", maxTokens, { integer: true, min: 1, max: MAX_TOKENS }),
      ignoreEos,
      dataset,
      promptRound: 0,
      prefix: parsePrefix(raw, dataset !== undefined),
      trace: replay?.trace,
      sessions: parseSessions(raw, dataset, replay !== undefined),
      tokenizer: parseTokenizer(raw, readFile),
    },
    timeoutS: parseDurationS("timeout", defaulted(raw, "timeout"), { above: 0, max: 86_400 }),
    maxConcurrency:
      maxConcurrency === undefined
        ? undefined
        : parseNumber("max-concurrency", maxConcurrency, { integer: true, min: 1 }),
    slo: slo === undefined ? {} : parseSlo("slo", slo),
    limits: parseLimits(raw, checks),
    serverMetrics: parseServerMetrics(raw, baseUrl),
  };
  checkTrialSize(options);
  return options;
}
