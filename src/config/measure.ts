// The settings of one measurement — the `measure` command's flags, and the
// same names as action inputs — validated into one MeasureConfig before any
// request is sent.

import { readFileSync } from "node:fs";
import type { Endpoint, Target } from "../load/client.ts";
import { DEFAULT_LIMITS, type SelfCheckLimits } from "../load/selfcheck.ts";
import type { Slo } from "../metrics/recorder.ts";
import { ARRIVAL_KINDS, type ArrivalSpec } from "../workload/arrivals.ts";
import type { LengthSpec } from "../workload/lengths.ts";
import type { WorkloadSpec } from "../workload/plan.ts";
import { parseDataset } from "./dataset.ts";
import { ConfigError, rejectValue } from "./errors.ts";
import { parseSlo } from "./slo.ts";
import {
  parseBoolean,
  parseChoice,
  parseDurationS,
  parseHeaders,
  parseJsonObject,
  parseNumber,
} from "./values.ts";

export interface MeasureConfig {
  target: Target;
  workload: WorkloadSpec;
  timeoutS: number;
  maxConcurrency: number | undefined;
  slo: Slo;
  limits: SelfCheckLimits;
}

/** Raw settings as strings (flags or action inputs); lists for repeatable ones. */
export type RawSettings = Record<string, string | string[] | undefined>;

/** Environment variables read for the API key when no setting gives one, in order. */
export const API_KEY_ENV = ["LLM_PERF_GATE_API_KEY", "OPENAI_API_KEY"] as const;

export const MEASURE_DEFAULTS = {
  endpoint: "chat",
  arrival: "poisson",
  burstiness: "1",
  duration: "30s",
  warmup: "2s",
  seed: "1",
  "input-len": "256",
  "output-len": "128",
  temperature: "0",
  timeout: "60s",
} as const;

/** A setting's value: the last one of a list, trimmed; empty is unset. */
export function settingValue(raw: RawSettings, name: string): string | undefined {
  const v = raw[name];
  const s = Array.isArray(v) ? v.at(-1) : v;
  return s === undefined || s.trim() === "" ? undefined : s.trim();
}

function list(raw: RawSettings, name: string): string[] {
  const v = raw[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

function required(raw: RawSettings, name: string, what: string): string {
  const v = settingValue(raw, name);
  if (v === undefined) throw new ConfigError(`${name} is required: ${what}`);
  return v;
}

function withDefault(raw: RawSettings, name: keyof typeof MEASURE_DEFAULTS): string {
  return settingValue(raw, name) ?? MEASURE_DEFAULTS[name];
}

export function parseLengthSpec(name: string, raw: string): LengthSpec {
  const t = raw.trim();
  if (/^\d+$/.test(t) && Number(t) >= 1) return { kind: "fixed", tokens: Number(t) };
  const range = t.match(/^(\d+)\s*\.\.\s*(\d+)$/);
  if (range && Number(range[1]) >= 1 && Number(range[1]) <= Number(range[2])) {
    return { kind: "uniform", min: Number(range[1]), max: Number(range[2]) };
  }
  const normal = t.match(/^normal:\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)$/);
  if (normal && Number(normal[1]) >= 1) {
    return { kind: "normal", mean: Number(normal[1]), sd: Number(normal[2]) };
  }
  throw rejectValue(
    name,
    raw,
    'a token count ("512"), an inclusive range ("128..1024") or "normal:MEAN,SD"',
  );
}

function parseUrl(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw rejectValue(name, raw, "an http(s) base URL such as http://127.0.0.1:8000/v1");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw rejectValue(name, raw, "an http(s) base URL such as http://127.0.0.1:8000/v1");
  }
  if (/\/(chat\/)?completions\/?$/.test(url.pathname)) {
    throw rejectValue(
      name,
      raw,
      "the OpenAI base URL (ending in /v1), not an endpoint path; the endpoint setting picks chat or completions",
    );
  }
  if (url.username || url.password) {
    throw new ConfigError(`${name}: credentials in the URL are not accepted; use api-key`);
  }
  return url.toString().replace(/\/+$/, "");
}

function parseArrival(raw: RawSettings): ArrivalSpec {
  const kind = parseChoice("arrival", withDefault(raw, "arrival"), ARRIVAL_KINDS);
  const rate = () =>
    parseNumber("rate", required(raw, "rate", `requests per second for ${kind} arrivals`), {
      above: 0,
    });
  switch (kind) {
    case "poisson":
    case "constant":
      return { kind, ratePerS: rate() };
    case "gamma":
      return {
        kind,
        ratePerS: rate(),
        burstiness: parseNumber("burstiness", withDefault(raw, "burstiness"), { above: 0 }),
      };
    case "burst":
      return {
        kind,
        burstSize: parseNumber(
          "burst-size",
          required(raw, "burst-size", "requests per burst for burst arrivals"),
          { integer: true, min: 1 },
        ),
        burstIntervalS: parseDurationS(
          "burst-interval",
          required(raw, "burst-interval", "time between bursts for burst arrivals"),
          { above: 0 },
        ),
      };
    case "all-at-once":
      return {
        kind,
        count: parseNumber(
          "requests",
          required(raw, "requests", "how many requests all-at-once sends"),
          { integer: true, min: 1 },
        ),
      };
  }
}

function parseLimits(raw: RawSettings): SelfCheckLimits {
  const limit = (name: string, fallback: number, rule: { integer?: boolean; max?: number }) => {
    const v = settingValue(raw, name);
    return v === undefined ? fallback : parseNumber(name, v, { min: 0, ...rule });
  };
  return {
    maxSendSkewP99Ms: limit("max-send-skew-ms", DEFAULT_LIMITS.maxSendSkewP99Ms, {}),
    maxUnsent: limit("max-unsent", DEFAULT_LIMITS.maxUnsent, { integer: true }),
    maxEventLoopDelayP99Ms: limit(
      "max-event-loop-delay-ms",
      DEFAULT_LIMITS.maxEventLoopDelayP99Ms,
      {},
    ),
    maxGcShare: limit("max-gc-share", DEFAULT_LIMITS.maxGcShare, { max: 1 }),
    maxClientCpu: limit("max-client-cpu", DEFAULT_LIMITS.maxClientCpu, {}),
  };
}

/** Reads a prompt file; its problems are reported with the file name. */
export type ReadFile = (path: string) => string;

export function parseMeasureConfig(
  raw: RawSettings,
  env: Record<string, string | undefined> = {},
  readFile: ReadFile = (path) => readFileSync(path, "utf8"),
): MeasureConfig {
  const baseUrl = parseUrl(
    "url",
    required(raw, "url", "the endpoint's OpenAI base URL, e.g. http://127.0.0.1:8000/v1"),
  );
  const model = required(raw, "model", "the model name the server serves");
  const endpoint = parseChoice<Endpoint>("endpoint", withDefault(raw, "endpoint"), [
    "chat",
    "completions",
  ]);
  const apiKey =
    settingValue(raw, "api-key") ??
    API_KEY_ENV.map((k) => env[k]).find((v) => v !== undefined && v !== "");
  const ignoreEos = parseBoolean("ignore-eos", settingValue(raw, "ignore-eos") ?? "false");

  const datasetPath = settingValue(raw, "dataset");
  let dataset: WorkloadSpec["dataset"];
  if (datasetPath !== undefined) {
    let content: string;
    try {
      content = readFile(datasetPath);
    } catch (error) {
      throw new ConfigError(
        `dataset = ${JSON.stringify(datasetPath)} cannot be read: ${(error as Error).message}`,
      );
    }
    dataset = { name: datasetPath, entries: parseDataset(content, `dataset ${datasetPath}`) };
  }
  const outputLenRaw =
    settingValue(raw, "output-len") ?? (dataset ? undefined : MEASURE_DEFAULTS["output-len"]);
  const maxTokensRaw = settingValue(raw, "max-tokens");
  const maxConcurrencyRaw = settingValue(raw, "max-concurrency");

  return {
    target: {
      baseUrl,
      model,
      endpoint,
      apiKey,
      headers: parseHeaders("header", list(raw, "header")),
      extraBody: settingValue(raw, "extra-body")
        ? parseJsonObject("extra-body", settingValue(raw, "extra-body") as string)
        : {},
      includeUsage: !parseBoolean("no-usage", settingValue(raw, "no-usage") ?? "false"),
      ignoreEos,
      temperature: parseNumber("temperature", withDefault(raw, "temperature"), { min: 0, max: 2 }),
    },
    workload: {
      arrival: parseArrival(raw),
      warmupS: parseDurationS("warmup", withDefault(raw, "warmup"), { min: 0 }),
      durationS: parseDurationS("duration", withDefault(raw, "duration"), { above: 0 }),
      seed: parseNumber("seed", withDefault(raw, "seed"), {
        integer: true,
        min: 0,
        max: 2 ** 32 - 1,
      }),
      inputLen: parseLengthSpec("input-len", withDefault(raw, "input-len")),
      outputLen:
        outputLenRaw === undefined ? undefined : parseLengthSpec("output-len", outputLenRaw),
      maxTokens:
        maxTokensRaw === undefined
          ? undefined
          : parseNumber("max-tokens", maxTokensRaw, { integer: true, min: 1 }),
      ignoreEos,
      dataset,
    },
    timeoutS: parseDurationS("timeout", withDefault(raw, "timeout"), { above: 0 }),
    maxConcurrency:
      maxConcurrencyRaw === undefined
        ? undefined
        : parseNumber("max-concurrency", maxConcurrencyRaw, { integer: true, min: 1 }),
    slo:
      settingValue(raw, "slo") === undefined
        ? {}
        : parseSlo("slo", settingValue(raw, "slo") as string),
    limits: parseLimits(raw),
  };
}
