// A sharded run's settings: this run's slice of the plan and the plan's start
// (`shard`, `start-at`), or the directory a merge reads the shards from
// (`merge-from`). A sharded plan is fixed ahead — no looks, no re-runs — so
// what it cannot split is refused here, naming the setting.

import { InputError, rejectValue } from "../common/errors.ts";
import type { ShardSettings } from "../gate/options.ts";
import { given, type RawSettings, value } from "./settings.ts";

export const MAX_SHARDS = 64;

/** "i/N" → the slice; anything else is refused with what is accepted. */
export function parseShardSpec(raw: string): { index: number; count: number } {
  const m = /^\s*(\d{1,3})\s*\/\s*(\d{1,3})\s*$/.exec(raw);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || count > MAX_SHARDS || index >= count)
    throw rejectValue("shard", raw, `i/N with 0 ≤ i < N ≤ ${MAX_SHARDS}`);
  return { index, count };
}

/** An ISO 8601 time with its zone, or Unix seconds → Unix ms. */
export function parseStartAt(raw: string, nowMs = Date.now()): number {
  const t = raw.trim();
  const ms = /^\d{9,11}(\.\d+)?$/.test(t)
    ? Number(t) * 1000
    : /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(t)
      ? Date.parse(t)
      : Number.NaN;
  // Timers of a day or more ahead are not what a run waits for (and past 24.8 days they overflow).
  if (!Number.isFinite(ms) || ms > nowMs + 86_400_000)
    throw rejectValue(
      "start-at",
      raw,
      "an ISO 8601 time with its zone (2026-12-02T15:00:00Z), or Unix seconds, less than a day ahead",
    );
  return ms;
}

export function parseShard(raw: RawSettings): ShardSettings | undefined {
  const spec = value(raw, "shard");
  const startAt = value(raw, "start-at");
  if (spec === undefined) {
    if (startAt !== undefined)
      throw new InputError("start-at is set, but shard is not: it is the start of a sharded run");
    return undefined;
  }
  if (given(raw, "merge-from") !== undefined)
    throw new InputError(
      "shard and merge-from are both set: a run either measures its slice or merges the shards",
    );
  if (startAt === undefined)
    throw new InputError(
      `shard = ${JSON.stringify(spec)} needs start-at: every shard starts the plan at the same time`,
    );
  return { ...parseShardSpec(spec), startAtUnixMs: parseStartAt(startAt) };
}

/** The sharding settings of a gate: neither, a shard, or a merge. */
export function parseSharding(raw: RawSettings): { shard?: ShardSettings; mergeFrom?: string } {
  const shard = parseShard(raw);
  const mergeFrom = value(raw, "merge-from");
  return { ...(shard ? { shard } : {}), ...(mergeFrom !== undefined ? { mergeFrom } : {}) };
}

/** What a sharded plan cannot split, named: the settings a shard or a merge refuses. */
export function refuseUnsplittable(
  raw: RawSettings,
  facts: {
    capacity: boolean;
    maxConcurrency: boolean;
    sessions: boolean;
    servers: boolean;
    workers: boolean;
    stress: boolean;
  },
): void {
  const why = [
    facts.capacity && "capacity (the sweep chooses rates as it goes)",
    facts.maxConcurrency && "max-concurrency (one cap over every shard's requests)",
    facts.sessions && "sessions of more than one turn (a turn waits on the previous answer)",
    facts.servers && "servers the gate starts (each shard would start its own)",
    facts.workers && "workers (a shard is one thread: run more shards)",
    facts.stress &&
      "surge, scaling or truncation-replay (they run after every pair, on one machine)",
  ].filter((x): x is string => typeof x === "string");
  if (why.length === 0) return;
  const mode = given(raw, "merge-from") !== undefined ? "merge-from" : "shard";
  throw new InputError(
    `${mode} is set, but a sharded plan cannot split ${why.join(", ")}: run those unsharded`,
  );
}
