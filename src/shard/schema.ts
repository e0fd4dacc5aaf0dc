// The shard section of a shard's results file, as the merge accepts it: every
// field typed and bounded (a file from another job is hostile input), before
// anything is read from it. Encoded histograms are checked again where they
// are decoded (metrics/hdr-check.ts).

import { Ajv2020 } from "ajv/dist/2020.js";
import { ARMS } from "../common/arms.ts";
import { OUTCOMES } from "../common/outcomes.ts";
import { describeSchemaError } from "../common/schema-errors.ts";
import { COUNTS, HISTOGRAMS } from "../metrics/recorder-state.ts";
import { MAX_BUCKETS, MAX_REPLICAS, SAMPLES_PER_BUCKET } from "../metrics/timeline.ts";
import { SHARD_SCHEMA, type ShardSection } from "./section.ts";

const num = { type: "number", minimum: -1e15, maximum: 1e15 } as const;
const pos = { type: "number", minimum: 0, maximum: 1e15 } as const;
const int = { type: "integer", minimum: 0, maximum: 1e12 } as const;
const text = (maxLength: number) => ({ type: "string", maxLength }) as const;
const nullable = (s: object) => ({ anyOf: [{ type: "null" }, s] });
const object = (properties: Record<string, unknown>, optional: string[] = []) => ({
  type: "object",
  properties,
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  additionalProperties: false,
});
const record = (keys: readonly string[], value: unknown) =>
  object(Object.fromEntries(keys.map((k) => [k, value])));
const list = (items: unknown, maxItems: number) => ({ type: "array", items, maxItems });

const histogram = object({
  encoded: { type: "string", maxLength: 2 * 1024 * 1024, pattern: "^[A-Za-z0-9+/]*={0,2}$" },
  sum_ms: pos,
  max_ms: pos,
  censored: int,
  censor_ms: pos,
});
const example = object(
  {
    index: int,
    status: { type: "integer", minimum: 0, maximum: 999 },
    error_type: text(2100),
    error_code: text(2100),
    detail: text(10_000),
    headers: { type: "object", additionalProperties: text(2000), maxProperties: 100 },
    body: text(100_000),
  },
  ["error_type", "error_code", "detail", "headers", "body"],
);
const dimension = object({
  limit: nullable(pos),
  remaining_min: nullable(pos),
  reset: nullable(text(40)),
});

const recorder = object({
  outcomes: record(OUTCOMES, int),
  histograms: record(HISTOGRAMS, histogram),
  counts: record(COUNTS, pos),
  examples: {
    type: "object",
    propertyNames: { enum: [...OUTCOMES] },
    additionalProperties: list(example, 3),
  },
  finish_reasons: {
    type: "object",
    maxProperties: 9,
    propertyNames: { maxLength: 100 },
    additionalProperties: int,
  },
  offered: list(
    { type: "array", prefixItems: [num, int, int], items: false, minItems: 3 },
    1_000_000,
  ),
  reasoning: object({
    ttfa: histogram,
    requests: int,
    reasoningChunks: int,
    answerChunks: int,
    usageRequests: int,
    reasoningTokens: pos,
    reasoningCompletionTokens: pos,
    cachedReported: { type: "boolean" },
    cachedTokens: pos,
    promptTokens: pos,
  }),
  rate_limits: nullable(
    object({ responses: int, requests: dimension, tokens: dimension, retry_after: int }),
  ),
});

const bucket = object(
  {
    k: { type: "integer", minimum: 0, maximum: MAX_BUCKETS },
    offered: int,
    completed: int,
    failed: { type: "object", propertyNames: { enum: [...OUTCOMES] }, additionalProperties: int },
    ttft: list(pos, SAMPLES_PER_BUCKET),
    itl: list(pos, SAMPLES_PER_BUCKET),
    good: int,
    served: {
      type: "object",
      maxProperties: MAX_REPLICAS,
      propertyNames: { maxLength: 64 },
      additionalProperties: { type: "array", items: num, minItems: 2, maxItems: 2 },
    },
  },
  ["good", "served"],
);

const part = object({
  slice: object({
    index: { type: "integer", minimum: 0, maximum: 63 },
    count: { type: "integer", minimum: 1, maximum: 64 },
  }),
  recorder,
  prompt: object({ intended: pos, server: pos, requests: int, countedBy: text(500) }),
  last_end_ms: nullable(pos),
  timeline: list(bucket, MAX_BUCKETS + 1),
  readings: object({
    eventLoopDelayMs: object({ p50: pos, p99: pos, max: pos }),
    gc: object({ count: int, totalMs: pos }),
    cpu: object({ userMs: pos, systemMs: pos, wallMs: pos, shareOfCore: pos }),
  }),
  hard_stopped: { type: "boolean" },
  never_due: int,
  gauges: list(
    object({ atMs: num, running: pos, waiting: pos, replicas: pos }, [
      "running",
      "waiting",
      "replicas",
    ]),
    100_000,
  ),
});

const section = object({
  schema: { const: SHARD_SCHEMA },
  plan_hash: { type: "string", pattern: "^[0-9a-f]{64}$" },
  index: { type: "integer", minimum: 0, maximum: 63 },
  count: { type: "integer", minimum: 1, maximum: 64 },
  start_at: text(40),
  slot_s: pos,
  trials: list(
    object({
      pair: { type: "integer", minimum: 0, maximum: 99 },
      arm: { enum: [...ARMS] },
      position: { type: "integer", minimum: 0, maximum: 1 },
      seed: num,
      part,
    }),
    200,
  ),
  skipped: list(object({ pair: int, arm: { enum: [...ARMS] }, reason: text(2000) }), 200),
  stopped: nullable(text(2000)),
  clock: nullable(
    object({
      offset_ms: nullable(num),
      within_ms: nullable(pos),
      samples: int,
      note: nullable(text(2000)),
    }),
  ),
});

const validate = new Ajv2020({ allErrors: false, strict: false }).compile<ShardSection>(section);

/** Why this is not a shard section the merge can read; null when it is one. */
export function sectionProblem(x: unknown): string | null {
  const schema = typeof x === "object" && x !== null && "schema" in x ? x.schema : undefined;
  if (typeof schema === "string" && schema !== SHARD_SCHEMA)
    return `its shard section is ${JSON.stringify(schema.slice(0, 60))}, and this merge reads ${SHARD_SCHEMA}: run the shards and the merge with the same version`;
  return validate(x) ? null : describeSchemaError(validate.errors, "the shard section");
}
