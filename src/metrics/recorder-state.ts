// A trial recorder's whole state as JSON, and its merge: what a shard writes
// of each trial it ran and what `merge` adds up. Histograms merge exactly (the
// same HDR counts as had one process recorded every request), counts add,
// and the failure examples keep the plan's earliest requests.

import { OUTCOMES, type Outcome } from "../common/outcomes.ts";
import { type HistogramState, LatencyHistogram } from "./histogram.ts";
import type { RateLimitSummary } from "./rate-limits.ts";
import type { ReasoningState } from "./reasoning.ts";
import { EXAMPLES_PER_CLASS, type FailureExample, type TrialRecorder } from "./recorder.ts";

export const HISTOGRAMS = [
  "ttft",
  "e2el",
  "ttftService",
  "e2elService",
  "firstByte",
  "tpot",
  "itl",
  "itlPerToken",
  "sendSkew",
  "ttftOnTime",
  "e2elOnTime",
  "slotWait",
] as const satisfies readonly (keyof TrialRecorder)[];

export const COUNTS = [
  "lateSends",
  "openLimited",
  "outputTokens",
  "outputChunks",
  "usageRequests",
  "usageTokens",
  "usageChunks",
  "usageWithEos",
  "reconnects",
  "good",
  "goodOnTime",
] as const satisfies readonly (keyof TrialRecorder)[];

export interface RecorderState {
  outcomes: Record<Outcome, number>;
  histograms: Record<(typeof HISTOGRAMS)[number], HistogramState>;
  counts: Record<(typeof COUNTS)[number], number>;
  examples: Partial<Record<Outcome, FailureExample[]>>;
  finish_reasons: Record<string, number>;
  /** The offered-rate windows, by index from the trial's start: [index, scheduled, sent]. */
  offered: [number, number, number][];
  reasoning: ReasoningState;
  rate_limits: RateLimitSummary | null;
}

const mapOf = <K extends string, V>(keys: readonly K[], value: (k: K) => V): Record<K, V> =>
  Object.fromEntries(keys.map((k) => [k, value(k)])) as Record<K, V>;

export function recorderState(rec: TrialRecorder): RecorderState {
  return {
    outcomes: { ...rec.outcomes },
    histograms: mapOf(HISTOGRAMS, (k) => rec[k].state()),
    counts: mapOf(COUNTS, (k) => rec[k]),
    examples: rec.examples,
    finish_reasons: { ...rec.finishReasons },
    offered: [...rec.offered].map(([k, w]) => [k, w.scheduled, w.sent]),
    reasoning: rec.reasoning.state(),
    rate_limits: rec.rateLimits.summary(),
  };
}

/** Adds a shard's state to the recorder: afterwards it is as if it had recorded both. */
export function mergeRecorderState(rec: TrialRecorder, s: RecorderState): void {
  for (const o of OUTCOMES) rec.outcomes[o] += s.outcomes[o];
  for (const k of HISTOGRAMS) rec[k].add(LatencyHistogram.fromState(s.histograms[k]));
  for (const k of COUNTS) rec[k] += s.counts[k];
  for (const o of OUTCOMES) {
    const both = [...(rec.examples[o] ?? []), ...(s.examples[o] ?? [])];
    if (both.length === 0) continue;
    rec.examples[o] = both.sort((a, b) => a.index - b.index).slice(0, EXAMPLES_PER_CLASS);
  }
  for (const [reason, n] of Object.entries(s.finish_reasons)) rec.countFinish(reason, n);
  for (const [k, scheduled, sent] of s.offered) {
    const w = rec.offered.get(k) ?? { scheduled: 0, sent: 0 };
    rec.offered.set(k, { scheduled: w.scheduled + scheduled, sent: w.sent + sent });
  }
  rec.reasoning.merge(s.reasoning);
  rec.rateLimits.merge(s.rate_limits);
}
