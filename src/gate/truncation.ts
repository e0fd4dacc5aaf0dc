// The truncation suite: after the pairs, a sample of each arm's requests that
// ended `stop` under load (sampled while the pairs ran, stress/stop-sample.ts)
// is replayed at idle, twice, one request at a time (stress/replay.ts), and
// the two arms' shares cut short by load are compared (stress/truncation.ts).

import { ARMS, type Arm } from "../common/arms.ts";
import { apartAlphas } from "../compare/decide-run.ts";
import type { DecisionOptions } from "../compare/verdict.ts";
import type { TruncationOptions } from "../stress/options.ts";
import { type ReplayRecord, replayArm } from "../stress/replay.ts";
import {
  compareTruncation,
  type TruncationReport,
  type TruncationRule,
} from "../stress/truncation.ts";
import type { SideSuite } from "./suite.ts";

/** The truncation suite's settings as the results file records them. */
export interface TruncationRecord {
  replay: number;
  rule: { max_increase: number; fail_alpha: number };
}

export type { TruncationReport };

/** The rule the suite adds to the gate's fail boundaries. */
export const TRUNCATION_SHARES = 1;

const ruleOf = (t: TruncationOptions, decision: DecisionOptions): TruncationRule => ({
  maxIncrease: t.maxIncrease,
  failAlpha: apartAlphas(decision).fail,
});

export const truncationSuite: SideSuite<"truncation", TruncationReport, TruncationRecord> = {
  id: "truncation",
  afterPairs: true,
  asked: (options) => options.truncation !== undefined,
  run: async (options, deps, at) => {
    const t = options.truncation;
    const samples = at.stopSamples?.();
    if (!t || !samples || !at.atRate) return null;
    const records: Record<Arm, ReplayRecord[]> = { baseline: [], candidate: [] };
    for (const arm of ARMS) {
      const o = at.atRate[arm];
      // At idle: after the cooldown and the idle check, as a trial would begin.
      if (at.settle) await at.settle(arm, o);
      else await deps.servers?.beforeTrial(arm);
      at.log(
        `truncation: replaying ${samples[arm].length} of the ${arm}'s requests that ended stop under load, at idle, twice each`,
      );
      // The trial's own timeout: an idle answer much longer than under load is the point.
      records[arm] = await replayArm(o.target, o.workload, samples[arm], o.timeoutS, deps.signal);
      await deps.servers?.afterTrial(arm, "the truncation replay");
    }
    if (deps.signal?.aborted) return null;
    const report = compareTruncation(records, ruleOf(t, options.decision));
    at.log(`truncation: ${report.verdict}: ${report.reason}`);
    return report;
  },
  verdict: (report) => report.verdict,
  alphaShares: () => TRUNCATION_SHARES,
  describe: (options) => {
    const t = options.truncation;
    if (!t) return null;
    const rule = ruleOf(t, options.decision);
    return {
      replay: t.replay,
      rule: { max_increase: rule.maxIncrease, fail_alpha: rule.failAlpha },
    };
  },
  redecide: (report, recorded) =>
    compareTruncation(
      report.records,
      recorded
        ? { maxIncrease: recorded.rule.max_increase, failAlpha: recorded.rule.fail_alpha }
        : report.rule,
    ),
};
