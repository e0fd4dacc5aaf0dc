// The settings of one measurement — the `measure` command's flags, and the
// same names for both arms of the gate — validated into TrialOptions before
// any request is sent: the target here, the workload in workload.ts, the
// self-check limits in checks.ts.

import { InputError, rejectValue } from "../common/errors.ts";
import { readInputFile } from "../common/files.ts";
import { RUNTIMES } from "../common/runtimes.ts";
import { hasUserinfo, httpUrl } from "../common/url.ts";
import type { Target } from "../openai/target.ts";
import { parseReplicasSource } from "../replicas/source.ts";
import type { ServerMetricsOptions } from "../servermetrics/scraper.ts";
import type { TrialOptions } from "../trial/measure.ts";
import { MAX_WORKERS, unsplittable, type WorkerSetting } from "../trial/worker-count.ts";
import { type CheckDefaults, MEASURE_CHECKS, parseLimits } from "./checks.ts";
import {
  defaulted,
  given,
  lines,
  optionalNumber,
  type RawSettings,
  readBoolean,
  readChoice,
  readNumber,
  requiredText,
} from "./settings.ts";
import { parseSlo } from "./slo.ts";
import { parseBaseUrl, parseHeaders, parseJsonObject } from "./values.ts";
import { parseWorkload, type ReadFile } from "./workload.ts";

/** Environment variables read for the API key when no setting gives one, in order. */
export const API_KEY_ENV = ["LLM_PERF_GATE_API_KEY", "OPENAI_API_KEY"] as const;

export const readTextFile: ReadFile = readInputFile;

/** The server's metrics to scrape beside each trial; null with metrics-url none. */
export function parseServerMetrics(raw: RawSettings, baseUrl: string): ServerMetricsOptions | null {
  const url = given(raw, "metrics-url") ?? `${new URL(baseUrl).origin}/metrics`;
  if (url === "none") return null;
  const noCredentials =
    "metrics-url: credentials in the URL are not accepted (the URL is not shown)";
  if (hasUserinfo(url)) throw new InputError(noCredentials);
  const parsed = httpUrl(url);
  if (!parsed)
    throw rejectValue(
      "metrics-url",
      url,
      "an http(s) URL such as http://127.0.0.1:8000/metrics, or none",
    );
  if (parsed.username || parsed.password) throw new InputError(noCredentials);
  return {
    url: parsed.toString(),
    intervalS: readNumber(raw, "metrics-interval"),
    runtime: readChoice(raw, "metrics-runtime", ["auto", ...RUNTIMES]),
  };
}

/** The arm's /metrics page, scraped or not (metric:NAME reads it; null: metrics-url none). */
function metricsPage(raw: RawSettings, baseUrl: string): string | null {
  const url = given(raw, "metrics-url") ?? `${new URL(baseUrl).origin}/metrics`;
  return url === "none" ? null : url;
}

function parseTarget(raw: RawSettings, env: Record<string, string | undefined>): Target {
  const extraBody = given(raw, "extra-body");
  return {
    baseUrl: parseBaseUrl(
      "url",
      requiredText(raw, "url", "the endpoint's OpenAI base URL, e.g. http://127.0.0.1:8000/v1"),
    ),
    model: requiredText(raw, "model", "the model name the server serves"),
    endpoint: readChoice(raw, "endpoint", ["chat", "completions"]),
    apiKey:
      given(raw, "api-key") ??
      API_KEY_ENV.map((k) => env[k]).find((v) => v !== undefined && v !== ""),
    headers: parseHeaders("header", lines(raw, "header")),
    extraBody: extraBody === undefined ? {} : parseJsonObject("extra-body", extraBody),
    includeUsage: !readBoolean(raw, "no-usage"),
    ignoreEos: readBoolean(raw, "ignore-eos"),
    temperature: readNumber(raw, "temperature"),
    ...replicaHeader(raw),
  };
}

/** replica-header: a header name, kept lower-case (as the client reads headers). */
function replicaHeader(raw: RawSettings): { replicaHeader?: string } {
  const name = given(raw, "replica-header")?.trim();
  if (name === undefined || name === "") return {};
  if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/.test(name))
    throw rejectValue(
      "replica-header",
      name,
      "a header name such as x-served-by (1–64 token characters)",
    );
  return { replicaHeader: name.toLowerCase() };
}

/**
 * One measurement's options. `swept`: a rate sweep's trials (the `sweep`
 * command, a capacity gate) — the sweep chooses their rates.
 */
export function parseTrialOptions(
  raw: RawSettings,
  env: Record<string, string | undefined> = {},
  readFile: ReadFile = readTextFile,
  checks: CheckDefaults = MEASURE_CHECKS,
  swept?: "poisson" | "constant",
): TrialOptions {
  const target = parseTarget(raw, env);
  const slo = given(raw, "slo");
  const serverMetrics = parseServerMetrics(raw, target.baseUrl);
  return {
    target,
    workload: parseWorkload(raw, readFile, swept),
    timeoutS: readNumber(raw, "timeout"),
    maxConcurrency: optionalNumber(raw, "max-concurrency"),
    slo: slo === undefined ? {} : parseSlo("slo", slo),
    limits: parseLimits(raw, checks),
    serverMetrics,
    replicas: parseReplicasSource(
      "replicas-source",
      given(raw, "replicas-source") ?? "none",
      metricsPage(raw, target.baseUrl),
    ),
    workers: { requested: parseWorkers(raw), reservedCores: 0 },
  };
}

/** workers: auto, or a count; a count over one refused where requests depend on each other. */
function parseWorkers(raw: RawSettings): WorkerSetting["requested"] {
  const text = defaulted(raw, "workers").trim();
  if (text === "auto") return "auto";
  const n = Number(text);
  if (!/^[0-9]+$/.test(text) || n < 1 || n > MAX_WORKERS)
    throw rejectValue("workers", text, `auto, or a whole number from 1 to ${MAX_WORKERS}`);
  const why = unsplittable({
    maxConcurrency: optionalNumber(raw, "max-concurrency"),
    sessionTurns: optionalNumber(raw, "turns") ?? 1,
  });
  if (n > 1 && why !== undefined)
    throw new InputError(`workers = ${n} is not accepted with ${why}; expected workers 1 or auto`);
  return n;
}
