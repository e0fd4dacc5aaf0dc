// A sharded gate's settings: one plan over several runners (docs/sharding.md).

import type { Setting } from "./setting.ts";

export const SHARD_SETTINGS = [
  {
    name: "shard",
    scope: "gate",
    help: "Run slice i of N of the plan (every N-th request of every trial, from the i-th) at start-at, and write a shard results file for merge-from; several runners offer the load together.",
    accepts: {
      kind: "text",
      what: "i/N with 0 ≤ i < N ≤ 64 (JOB_COMPLETION_INDEX or a matrix index as i)",
    },
  },
  {
    name: "start-at",
    scope: "gate",
    help: "A sharded run's start: every shard's first trial begins then (leave each shard's preflight time before it).",
    accepts: {
      kind: "text",
      what: "an ISO 8601 time with its zone, or Unix seconds; less than a day ahead",
    },
  },
  {
    name: "merge-from",
    scope: "gate",
    help: "Decide from the shards' results files in this directory (and its subdirectories, as an artifact download lays them out) instead of measuring.",
    accepts: { kind: "text", what: "a directory" },
  },
] as const satisfies readonly Setting[];
