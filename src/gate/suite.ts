// The shape every side-suite shares: asked for or not, run on both arms, its
// verdict, its settings as the results file records them, and its verdict
// decided again from the evidence a results file holds.

import type { Arm } from "../common/arms.ts";
import type { TrialEntry } from "../compare/trials.ts";
import type { StopSample } from "../stress/stop-sample.ts";
import type { TrialOptions } from "../trial/measure.ts";
import type { MeasureArm } from "./capacity.ts";
import type { GateDeps, GateOptions } from "./options.ts";

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

/** One side-suite: `Report` what it found, `Recorded` its settings as the results file keeps them. */
export interface SideSuite<Id extends string, Report, Recorded> {
  id: Id;
  /** It always runs after the pairs (it disturbs the server), fail-fast or not. */
  afterPairs?: boolean;
  /** It costs minutes (a suite of items or of long trials): with fail-fast, a regression already confirmed skips it. */
  costly?: boolean;
  /** Whether the gate was asked to run it. */
  asked(options: GateOptions): boolean;
  /** What it will cost, said before the first trial (absent or null: nothing to say). */
  planLine?(options: GateOptions): string | null;
  /** Runs it on both arms; null when a cancel stopped it part-way. */
  run(options: GateOptions, deps: GateDeps, at: SuiteContext): Promise<Report | null>;
  /** Its verdict as the gate takes it; null: shown, not part of the gate's verdict. */
  verdict(report: Report): SuiteVerdict | null;
  /** Its settings for the results file (null: not asked for). */
  describe(options: GateOptions): Recorded | null;
  /** The rates' shares of the fail boundaries' α its rules hold, from its recorded settings (absent: none). */
  alphaShares?(recorded: Recorded): number;
  /** The report with its verdict decided again from its evidence (recorded: null in older files). */
  redecide(report: Report, recorded: Recorded | null): Report;
  /**
   * The report with the paired trials' own evidence added, when the suite ran
   * before them (absent: it takes none).
   */
  afterTrials?(report: Report, options: GateOptions, trials: readonly TrialEntry[]): Report;
}
