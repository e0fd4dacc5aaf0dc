// What a gate run found — its trials, decisions, checks, side-suites and
// servers — as the orchestrator returns it, assembled in one place
// (runRecord) for a gate, a shard, a merge and a run that measured nothing;
// the results file adds its header, the configuration and the words
// (results/model.ts).

import type { CapacityRun } from "../capacity/run.ts";
import type { Arm } from "../common/arms.ts";
import type { Guard } from "../common/guard.ts";
import type { BudgetCheck } from "../compare/budgets.ts";
import type { MetricComparison } from "../compare/metric.ts";
import type { ReliabilityComparison } from "../compare/reliability.ts";
import type { SequentialDesign } from "../compare/sequential.ts";
import type { TrialEntry } from "../compare/trials.ts";
import type { Verdict } from "../compare/verdict.ts";
import type { StartRecord } from "../servers/lifecycle.ts";
import type { IdleCheck, PreflightReport } from "../servers/preflight.ts";
import type { RunCost } from "./cost.ts";
import { noSuiteFields, type SuiteFields } from "./suites.ts";

/** What a gate run found; each side-suite's report (null: not run) and why one asked for did not run. */
export interface GateRun extends SuiteFields {
  trials: TrialEntry[];
  comparisons: MetricComparison[];
  /** The failure rates of both arms, compared; null before any trial ran. */
  reliability: ReliabilityComparison | null;
  /** Each absolute budget set, checked on the candidate (empty: none set). */
  budgets: BudgetCheck[];
  /** Why there is no performance verdict (empty when there is one). */
  guards: Guard[];
  verdict: Verdict;
  pairs: number;
  /** The sequential design the verdict followed: its looks (pairs) and critical values; null: none ran. */
  design: SequentialDesign | null;
  /** Each arm's check before its first trial. */
  preflight: PreflightReport[];
  /** The idle check before each trial (busy: the server was still busy when the trial began). */
  idle_checks: IdleRecord[];
  /** Pairs run again because a trial failed its self-checks. */
  reruns: RerunRecord[];
  /** Servers the gate started: readiness, cold start, logs. */
  servers: StartRecord[];
  /** What a reader must know about how this run was set up (shown first). */
  warnings: string[];
  /** The signal that cancelled the job (verdict cancelled), else null. */
  cancelled_by: string | null;
  /** A capacity gate's sweep of both arms and their capacities; null for a gate at a set rate. */
  capacity: CapacityRun | null;
  /** What the verdict cost (null: a run that measured nothing, a shard, a merge, an older file). */
  cost: RunCost | null;
}

export interface IdleRecord extends IdleCheck {
  pair: number;
  arm: Arm;
}

export interface RerunRecord {
  pair: number;
  /** 1 for the first re-run of the pair. */
  attempt: number;
  invalid: { arm: Arm; reasons: string[] }[];
}

/** What a run found, as its record takes it: the verdict and its guards, the rest where found. */
export type RunFound = Partial<Omit<GateRun, "pairs">> & Pick<GateRun, "verdict" | "guards">;

/** A run's record: what it found, the rest empty; its pairs counted from its trials. */
export function runRecord(found: RunFound): GateRun {
  const trials = found.trials ?? [];
  return {
    comparisons: [],
    reliability: null,
    budgets: [],
    design: null,
    preflight: [],
    idle_checks: [],
    reruns: [],
    servers: [],
    warnings: [],
    cancelled_by: null,
    capacity: null,
    cost: null,
    ...noSuiteFields(),
    ...found,
    trials,
    pairs: new Set(trials.map((t) => t.pair)).size,
  };
}
