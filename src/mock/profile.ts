// The mock server's configuration: a latency model, output lengths and fault
// rates. A profile file (JSON) and `--set key=value` overrides produce one
// validated MockProfile; a bad value fails with its key, value and what is
// accepted.

import { isOneOf, recordOf } from "../common/arrays.ts";
import { InputError } from "../common/errors.ts";

export const FAULT_KINDS = [
  "quota429",
  "capacity429",
  "http429",
  "http503",
  "http529",
  "http500",
  "empty",
  "truncated",
  "streamError",
  "malformed",
  "hang",
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface MockProfile {
  /** Model ids served; any other id gets 404. */
  models: string[];
  /** Seed for faults, jitter and sampled (temperature > 0, unseeded) text. */
  seed: number;
  /** Context window: prompt + max_tokens beyond it is a 400. */
  maxModelLen: number;
  /** Sequences decoded together; the rest wait in the queue. */
  maxBatch: number;
  /** The KV cache's size in tokens: what /metrics reports the running sequences' share of. */
  kvCacheTokens: number;
  /** Waiting requests beyond this are shed with 503 (0 = unbounded). */
  maxQueue: number;
  /** Fixed cost of a prefill step, plus a cost per prompt token in it. */
  prefillBaseMs: number;
  prefillPerTokenMs: number;
  /** A decode step costs decodeBaseMs + decodePerSeqMs × running sequences. */
  decodeBaseMs: number;
  decodePerSeqMs: number;
  /** Multipliers to make a variant slower (1.15 = 15 % slower) or faster. */
  prefillScale: number;
  decodeScale: number;
  /** Log-normal σ of each step's duration (0 = no jitter). */
  jitter: number;
  /** Range of the deterministic per-prompt natural output length, in tokens. */
  naturalMinTokens: number;
  naturalMaxTokens: number;
  /** Tokens per content chunk (> 1 models servers that batch tokens into one SSE event). */
  tokensPerChunk: number;
  /** Interval of `: ping` comment lines on open streams (0 = none). */
  pingEveryMs: number;
  /** Periodic engine stall: every stallEveryS seconds the engine pauses for stallMs. */
  stallEveryS: number;
  stallMs: number;
  /** Seconds after start during which /v1/models answers but completions fail with 503. */
  loadingS: number;
  /** The server crashes (drops every connection and stops listening) at this completion request; 0 = never. */
  crashAfterRequests: number;
  /** Automatic prefix caching (vLLM's default): a prefill skips the cached 16-token blocks of a shared prefix. */
  prefixCache: boolean;
  /** The cache's size in blocks (LRU); 0 = none. */
  prefixCacheBlocks: number;
  /** false models a server that silently ignores `ignore_eos` (it stops at the natural length). */
  honorIgnoreEos: boolean;
  /** false: requests with tools get a 400, as from a server started without tool support. */
  supportsTools: boolean;
  /** false: response_format is ignored and plain text comes back. */
  supportsResponseFormat: boolean;
  /** Fractions of structured requests broken deterministically (by prompt): truncated JSON, a wrong tool name, arguments missing their required fields, a tool call leaked into content with tool_calls: [], finish_reason stop instead of tool_calls. */
  breakJson: number;
  breakToolName: number;
  breakToolArgs: number;
  leakToolCall: number;
  stopInsteadOfToolCalls: number;
  /**
   * How the server behaves where real servers differ (llama.cpp's llama-server
   * does each of the non-default ones): a role-only first chunk or none; usage
   * in a chunk of its own or in the finish chunk; completion_tokens counting
   * the end-of-sequence token it does not stream; an in-stream error as a
   * `data:` event (vLLM), an `error:` field (llama.cpp) or an `event: error`;
   * a connection dropped when the next request arrives on it after a streamed
   * response, though Keep-Alive was sent; any model name accepted; requests
   * whose client left keep running (a backlog the next trial meets).
   */
  roleChunk: boolean;
  usageInFinishChunk: boolean;
  usageCountsEos: boolean;
  streamErrorForm: StreamErrorForm;
  closeAfterResponse: boolean;
  anyModel: boolean;
  cancelOnDisconnect: boolean;
  /**
   * GET /metrics: the engine's state in vLLM's names (a current V1 engine's),
   * in llama.cpp's server's (started with --metrics), or "off": 501, as
   * llama-server answers without --metrics.
   */
  metricsFormat: MetricsFormat;
  /**
   * The busy hour: UTC windows ("16:00-17:00", comma-separated) during which
   * every completion waits busyDelayMs in a queue before the engine sees it.
   */
  busyHours: string;
  busyDelayMs: number;
  /** When set, /v1 requests without `Authorization: Bearer <apiKey>` get 401 (as OpenAI answers). */
  apiKey: string;
  /** Probability per completion request of each fault; their sum is at most 1. */
  faults: Record<FaultKind, number>;
}

export const STREAM_ERROR_FORMS = ["data", "field", "event"] as const;
export type StreamErrorForm = (typeof STREAM_ERROR_FORMS)[number];
export const METRICS_FORMATS = ["vllm", "llamacpp", "off"] as const;
export type MetricsFormat = (typeof METRICS_FORMATS)[number];

const HHMM = "([01][0-9]|2[0-3]):[0-5][0-9]";
const BUSY_HOURS = new RegExp(`^(${HHMM}-${HHMM}(,${HHMM}-${HHMM})*)?$`);

/** Whether a UTC time falls in one of the busyHours windows (a window may wrap midnight). */
export function inBusyHours(busyHours: string, at: Date): boolean {
  if (busyHours === "") return false;
  const minutes = at.getUTCHours() * 60 + at.getUTCMinutes();
  const of = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
  return busyHours.split(",").some((w) => {
    const [from = 0, to = 0] = w.split("-").map(of);
    return from <= to ? minutes >= from && minutes < to : minutes >= from || minutes < to;
  });
}

/** Settings that take one of a few words. */
const CHOICE_KEYS = {
  streamErrorForm: STREAM_ERROR_FORMS,
  metricsFormat: METRICS_FORMATS,
} as const;

export const DEFAULT_PROFILE: MockProfile = {
  models: ["mock-llm"],
  seed: 1,
  maxModelLen: 8192,
  maxBatch: 64,
  kvCacheTokens: 131072,
  maxQueue: 0,
  prefillBaseMs: 8,
  prefillPerTokenMs: 0.02,
  decodeBaseMs: 6,
  decodePerSeqMs: 0.25,
  prefillScale: 1,
  decodeScale: 1,
  jitter: 0.05,
  naturalMinTokens: 16,
  naturalMaxTokens: 256,
  tokensPerChunk: 1,
  pingEveryMs: 0,
  stallEveryS: 0,
  stallMs: 0,
  loadingS: 0,
  crashAfterRequests: 0,
  prefixCache: true,
  prefixCacheBlocks: 4096,
  honorIgnoreEos: true,
  supportsTools: true,
  supportsResponseFormat: true,
  breakJson: 0,
  breakToolName: 0,
  breakToolArgs: 0,
  leakToolCall: 0,
  stopInsteadOfToolCalls: 0,
  roleChunk: true,
  usageInFinishChunk: false,
  usageCountsEos: false,
  streamErrorForm: "data",
  metricsFormat: "vllm",
  busyHours: "",
  busyDelayMs: 0,
  closeAfterResponse: false,
  anyModel: false,
  cancelOnDisconnect: true,
  apiKey: "",
  faults: recordOf(FAULT_KINDS, () => 0),
};

/** A bad profile value: an input error, with its key, value and what is accepted. */
export class MockProfileError extends InputError {
  override name = "MockProfileError";
}

type NumberRule = { min: number; max?: number; integer?: boolean };
const NUMBER_RULES = {
  seed: { min: 0, max: 2 ** 32 - 1, integer: true },
  maxModelLen: { min: 1, integer: true },
  maxBatch: { min: 1, integer: true },
  kvCacheTokens: { min: 1, integer: true },
  busyDelayMs: { min: 0, max: 600_000 },
  maxQueue: { min: 0, integer: true },
  prefillBaseMs: { min: 0 },
  prefillPerTokenMs: { min: 0 },
  decodeBaseMs: { min: 0 },
  decodePerSeqMs: { min: 0 },
  prefillScale: { min: 0 },
  decodeScale: { min: 0 },
  jitter: { min: 0, max: 2 },
  naturalMinTokens: { min: 1, integer: true },
  naturalMaxTokens: { min: 1, integer: true },
  tokensPerChunk: { min: 1, integer: true },
  pingEveryMs: { min: 0 },
  stallEveryS: { min: 0 },
  stallMs: { min: 0 },
  loadingS: { min: 0 },
  crashAfterRequests: { min: 0, integer: true },
  prefixCacheBlocks: { min: 0, integer: true },
  breakJson: { min: 0, max: 1 },
  breakToolName: { min: 0, max: 1 },
  breakToolArgs: { min: 0, max: 1 },
  leakToolCall: { min: 0, max: 1 },
  stopInsteadOfToolCalls: { min: 0, max: 1 },
} as const satisfies Partial<Record<keyof MockProfile, NumberRule>>;
type NumberKey = keyof typeof NUMBER_RULES;
const NUMBER_KEYS = Object.keys(NUMBER_RULES).filter((k): k is NumberKey => k in NUMBER_RULES);

const BOOLEAN_KEYS = [
  "honorIgnoreEos",
  "supportsTools",
  "supportsResponseFormat",
  "roleChunk",
  "usageInFinishChunk",
  "usageCountsEos",
  "closeAfterResponse",
  "anyModel",
  "cancelOnDisconnect",
  "prefixCache",
] as const;

function describeRule(rule: NumberRule): string {
  const kind = rule.integer ? "an integer" : "a number";
  return rule.max === undefined ? `${kind} ≥ ${rule.min}` : `${kind} in [${rule.min}, ${rule.max}]`;
}

function checkNumber(key: string, value: unknown, rule: NumberRule, source: string): number {
  const inRange = (v: number) =>
    Number.isFinite(v) &&
    v >= rule.min &&
    (rule.max === undefined || v <= rule.max) &&
    (!rule.integer || Number.isInteger(v));
  if (typeof value !== "number" || !inRange(value)) {
    throw new MockProfileError(
      `${source}: ${key} = ${JSON.stringify(value)} is not accepted; expected ${describeRule(rule)}`,
    );
  }
  return value;
}

function checkChoice<T extends string>(
  key: string,
  value: unknown,
  choices: readonly T[],
  source: string,
): T {
  const found = choices.find((c) => c === value);
  if (found === undefined) {
    throw new MockProfileError(
      `${source}: ${key} = ${JSON.stringify(value)} is not accepted; expected one of ${choices.join(", ")}`,
    );
  }
  return found;
}

/** Merges a partial profile (from a file or overrides) into a base and validates the result. */
export function mergeProfile(base: MockProfile, partial: unknown, source: string): MockProfile {
  if (typeof partial !== "object" || partial === null || Array.isArray(partial)) {
    throw new MockProfileError(`${source}: a profile must be a JSON object of settings`);
  }
  const next: MockProfile = { ...base, faults: { ...base.faults }, models: [...base.models] };
  for (const [key, value] of Object.entries(partial)) {
    if (key === "faults") {
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        throw new MockProfileError(`${source}: faults must be an object of fault rates`);
      }
      for (const [kind, rate] of Object.entries(value)) {
        next.faults[checkFaultKind(kind, source)] = checkNumber(
          `faults.${kind}`,
          rate,
          { min: 0, max: 1 },
          source,
        );
      }
    } else if (key === "models") {
      if (
        !Array.isArray(value) ||
        value.length === 0 ||
        !value.every((m) => typeof m === "string" && m.length > 0)
      ) {
        throw new MockProfileError(
          `${source}: models = ${JSON.stringify(value)} is not accepted; expected a non-empty list of model ids`,
        );
      }
      next.models = value;
    } else if (isOneOf(BOOLEAN_KEYS, key)) {
      if (typeof value !== "boolean") {
        throw new MockProfileError(
          `${source}: ${key} = ${JSON.stringify(value)} is not accepted; expected true or false`,
        );
      }
      next[key] = value;
    } else if (key === "busyHours") {
      if (typeof value !== "string" || !BUSY_HOURS.test(value)) {
        throw new MockProfileError(
          `${source}: busyHours = ${JSON.stringify(value)} is not accepted; expected UTC windows such as "16:00-17:00" or "09:00-10:00,16:00-17:00", or ""`,
        );
      }
      next.busyHours = value;
    } else if (key === "apiKey") {
      if (typeof value !== "string") {
        throw new MockProfileError(
          `${source}: apiKey must be a string (the key clients must send), not ${JSON.stringify(value)}`,
        );
      }
      next.apiKey = value;
    } else if (key === "streamErrorForm") {
      next.streamErrorForm = checkChoice(key, value, CHOICE_KEYS.streamErrorForm, source);
    } else if (key === "metricsFormat") {
      next.metricsFormat = checkChoice(key, value, CHOICE_KEYS.metricsFormat, source);
    } else if (isOneOf(NUMBER_KEYS, key)) {
      next[key] = checkNumber(key, value, NUMBER_RULES[key], source);
    } else {
      throw new MockProfileError(
        `${source}: unknown setting "${key}"; accepted: models, ${BOOLEAN_KEYS.join(", ")}, ${Object.keys(CHOICE_KEYS).join(", ")}, busyHours, apiKey, faults.<kind>, ${Object.keys(NUMBER_RULES).join(", ")}`,
      );
    }
  }
  return validateProfile(next, source);
}

function checkFaultKind(kind: string, source: string): FaultKind {
  if (!isOneOf(FAULT_KINDS, kind)) {
    throw new MockProfileError(
      `${source}: unknown fault "${kind}"; accepted: ${FAULT_KINDS.join(", ")}`,
    );
  }
  return kind;
}

function validateProfile(profile: MockProfile, source: string): MockProfile {
  if (profile.naturalMinTokens > profile.naturalMaxTokens) {
    throw new MockProfileError(
      `${source}: naturalMinTokens (${profile.naturalMinTokens}) must not exceed naturalMaxTokens (${profile.naturalMaxTokens})`,
    );
  }
  const total = FAULT_KINDS.reduce((sum, k) => sum + profile.faults[k], 0);
  if (total > 1 + 1e-9) {
    throw new MockProfileError(
      `${source}: fault rates add up to ${total}; their sum must be at most 1`,
    );
  }
  return profile;
}

/**
 * Parses `key=value` overrides (`decodeScale=1.15`, `faults.empty=0.1`,
 * `models=a,b`) into a partial profile. Values are JSON numbers or, for
 * models, a comma-separated list.
 */
export function parseOverrides(assignments: string[]): Record<string, unknown> {
  const partial: Record<string, unknown> = {};
  const faults: Record<string, unknown> = {};
  for (const assignment of assignments) {
    const eq = assignment.indexOf("=");
    if (eq <= 0) {
      throw new MockProfileError(
        `--set "${assignment}" is not accepted; expected key=value, e.g. decodeScale=1.15 or faults.empty=0.05`,
      );
    }
    const key = assignment.slice(0, eq).trim();
    const raw = assignment.slice(eq + 1).trim();
    if (key === "models") {
      partial.models = raw.split(",").map((m) => m.trim());
    } else if (key.startsWith("faults.")) {
      faults[key.slice("faults.".length)] = toNumber(raw);
      partial.faults = faults;
    } else {
      partial[key] = toNumber(raw);
    }
  }
  return partial;
}

function toNumber(raw: string): number | string | boolean {
  if (raw === "true" || raw === "false") return raw === "true";
  const n = Number(raw);
  return raw !== "" && Number.isFinite(n) ? n : raw;
}
