// Baseline versus candidate on the same open-ended items, paired by item:
// each item's outcome from the judge's two orders (a win only when both name
// the same arm, else a tie; identical answers a tie and an empty answer a
// loss without asking), the wins, ties and losses overall and by family, and
// the net loss — (baseline wins − candidate wins) ÷ items judged — with the
// paired score interval accuracy uses, tested as a margin against
// max-judge-loss: pass when the upper bound is within it, fail when the lower
// bound is beyond half of it and the estimate beyond all of it. A judge the
// calibration does not trust, one that tells the baseline from its own
// re-run (the A/A floor), or one that could not be read on too many items
// cannot decide: the suite stays open and says why. Pure: a results file is
// re-decided from its judgements by it.

import { probit } from "simple-statistics";
import {
  type AccuracyRule,
  type Bounded,
  itemsToDecide,
  judgeDrop,
  type RuleVerdict,
} from "../accuracy/compare.ts";
import { pairedDifferenceBounds } from "../accuracy/interval.ts";
import { ruleAtLook } from "../accuracy/looks.ts";
import { codeSpan } from "../common/format.ts";
import type { OrderVerdict } from "./ask.ts";
import {
  bothOrders,
  type CalibrationFloor,
  type CalibrationSummary,
  type PairJudgement,
  summarizeCalibration,
} from "./calibrate.ts";

/** One arm's answer to an item, as the results keep it. */
export interface ArmText {
  /** The answer's start (bounded), "" when none. */
  excerpt: string;
  /** Its length in characters, spaces at its ends aside (0: empty, or no answer). */
  chars: number;
  /** Why there is no answer (an HTTP status, a timeout…), else null. */
  error: string | null;
  /** No answer for a transport reason (a timeout, a dropped connection): it says nothing of the model. */
  lost: boolean;
}

/** One item's answers and the judge's verdicts on them. */
export interface ItemJudgement {
  id: string;
  family: string;
  /** The prompt's start (bounded). */
  prompt: string;
  baseline: ArmText;
  /** The candidate's answer (in the floor: the baseline's re-run). */
  candidate: ArmText;
  /** Decided without the judge: identical answers, or an empty one (null: judged). */
  settled: "identical" | "empty" | null;
  /** The judge's verdicts: A = the baseline's answer, then A = the candidate's (none when settled). */
  orders: OrderVerdict[];
  /** Who won, from the orders (made again whenever the report is). */
  outcome: ItemOutcome;
}

export type ItemOutcome = "baseline" | "candidate" | "tie" | "unjudged" | "unanswered";

export interface JudgeRule extends CalibrationFloor {
  /** τ: the tolerated net share of items the candidate loses (0.05: 5 points). */
  maxLoss: number;
  passAlpha: number;
  failAlpha: number;
}

/** One family's (or all items') wins, ties and losses, and the net loss judged by the rule. */
export interface JudgeTally {
  family: string;
  items: number;
  /** Items the baseline won (the candidate lost), the candidate won, tied. */
  baseline_wins: number;
  candidate_wins: number;
  ties: number;
  /** Items the judge could not be read on; items an arm lost to the transport (left out of both). */
  unjudged: number;
  unanswered: number;
  /** (baseline wins − candidate wins) ÷ the items judged, its bounds and verdict. */
  net: Bounded;
}

export interface JudgeReport {
  suite: string;
  verdict: RuleVerdict;
  /** false: an uncalibrated judge (judge-calibration none): shown, never part of the gate's verdict. */
  gated: boolean;
  /** Why it failed or stayed open, in words. */
  reasons: string[];
  overall: JudgeTally;
  families: JudgeTally[];
  /** The baseline's re-run judged against its first answers (wins: the first's; null: no floor). */
  floor: JudgeTally | null;
  /** Null: no calibration (judge-calibration none). */
  calibration: CalibrationSummary | null;
  /** Mean answer length (characters) on each arm, over the items both answered. */
  mean_chars: { baseline: number | null; candidate: number | null };
  /** Items that would decide at the rates seen (null: decided, or none would). */
  items_to_decide: number | null;
  /** Why the judge was not asked past its first requests (it refused us, or could not be read); null: it was. */
  stopped: string | null;
  /** Requests sent to the judge, every attempt; and at most how many the plan said (retries aside). */
  calls: number;
  planned_calls: number;
  seconds: {
    calibration: number;
    baseline: number;
    candidate: number;
    again: number;
    judge: number;
  };
  items: ItemJudgement[];
  floor_items: ItemJudgement[];
  pairs: PairJudgement[];
  /**
   * The looks: the items answered by each, the one the net loss was judged at
   * (its α that look's share) and why it stopped there when the items left
   * could not decide; absent in older files (one look).
   */
  looks?: { items: number[]; at: number; futile: string | null };
}

/** The facts a report keeps beside its judgements. */
export type JudgeFacts = Pick<
  JudgeReport,
  "calls" | "planned_calls" | "seconds" | "stopped" | "looks"
>;

/** The judge's net-loss rule as the accuracy rule's drop takes it (for the looks' futility too). */
export const asDropRule = (rule: JudgeRule): AccuracyRule => ({
  maxDrop: rule.maxLoss,
  passAlpha: rule.passAlpha,
  failAlpha: rule.failAlpha,
  maxFlipRate: null,
  maxKld: null,
});

/** Above this share of items without a readable verdict, the rest may not stand for them. */
export const MAX_UNJUDGED_SHARE = 0.25;
/** Above this share of items an arm lost to the transport, the rest may not stand for them either. */
export const MAX_UNANSWERED_SHARE = 0.25;

export function outcomeOf(j: Omit<ItemJudgement, "outcome">): ItemOutcome {
  if (j.baseline.lost || j.candidate.lost) return "unanswered";
  if (j.settled === "identical") return "tie";
  if (j.settled === "empty") {
    const [b, c] = [j.baseline.chars > 0, j.candidate.chars > 0];
    return b === c ? "tie" : b ? "baseline" : "candidate";
  }
  const side = bothOrders(j.orders);
  return side === null
    ? "unjudged"
    : side === "first"
      ? "baseline"
      : side === "second"
        ? "candidate"
        : "tie";
}

/** The items' wins, ties and losses (their outcomes made), and the net loss judged by the rule. */
export function tally(
  family: string,
  items: readonly ItemJudgement[],
  rule: JudgeRule,
): JudgeTally {
  const outcomes = items.map((i) => i.outcome);
  const count = (o: ItemOutcome) => outcomes.filter((x) => x === o).length;
  const [b, c, t] = [count("baseline"), count("candidate"), count("tie")];
  return {
    family,
    items: items.length,
    baseline_wins: b,
    candidate_wins: c,
    ties: t,
    unjudged: count("unjudged"),
    unanswered: count("unanswered"),
    net: judgeDrop(b, c, b + c + t, asDropRule(rule)),
  };
}

const points = (x: number) => `${(x * 100).toFixed(1)} points`;

/**
 * The A/A's net with the pass boundary's error on both sides: a judge whose
 * own re-run shows a net beyond half the margin, either way, tells a server
 * from itself.
 */
function floorShows(floor: JudgeTally, rule: JudgeRule): Bounded | null {
  const z = probit(1 - rule.passAlpha);
  const n = floor.baseline_wins + floor.candidate_wins + floor.ties;
  const b = pairedDifferenceBounds(floor.baseline_wins, floor.candidate_wins, n, {
    lower: z,
    upper: z,
  });
  const half = rule.maxLoss / 2;
  return n > 0 && (b.lower > half || b.upper < -half) ? { ...b, verdict: "fail" } : null;
}

/** Why the judge's verdict cannot count: calibration, the floor, what could not be read or answered. */
function distrust(
  overall: JudgeTally,
  floor: JudgeTally | null,
  calibration: CalibrationSummary | null,
  rule: JudgeRule,
  stopped: string | null,
): string[] {
  const out: string[] = stopped
    ? [`the judge could not be asked: ${codeSpan(stopped, 200)}; the arms were not asked either`]
    : [];
  if (calibration === null)
    out.push(
      "the judge was not calibrated (judge-calibration none): its verdict is shown, not gated",
    );
  else out.push(...calibration.reasons);
  const f = floor ? floorShows(floor, rule) : null;
  if (f)
    out.push(
      `the judge tells the baseline from its own re-run: a net ${f.estimate > 0 ? "win" : "loss"} of ${points(Math.abs(f.estimate))} for its first answers (${points(f.lower)} … ${points(f.upper)})`,
    );
  if (overall.unanswered > MAX_UNANSWERED_SHARE * overall.items)
    out.push(
      `${overall.unanswered} of ${overall.items} items went unanswered by an arm (a timeout, a dropped connection)`,
    );
  const asked = overall.items - overall.unanswered;
  if (overall.unjudged > MAX_UNJUDGED_SHARE * asked)
    out.push(`the judge gave no readable verdict on ${overall.unjudged} of ${asked} items`);
  return out;
}

function verdictReasons(net: Bounded): string[] {
  if (net.verdict === "fail")
    return [
      `the judge prefers the baseline's answers: a net loss of ${points(net.estimate)} of the items (at least ${points(net.lower)})`,
    ];
  if (net.verdict === "inconclusive")
    return [
      `a net loss of ${points(net.estimate)} is neither shown within max-judge-loss nor beyond it (up to ${points(net.upper)})`,
    ];
  return [];
}

const meanChars = (
  items: readonly ItemJudgement[],
  arm: "baseline" | "candidate",
): number | null => {
  // Items both arms answered: an error's empty answer is no length.
  const answered = items.filter((i) => i.baseline.error === null && i.candidate.error === null);
  return answered.length > 0
    ? answered.reduce((s, i) => s + i[arm].chars, 0) / answered.length
    : null;
};

/** The suite's items that would decide, at the rates seen and the share of items judged (null: none would). */
function itemsOfSuite(overall: JudgeTally, judged: number, rule: JudgeRule): number | null {
  const n = itemsToDecide(overall.baseline_wins, overall.candidate_wins, judged, asDropRule(rule));
  return n === null ? null : Math.ceil((n * overall.items) / judged);
}

/** Each item with its outcome made from its orders. */
const decided = (items: readonly Omit<ItemJudgement, "outcome">[]): ItemJudgement[] =>
  items.map((i) => ({ ...i, outcome: outcomeOf(i) }));

/** The arms' judgements compared, decided under the rule. */
export function compareJudged(
  suite: string,
  found: {
    items: readonly Omit<ItemJudgement, "outcome">[];
    floor: readonly Omit<ItemJudgement, "outcome">[];
    pairs: PairJudgement[];
  },
  rule: JudgeRule,
  facts: JudgeFacts,
  calibrated: boolean,
): JudgeReport {
  const judged = { items: decided(found.items), floor: decided(found.floor), pairs: found.pairs };
  // The net loss at its look's share of each α; the floor and the calibration at the whole.
  const looks = facts.looks;
  const netRule = looks ? ruleAtLook(rule, looks.items, looks.at) : rule;
  const overall = tally("all", judged.items, netRule);
  const families = [...Map.groupBy(judged.items, (i) => i.family)].map(([f, list]) =>
    tally(f, list, netRule),
  );
  const floor = judged.floor.length > 0 ? tally("floor", judged.floor, rule) : null;
  const calibration = calibrated ? summarizeCalibration(judged.pairs, rule) : null;
  const untrusted = distrust(overall, floor, calibration, rule, facts.stopped);
  const judgedCount = overall.baseline_wins + overall.candidate_wins + overall.ties;
  const verdict: RuleVerdict =
    untrusted.length > 0 || judgedCount === 0 ? "inconclusive" : overall.net.verdict;
  const open = verdict === "inconclusive" && untrusted.length === 0;
  return {
    suite,
    verdict,
    gated: calibrated,
    reasons:
      untrusted.length > 0
        ? untrusted
        : judgedCount === 0
          ? ["no item was judged"]
          : verdictReasons(overall.net),
    overall,
    families,
    floor,
    calibration,
    mean_chars: {
      baseline: meanChars(judged.items, "baseline"),
      candidate: meanChars(judged.items, "candidate"),
    },
    items_to_decide: open ? itemsOfSuite(overall, judgedCount, netRule) : null,
    ...facts,
    items: judged.items,
    floor_items: judged.floor,
    pairs: judged.pairs,
  };
}
