// The shape every side-suite shares: asked for or not, run on both arms, its
// verdict, its settings as the results file records them, and its verdict
// decided again from the evidence a results file holds.

import type { AccuracyReport } from "../accuracy/compare.ts";
import type { Arm } from "../common/arms.ts";
import type { TrialEntry } from "../compare/trials.ts";
import type { ContractReport } from "../contract/diff.ts";
import type { QualityReport } from "../quality/paired.ts";
import type { StopSample } from "../stress/stop-sample.ts";
import type { TrialOptions } from "../trial/measure.ts";
import type { AccuracyRecord } from "./accuracy.ts";
import type { MeasureArm } from "./capacity.ts";
import type { ContractRecord } from "./contract.ts";
import type { DrainRecord, DrainReport } from "./drain.ts";
import type { GateDeps, GateOptions } from "./options.ts";
import type { QualityRecord } from "./quality.ts";
import type { SurgeRecord, SurgeReport } from "./surge.ts";
import type { TruncationRecord, TruncationReport } from "./truncation.ts";

/** Each suite's report. */
export interface SuiteReports {
  quality: QualityReport;
  contract: ContractReport;
  accuracy: AccuracyReport;
  truncation: TruncationReport;
  surge: SurgeReport;
  drain: DrainReport;
}

/** Each suite's settings, as the results file records them. */
export interface SuiteRecords {
  quality: QualityRecord;
  contract: ContractRecord;
  accuracy: AccuracyRecord;
  truncation: TruncationRecord;
  surge: SurgeRecord;
  drain: DrainRecord;
}

export type SuiteId = keyof SuiteReports;

/** A suite's verdict: inconclusive where its evidence cannot decide (the run then is too). */
export type SuiteVerdict = "pass" | "fail" | "inconclusive";

export interface SuiteContext {
  log: (line: string) => void;
  /** The paired trials so far: evidence some suites take from them. */
  trials: readonly TrialEntry[];
  /** The requests file's number for a run of requests: one numbering with the trials, in the order the gate made them. */
  nextTrial: () => number;
  /** Measures one arm as the pairs' trials are (a suite of trials: the surge); absent: a shard. */
  measureArm?: MeasureArm;
  /** The pairs' options (a capacity gate's at the baseline's capacity), and that capacity (req/s). */
  atRate?: Record<Arm, TrialOptions>;
  capacityPerS?: number;
  /** Makes an arm ready for requests outside the trials: the cooldown, the server hooks, the idle check. */
  settle?: (arm: Arm, options: TrialOptions) => Promise<void>;
  /** Each arm's requests that ended stop under load in the pairs, sampled (the truncation replay's). */
  stopSamples?: () => Record<Arm, StopSample[]>;
  /** What regressed already when fail-fast is on: suites that cost much (the surge) do not run. */
  failedAlready?: string;
}

export interface SideSuite<K extends SuiteId> {
  id: K;
  /** It always runs after the pairs (it disturbs the server), fail-fast or not. */
  afterPairs?: boolean;
  /** Whether the gate was asked to run it. */
  asked(options: GateOptions): boolean;
  /** Runs it on both arms; null when a cancel stopped it part-way. */
  run(options: GateOptions, deps: GateDeps, at: SuiteContext): Promise<SuiteReports[K] | null>;
  verdict(report: SuiteReports[K]): SuiteVerdict;
  /** Its settings for the results file (null: not asked for). */
  describe(options: GateOptions): SuiteRecords[K] | null;
  /** The report with its verdict decided again from its evidence (recorded: null in older files). */
  redecide(report: SuiteReports[K], recorded: SuiteRecords[K] | null): SuiteReports[K];
  /**
   * The report with the paired trials' own evidence added, when the suite ran
   * before them (absent: it takes none).
   */
  afterTrials?(
    report: SuiteReports[K],
    options: GateOptions,
    trials: readonly TrialEntry[],
  ): SuiteReports[K];
}
