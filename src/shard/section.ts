// What a shard's results file adds for the merge: the plan it belongs to, its
// slice's part of every trial it measured, the trials it skipped and why, and
// its clock against the baseline server's.

import type { Arm } from "../common/arms.ts";
import type { TrialPartState } from "../trial/parts.ts";
import type { ClockReading } from "./clock.ts";

export const SHARD_SCHEMA = "llm-perf-gate/shard@2";

export interface ShardTrial {
  pair: number;
  arm: Arm;
  position: number;
  seed: number;
  part: TrialPartState;
}

/** What a shard's results file adds for the merge. */
export interface ShardSection {
  schema: typeof SHARD_SCHEMA;
  /** Of the plan's settings (the merge checks it is its own). */
  plan_hash: string;
  index: number;
  count: number;
  start_at: string;
  slot_s: number;
  trials: ShardTrial[];
  /** Trials this shard did not run (it was not ready at their time). */
  skipped: { pair: number; arm: Arm; reason: string }[];
  /** Why the shard stopped before its last trial; null: it ran them all. */
  stopped: string | null;
  /** This machine's clock against the baseline server's Date header, before the first trial. */
  clock: ClockReading | null;
}
