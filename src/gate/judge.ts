// The judge suite as a side-suite: its settings as the results file records
// them, its rule — the margin's fail boundary holds one share of the gate's
// α, as a rate does (compare/decide-run.ts), its pass boundary the whole of
// it — and its entry: calibrate the judge, the arms answer, the judge
// compares (judge-run.ts); re-decided from every judgement.

import { plural } from "../common/format.ts";
import { apartAlphas } from "../compare/decide-run.ts";
import type { DecisionOptions } from "../compare/verdict.ts";
import { compareJudged, type JudgeReport, type JudgeRule } from "../judge/compare.ts";
import { type JudgeOptions, plannedCalls } from "../judge/options.ts";
import { runJudge } from "./judge-run.ts";
import type { GateOptions } from "./options.ts";
import type { SideSuite } from "./suite.ts";

/** The judge's rules that take a rate's share of the fail boundaries' α: the net loss. */
export const JUDGE_SHARES = 1;

/** The judge suite's settings as the results file records them. */
export interface JudgeRecord {
  suite: string;
  items: number;
  /** Items at the first look (absent in older files: one look of all of them). */
  first_look?: number;
  judge_model: string;
  concurrency: number;
  floor_share: number;
  /** builtin, none, or the labelled pairs' file (the built-in pairs run with it). */
  calibration: string;
  rule: {
    max_loss: number;
    min_agreement: number;
    min_consistency: number;
    pass_alpha: number;
    fail_alpha: number;
  };
}

function judgePlanLine(options: GateOptions): string | null {
  const j = options.judge;
  if (!j) return null;
  const n = j.suite.items.length;
  const floor = Math.round(n * j.floorShare);
  return `plan: the judge: at most ${plannedCalls(j).toLocaleString("en-US")} requests to ${j.judge.model} (both orders of each calibration pair, item and re-run item; identical answers are not sent), and ${plural(2 * n + floor, "answer")} from the arms`;
}

/** The rule with its errors: the pass boundary's α, the fail boundary's share of it. */
export function judgeRule(j: JudgeOptions, decision: DecisionOptions): JudgeRule {
  const alphas = apartAlphas(decision);
  return {
    maxLoss: j.maxLoss,
    minAgreement: j.minAgreement,
    minConsistency: j.minConsistency,
    passAlpha: alphas.pass,
    failAlpha: alphas.fail,
  };
}

/** The rule at the default settings (α 5 %; with accuracy, one of four rates' shares beside two latencies), and of a file that records none. */
const DEFAULT_JUDGE_RULE: JudgeRule = {
  maxLoss: 0.05,
  minAgreement: 0.8,
  minConsistency: 0.7,
  passAlpha: 0.05,
  failAlpha: 0.05 / 12,
};

const ruleOf = (r: JudgeRecord["rule"]): JudgeRule => ({
  maxLoss: r.max_loss,
  minAgreement: r.min_agreement,
  minConsistency: r.min_consistency,
  passAlpha: r.pass_alpha,
  failAlpha: r.fail_alpha,
});

export const judgeSuite: SideSuite<"judge", JudgeReport, JudgeRecord> = {
  id: "judge",
  costly: true,
  asked: (options) => options.judge !== undefined,
  run: (options, deps, at) =>
    options.judge
      ? runJudge(options, options.judge, judgeRule(options.judge, options.decision), deps, at)
      : Promise.resolve(null),
  // An uncalibrated judge is shown, never gated.
  verdict: (report) => (report.gated ? report.verdict : null),
  alphaShares: () => JUDGE_SHARES,
  planLine: judgePlanLine,
  describe: (options) => {
    const j = options.judge;
    if (!j) return null;
    const rule = judgeRule(j, options.decision);
    return {
      suite: j.suite.name,
      items: j.suite.items.length,
      first_look: j.firstLook,
      judge_model: j.judge.model,
      concurrency: j.concurrency,
      floor_share: j.floorShare,
      calibration: j.calibration?.source ?? "none",
      rule: {
        max_loss: rule.maxLoss,
        min_agreement: rule.minAgreement,
        min_consistency: rule.minConsistency,
        pass_alpha: rule.passAlpha,
        fail_alpha: rule.failAlpha,
      },
    };
  },
  redecide: (report, recorded) =>
    compareJudged(
      report.suite,
      { items: report.items, floor: report.floor_items, pairs: report.pairs },
      recorded ? ruleOf(recorded.rule) : DEFAULT_JUDGE_RULE,
      {
        calls: report.calls,
        planned_calls: report.planned_calls,
        seconds: report.seconds,
        stopped: report.stopped,
        // At the look it stopped at: that look's share of each α.
        ...(report.looks ? { looks: report.looks } : {}),
      },
      report.calibration !== null,
    ),
};
