// A guard: a reason a run's numbers cannot be compared as they are, structured
// (a code, the arm and pair it concerns, the numbers) and carrying its words.
// Most mean the measurement cannot be trusted (no performance verdict); a
// "candidate" guard only says the candidate's own numbers are unusable, which
// a reliability regression explains.

import type { Arm } from "./arms.ts";
import type { Outcome } from "./outcomes.ts";

export type GuardCode =
  | "invalid_trial"
  | "baseline_failures"
  | "quota"
  | "few_ok_requests"
  | "no_samples"
  | "workload_mismatch"
  | "preflight"
  | "server"
  | "configuration"
  | "results_file"
  // One shard's results: the merge of every shard decides.
  | "shard"
  // The shards' clocks disagree beyond the limit: their sends were not on one schedule.
  | "clock_skew"
  // The file written at the start, still there: the run ended before its results.
  | "unfinished"
  // Not one complete pair to compare, and nothing else said why (a results file stripped of its trials).
  | "no_pairs";

export interface Guard {
  code: GuardCode;
  /** One line, in words. */
  message: string;
  /** Further lines (a server's log tail, a response excerpt), shown apart from the message. */
  detail?: string;
  /** "candidate": only the candidate's numbers are unusable; a reliability regression decides. */
  scope?: "measurement" | "candidate";
  arm?: Arm;
  /** 0-based pair number. */
  pair?: number;
  /** Requests by failure class (baseline_failures, quota). */
  classes?: Partial<Record<Outcome, number>>;
}

/** Guards that leave no performance verdict (all but the candidate's own). */
export const blocksVerdict = (g: Guard): boolean => g.scope !== "candidate";
