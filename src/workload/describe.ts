// The workload as reports show it: the arrival, the lengths, the prompts'
// source, shared prefixes and sessions, in words.

import { describeArrivals } from "./arrivals.ts";
import { formatLengthSpec } from "./lengths.ts";
import type { PrefixSpec, WorkloadSpec } from "./plan.ts";

/** The workload spec as reports show it. */
export interface WorkloadDescription {
  arrival: string;
  seed: number;
  warmup_s: number;
  duration_s: number;
  input_len: string;
  output_len: string | null;
  max_tokens: number | null;
  ignore_eos: boolean;
  dataset: string | null;
  /** "8 groups × 512 tokens, uniform" before each prompt, or null. */
  prefix: string | null;
  /** "4 turns, think 1 s, later turns 64 tokens" (the arrivals start sessions), or null. */
  sessions: string | null;
}

export function describePrefix(p: PrefixSpec | undefined): string | null {
  if (!p) return null;
  const pick = p.zipfS === 0 ? "uniform" : `zipf ${p.zipfS}`;
  return `${p.groups} ${p.groups === 1 ? "group" : "groups"} × ${p.tokens} tokens, ${pick}`;
}

export function describeWorkload(w: WorkloadSpec): WorkloadDescription {
  return {
    // With sessions the arrivals are sessions, each of several requests.
    arrival: w.sessions
      ? describeArrivals(w.arrival).replace(/ req\/s\b/g, " sessions/s")
      : describeArrivals(w.arrival),
    seed: w.seed,
    warmup_s: w.warmupS,
    duration_s: w.durationS,
    input_len: w.trace ? "trace" : w.dataset ? "dataset" : formatLengthSpec(w.inputLen),
    output_len: w.trace ? "trace" : w.outputLen ? formatLengthSpec(w.outputLen) : null,
    max_tokens: w.maxTokens ?? null,
    ignore_eos: w.ignoreEos,
    dataset: w.dataset?.name ?? null,
    prefix: w.dataset ? null : describePrefix(w.prefix),
    sessions: w.sessions
      ? `${w.dataset ? "up to " : ""}${w.sessions.turns} turns, think ${w.sessions.thinkS} s, later turns ${w.dataset ? "from the dataset" : `${formatLengthSpec(w.sessions.laterInputLen)} tokens`}`
      : null,
  };
}
