// What a gate run found — its trials, decisions, checks and servers — as the
// orchestrator returns it; the results file adds its header, the
// configuration and the words (results/model.ts).

import type { CapacityRun } from "../capacity/run.ts";
import type { Arm } from "../common/arms.ts";
import type { Guard } from "../common/guard.ts";
import type { BudgetCheck } from "../compare/budgets.ts";
import type { MetricComparison } from "../compare/decide.ts";
import type { ReliabilityComparison } from "../compare/reliability.ts";
import type { SequentialDesign } from "../compare/sequential.ts";
import type { TrialEntry } from "../compare/trials.ts";
import type { Verdict } from "../compare/verdict.ts";
import type { ContractReport } from "../contract/diff.ts";
import type { QualityReport } from "../quality/paired.ts";
import type { StartRecord } from "../servers/lifecycle.ts";
import type { IdleCheck, PreflightReport } from "../servers/preflight.ts";

/** What a gate run found. */
export interface GateRun {
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
  /** The quality suite's comparison, when one ran. */
  quality: QualityReport | null;
  /** Why the quality suite did not run, when it was asked for. */
  quality_skipped: string | null;
  /** The contract suite's diff between the arms, when it ran. */
  contract: ContractReport | null;
  /** Why the contract suite did not run, when it was asked for. */
  contract_skipped: string | null;
  /** What a reader must know about how this run was set up (shown first). */
  warnings: string[];
  /** The signal that cancelled the job (verdict cancelled), else null. */
  cancelled_by: string | null;
  /** A capacity gate's sweep of both arms and their capacities; null for a gate at a set rate. */
  capacity: CapacityRun | null;
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
