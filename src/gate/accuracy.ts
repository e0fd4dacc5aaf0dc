// The accuracy suite as a side-suite: its options, its settings as the
// results file records them, its rule — the fail boundary holds one share of
// the gate's α, as a rate does (compare/decide-run.ts); its pass boundary the
// whole of it — and its entry: run on both arms (accuracy-run.ts), re-decided
// from every item's answers.

import { type AccuracyReport, type AccuracyRule, compareAccuracy } from "../accuracy/compare.ts";
import { ruleAtLook } from "../accuracy/looks.ts";
import type { AccuracyOptions } from "../accuracy/options.ts";
import { apartAlphas } from "../compare/decide-run.ts";
import type { DecisionOptions } from "../compare/verdict.ts";
import { runAccuracy } from "./accuracy-run.ts";
import type { SideSuite } from "./suite.ts";

/** The accuracy suite's settings as the results file records them. */
export interface AccuracyRecord {
  suite: string;
  items: number;
  /** Items at the first look (absent in older files: one look of all of them). */
  first_look?: number;
  /** As set: auto resolves at the run, from what the servers say (the log says to what). */
  concurrency: number | "auto";
  floor_share: number;
  top_logprobs: number;
  rule: {
    max_drop: number;
    max_flip_rate: number | null;
    max_kld: number | null;
    pass_alpha: number;
    fail_alpha: number;
  };
}

/** The rules accuracy adds to the gate's fail boundaries: the drop, and each optional limit set. */
export const accuracyShares = (a: Pick<AccuracyOptions, "maxFlipRate" | "maxKld">): number =>
  1 + (a.maxFlipRate === null ? 0 : 1) + (a.maxKld === null ? 0 : 1);

/** The same from the rule a results file records. */
export const apartRatesOf = (rule: AccuracyRecord["rule"]): number =>
  accuracyShares({ maxFlipRate: rule.max_flip_rate, maxKld: rule.max_kld });

/**
 * The rule at the default settings — τ 2 points, α 5 %, the fail boundary one
 * of three rates' shares beside two gated latencies (α ÷ 9) — and of a
 * results file that records none.
 */
export const DEFAULT_ACCURACY_RULE: AccuracyRule = {
  maxDrop: 0.02,
  passAlpha: 0.05,
  failAlpha: 0.05 / 9,
  maxFlipRate: null,
  maxKld: null,
};

/** The rule with its errors: the pass boundary's α, the fail boundary's share of it. */
export function accuracyRule(a: AccuracyOptions, decision: DecisionOptions): AccuracyRule {
  const alphas = apartAlphas(decision);
  return {
    maxDrop: a.maxDrop,
    passAlpha: alphas.pass,
    failAlpha: alphas.fail,
    maxFlipRate: a.maxFlipRate,
    maxKld: a.maxKld,
  };
}

/** The rule a results file records, as the comparison takes it. */
const ruleOf = (r: AccuracyRecord["rule"]): AccuracyRule => ({
  maxDrop: r.max_drop,
  passAlpha: r.pass_alpha,
  failAlpha: r.fail_alpha,
  maxFlipRate: r.max_flip_rate,
  maxKld: r.max_kld,
});

/** The rule as the look a report stopped at judged it (older files: one look, the whole α). */
const atTheLook = (rule: AccuracyRule, looks: AccuracyReport["looks"]): AccuracyRule =>
  looks ? ruleAtLook(rule, looks.items, looks.at) : rule;

/** The accuracy suite as a side-suite: re-decided from every item's answers under the recorded rule. */
export const accuracySuite: SideSuite<"accuracy", AccuracyReport, AccuracyRecord> = {
  id: "accuracy",
  costly: true,
  asked: (options) => options.accuracy !== undefined,
  run: (options, deps, at) =>
    options.accuracy
      ? runAccuracy(
          options,
          options.accuracy,
          accuracyRule(options.accuracy, options.decision),
          deps,
          at,
        )
      : Promise.resolve(null),
  verdict: (report) => report.verdict,
  alphaShares: (recorded) => apartRatesOf(recorded.rule),
  describe: (options) => {
    const a = options.accuracy;
    if (!a) return null;
    const rule = accuracyRule(a, options.decision);
    return {
      suite: a.suite.name,
      items: a.suite.items.length,
      first_look: a.firstLook,
      concurrency: a.concurrency,
      floor_share: a.floorShare,
      top_logprobs: a.topLogprobs,
      rule: {
        max_drop: rule.maxDrop,
        max_flip_rate: rule.maxFlipRate,
        max_kld: rule.maxKld,
        pass_alpha: rule.passAlpha,
        fail_alpha: rule.failAlpha,
      },
    };
  },
  redecide: (report, recorded) =>
    compareAccuracy(
      report.suite,
      report.answers,
      // At the look it stopped at: that look's share of each boundary's α.
      atTheLook(recorded ? ruleOf(recorded.rule) : DEFAULT_ACCURACY_RULE, report.looks),
      {
        logprobs: report.logprobs,
        seconds: report.seconds,
        scoring: report.scoring ?? null,
        ...(report.looks ? { looks: report.looks } : {}),
      },
    ),
};
