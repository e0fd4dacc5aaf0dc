// A profile file (JSON) and `--set key=value` overrides merged into one
// validated MockProfile; a bad value fails with its key, value and what is
// accepted.

import { isOneOf } from "../common/arrays.ts";
import { InputError } from "../common/errors.ts";
import {
  CONTEXT_ERROR_FORMS,
  FAULT_KINDS,
  type FaultKind,
  FLEET_METRICS,
  FLEET_SCALE_INS,
  METRICS_FORMATS,
  type MockProfile,
  RUNTIME_NAMES,
  STREAM_ERROR_FORMS,
} from "./profile.ts";

const HHMM = "([01][0-9]|2[0-3]):[0-5][0-9]";
const BUSY_HOURS = new RegExp(`^(${HHMM}-${HHMM}(,${HHMM}-${HHMM})*)?$`);

/** Settings that take one of a few words. */
const CHOICE_KEYS = {
  streamErrorForm: STREAM_ERROR_FORMS,
  metricsFormat: METRICS_FORMATS,
  contextErrorForm: CONTEXT_ERROR_FORMS,
  runtimeName: RUNTIME_NAMES,
  fleetMetric: FLEET_METRICS,
  fleetScaleIn: FLEET_SCALE_INS,
} as const;
const VERSION = /^[\w.+-]{0,40}$/;

/** A bad profile value: an input error, with its key, value and what is accepted. */
export class MockProfileError extends InputError {
  override name = "MockProfileError";
}

/** `above`: the value must exceed min (a target of 0 would divide by zero). */
type NumberRule = { min: number; max?: number; integer?: boolean; above?: boolean };
const NUMBER_RULES = {
  seed: { min: 0, max: 2 ** 32 - 1, integer: true },
  maxModelLen: { min: 1, integer: true },
  maxBatch: { min: 1, integer: true },
  kvCacheTokens: { min: 1, integer: true },
  busyDelayMs: { min: 0, max: 600_000 },
  maxQueue: { min: 0, integer: true },
  recoveryLagS: { min: 0, max: 3600 },
  recoveryScale: { min: 1, max: 100 },
  truncateAboveRunning: { min: 0, integer: true },
  truncateShare: { min: 0.01, max: 1 },
  lengthNondeterminism: { min: 0, max: 1 },
  drainS: { min: 0, max: 3600 },
  stopExitCode: { min: 0, max: 255, integer: true },
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
  reasoningTokens: { min: 0, max: 1_000_000, integer: true },
  specDecodeTokens: { min: 0, max: 64, integer: true },
  specDecodeAcceptance: { min: 0, max: 1 },
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
  healthStallMs: { min: 0, max: 600_000 },
  rateLimitTokensPerMin: { min: 0, integer: true },
  accuracy: { min: 0, max: 1 },
  accuracyFlips: { min: 0, max: 1 },
  accuracyNondeterminism: { min: 0, max: 1 },
  quantNoise: { min: 0, max: 100 },
  judgeWorse: { min: 0, max: 1 },
  judgeVariation: { min: 0, max: 1 },
  judgePositionBias: { min: 0, max: 1 },
  judgeLengthBias: { min: 0, max: 10 },
  judgeNoise: { min: 0, max: 10 },
  judgeProse: { min: 0, max: 1 },
  fleetReplicas: { min: 0, integer: true },
  fleetMaxReplicas: { min: 1, integer: true },
  fleetTarget: { min: 0, above: true },
  fleetIntervalS: { min: 0.1, max: 60 },
  fleetStabilizationS: { min: 0, max: 3600 },
  fleetScaleUpDelayS: { min: 0, max: 3600 },
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
  "errorCode",
  "cumulativeDeltas",
  "retryAfter",
  "honorStop",
  "honorN",
  "promptLogprobs",
  "judgeFollowsInjection",
] as const;

function describeRule(rule: NumberRule): string {
  const kind = rule.integer ? "an integer" : "a number";
  if (rule.max === undefined) return `${kind} ${rule.above ? ">" : "≥"} ${rule.min}`;
  return `${kind} in ${rule.above ? "(" : "["}${rule.min}, ${rule.max}]`;
}

function checkNumber(key: string, value: unknown, rule: NumberRule, source: string): number {
  const inRange = (v: number) =>
    Number.isFinite(v) &&
    (rule.above ? v > rule.min : v >= rule.min) &&
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
    } else if (key === "runtimeVersion") {
      // --set runtimeVersion=1.5 arrives as a number.
      const version = typeof value === "number" ? String(value) : value;
      if (typeof version !== "string" || !VERSION.test(version)) {
        throw new MockProfileError(
          `${source}: runtimeVersion = ${JSON.stringify(String(value).slice(0, 60))} is not accepted; expected up to 40 letters, digits, dots, dashes or pluses`,
        );
      }
      next.runtimeVersion = version;
    } else if (isOneOf(CHOICE_NAMES, key)) {
      mergeChoice(next, key, value, source);
    } else if (isOneOf(NUMBER_KEYS, key)) {
      next[key] = checkNumber(key, value, NUMBER_RULES[key], source);
    } else {
      throw new MockProfileError(
        `${source}: unknown setting "${key}"; accepted: models, ${BOOLEAN_KEYS.join(", ")}, ${Object.keys(CHOICE_KEYS).join(", ")}, busyHours, apiKey, runtimeVersion, faults.<kind>, ${Object.keys(NUMBER_RULES).join(", ")}`,
      );
    }
  }
  return validateProfile(next, source);
}

const CHOICE_NAMES = Object.keys(CHOICE_KEYS).filter(
  (k): k is keyof typeof CHOICE_KEYS => k in CHOICE_KEYS,
);

/** A word setting, checked against its words (each key's type is its list's). */
function mergeChoice(
  next: MockProfile,
  key: keyof typeof CHOICE_KEYS,
  value: unknown,
  source: string,
): void {
  Object.assign(next, { [key]: checkChoice(key, value, CHOICE_KEYS[key], source) });
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
  if (profile.fleetReplicas > profile.fleetMaxReplicas) {
    throw new MockProfileError(
      `${source}: fleetReplicas (${profile.fleetReplicas}) must not exceed fleetMaxReplicas (${profile.fleetMaxReplicas})`,
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
