// Baseline versus candidate on the same accuracy items, paired by item: the
// accuracy of each arm, the drop with Tango's paired interval, the answers
// that flipped (right → wrong, wrong → right, a different wrong answer)
// against the baseline's own re-run (batched greedy decoding is not
// bit-exact: an A/A flips some answers too), and the token-level divergence
// where both servers returned logprobs. Pure: a results file is re-decided
// from its items by it.
//
// The rule is the latency rule's, with `maxDrop` (points) as τ: pass when the
// upper bound shows the drop within τ; fail when the lower bound shows more
// than τ/2 and the estimate more than τ; else inconclusive, with the items
// that would decide at the same rates. The optional flip-rate limit (beyond
// the floor) and KL budget are judged the same way.

import {
  probit,
  sampleStandardDeviation,
  mean as ssMean,
  median as ssMedian,
} from "simple-statistics";
import type { ItemDivergence } from "./divergence.ts";
import { differenceBounds, pairedDifferenceBounds, wilson } from "./interval.ts";

/** What one arm answered to an item. */
export interface ArmAnswer {
  /** The answer read from the reply ("" when none was found or the request failed). */
  answer: string;
  correct: boolean;
  /** Why the request got no reply (an HTTP status, a timeout), else null. */
  error: string | null;
  /**
   * No reply for a transport reason (a timeout, a dropped connection, even
   * alone with a longer timeout): it says nothing of the model, so the item is
   * left out of the paired comparison on both arms. Absent: answered, or an
   * answer the server chose (an HTTP error, a refusal, an empty one: wrong).
   */
  lost?: boolean;
  /** The reply's end, where its answer is (bounded). */
  excerpt: string;
  finish_reason: string | null;
}

/** One item's answers on both arms (and the baseline's re-run, when it was re-run). */
export interface ItemAnswers {
  id: string;
  family: string;
  /** The item's answer, as text. */
  expected: string;
  baseline: ArmAnswer;
  candidate: ArmAnswer;
  again: ArmAnswer | null;
  /** Null where either arm returned no logprobs. */
  divergence: ItemDivergence | null;
}

export interface AccuracyRule {
  /** τ: the tolerated drop in accuracy (a fraction: 0.02 is 2 points). */
  maxDrop: number;
  /** One-sided error of each pass boundary. */
  passAlpha: number;
  /** One-sided error of each fail boundary (the share of the gate's α each rule holds). */
  failAlpha: number;
  /** A limit on the candidate's flip rate beyond the baseline's own (null: none). */
  maxFlipRate: number | null;
  /** A budget on the mean KL divergence per token (nats; null: none). */
  maxKld: number | null;
}

export type RuleVerdict = "pass" | "fail" | "inconclusive";

export interface Bounded {
  estimate: number;
  lower: number;
  upper: number;
  verdict: RuleVerdict;
}

/** One family's (or all items') comparison. */
export interface AccuracyComparison {
  family: string;
  items: number;
  baseline_correct: number;
  candidate_correct: number;
  /** Right on the baseline, wrong on the candidate. */
  right_to_wrong: number;
  wrong_to_right: number;
  /** Wrong on both, with different answers. */
  changed: number;
  /** The drop in accuracy (baseline − candidate), its bounds and the rule's verdict. */
  drop: Bounded;
  /** Items with logprobs on both arms, of them those whose answers differ token-wise. */
  compared: number;
  diverged: number;
  /** The mean over items of each item's mean KL divergence per position (nats) up to its first difference; null: no logprobs. */
  kld: number | null;
  /** The same over the baseline's whole answer (teacher-forced where the answers part); null: not scored for every item. */
  kld_forced: number | null;
  same_top: number | null;
  /**
   * The median position of the first token where the answers differ, over the
   * items compared — an item whose answers do not differ counts its length
   * (they agree that far at least): more divergence, an earlier value.
   */
  first_divergence: number | null;
}

/** The baseline's own re-run: how many of its answers flipped without any change. */
export interface FloorSummary {
  items: number;
  flips: number;
  right_to_wrong: number;
  wrong_to_right: number;
  changed: number;
  rate: number;
  /** Wilson's 95 % upper bound on the rate. */
  rate_upper: number;
}

export interface AccuracyReport {
  suite: string;
  verdict: RuleVerdict;
  /** Why it failed or stayed open, in words. */
  reasons: string[];
  overall: AccuracyComparison;
  families: AccuracyComparison[];
  floor: FloorSummary | null;
  /** The candidate's flip rate beyond the floor, against max-flip-rate (null: no limit). */
  flip_rule: Bounded | null;
  /** The mean KL per token against max-kld (null: no budget, or no logprobs). */
  kld_rule: Bounded | null;
  /** Items that would decide the drop at the rates seen (null: decided, or none would). */
  items_to_decide: number | null;
  unanswered: { baseline: number; candidate: number };
  /** Items left out of the comparison on both arms: an answer lost in transport on either (absent in older files). */
  left_out?: { items: number; baseline: number; candidate: number; ids: string[] };
  logprobs: { baseline: boolean; candidate: boolean };
  seconds: { baseline: number; candidate: number; again: number };
  /**
   * The looks: the items answered by each, the one this report was judged at
   * (0-based; its α is that look's share) and, when the items left could not
   * decide, why it stopped there; absent in older files (one look).
   */
  looks?: { items: number[]; at: number; futile: string | null };
  /** The candidate scored on the baseline's answers where they part: asked, scored, and whether the server scores given text at all (null: not asked). */
  scoring: { items: number; scored: number; supported: boolean } | null;
  answers: ItemAnswers[];
}

const zOf = (alpha: number) => probit(1 - alpha);

/** The margin rule: pass when the bound shows within τ, fail beyond τ/2 with the estimate beyond τ. */
function marginVerdict(
  b: { estimate: number; lower: number; upper: number },
  tau: number,
): RuleVerdict {
  if (b.upper <= tau) return "pass";
  return b.lower > tau / 2 && b.estimate > tau ? "fail" : "inconclusive";
}

/** The drop (b − c)/n over n paired items judged by the rule: its bounds and verdict. */
export function judgeDrop(b: number, c: number, n: number, rule: AccuracyRule): Bounded {
  const z = { lower: zOf(rule.failAlpha), upper: zOf(rule.passAlpha) };
  const bounds = pairedDifferenceBounds(b, c, n, z);
  return { ...bounds, verdict: n === 0 ? "inconclusive" : marginVerdict(bounds, rule.maxDrop) };
}

/** The median, null for none. */
const median = (xs: number[]): number | null => (xs.length > 0 ? ssMedian(xs) : null);

function compareItems(
  family: string,
  items: readonly ItemAnswers[],
  rule: AccuracyRule,
): AccuracyComparison {
  const count = (f: (i: ItemAnswers) => boolean) => items.filter(f).length;
  const b = count((i) => i.baseline.correct && !i.candidate.correct);
  const c = count((i) => !i.baseline.correct && i.candidate.correct);
  const withLogprobs = items.flatMap((i) => (i.divergence ? [i.divergence] : []));
  const positions = withLogprobs.reduce((n, d) => n + d.positions, 0);
  const diverged = withLogprobs.filter((d) => d.first !== null).length;
  return {
    family,
    items: items.length,
    baseline_correct: count((i) => i.baseline.correct),
    candidate_correct: count((i) => i.candidate.correct),
    right_to_wrong: b,
    wrong_to_right: c,
    changed: count(
      (i) =>
        !i.baseline.correct && !i.candidate.correct && i.baseline.answer !== i.candidate.answer,
    ),
    drop: judgeDrop(b, c, items.length, rule),
    compared: withLogprobs.length,
    diverged,
    kld: mean(perItemKld(items)),
    kld_forced: forcedKld(withLogprobs),
    same_top: positions > 0 ? withLogprobs.reduce((s, d) => s + d.same_top, 0) / positions : null,
    first_divergence: median(withLogprobs.map((d) => d.first ?? d.positions)),
  };
}

function floorOf(items: readonly ItemAnswers[]): FloorSummary | null {
  const again = items.flatMap((i) => (i.again ? [{ first: i.baseline, again: i.again }] : []));
  if (again.length === 0) return null;
  const r2w = again.filter((x) => x.first.correct && !x.again.correct).length;
  const w2r = again.filter((x) => !x.first.correct && x.again.correct).length;
  const changed = again.filter(
    (x) => !x.first.correct && !x.again.correct && x.first.answer !== x.again.answer,
  ).length;
  const flips = r2w + w2r;
  return {
    items: again.length,
    flips,
    right_to_wrong: r2w,
    wrong_to_right: w2r,
    changed,
    rate: flips / again.length,
    rate_upper: wilson(flips, again.length, zOf(0.05))[1],
  };
}

/** The candidate's flip rate beyond the floor's, against the limit. */
function flipRule(
  overall: AccuracyComparison,
  floor: FloorSummary | null,
  rule: AccuracyRule,
): Bounded | null {
  if (rule.maxFlipRate === null) return null;
  if (overall.items === 0) return { estimate: 0, lower: 0, upper: 1, verdict: "inconclusive" };
  const z = { lower: zOf(rule.failAlpha), upper: zOf(rule.passAlpha) };
  const flips = overall.right_to_wrong + overall.wrong_to_right;
  const bounds = floor
    ? differenceBounds(flips, overall.items, floor.flips, floor.items, z)
    : {
        estimate: flips / overall.items,
        lower: wilson(flips, overall.items, z.lower)[0],
        upper: wilson(flips, overall.items, z.upper)[1],
      };
  return { ...bounds, verdict: marginVerdict(bounds, rule.maxFlipRate) };
}

/** Each item's mean KL divergence per position, where both arms returned logprobs. */
const perItemKld = (items: readonly ItemAnswers[]): number[] =>
  items.flatMap((i) =>
    i.divergence && i.divergence.positions > 0
      ? [i.divergence.kld_sum / i.divergence.positions]
      : [],
  );

/**
 * The mean of the items' KL per position over the baseline's whole answer,
 * over the items that have one; null when no item whose answers part was
 * scored (the comment says how many were).
 */
function forcedKld(divergences: readonly ItemDivergence[]): number | null {
  const perItem = divergences.flatMap((d) =>
    d.forced_positions && d.forced_kld_sum !== null ? [d.forced_kld_sum / d.forced_positions] : [],
  );
  const anyParted = divergences.some((d) => d.first !== null && d.forced_kld_sum !== null);
  return anyParted ? mean(perItem) : null;
}

/** The mean, null for none. */
const mean = (xs: number[]): number | null => (xs.length > 0 ? ssMean(xs) : null);

/** The mean KL per token (item by item) against the budget: missed when its whole interval is over it. */
function kldRule(items: readonly ItemAnswers[], rule: AccuracyRule): Bounded | null {
  const perItem = perItemKld(items);
  const m = mean(perItem);
  if (rule.maxKld === null || m === null) return null;
  const n = perItem.length;
  const sd = n > 1 ? sampleStandardDeviation(perItem) : 0;
  const se = sd / Math.sqrt(n);
  const b = {
    estimate: m,
    lower: m - zOf(rule.failAlpha) * se,
    upper: m + zOf(rule.passAlpha) * se,
  };
  const verdict = b.upper <= rule.maxKld ? "pass" : b.lower > rule.maxKld ? "fail" : "inconclusive";
  return { ...b, verdict };
}

/** The items that would decide the drop if its rates held (null: none up to ten million). */
export function itemsToDecide(b: number, c: number, n: number, rule: AccuracyRule): number | null {
  if (n === 0) return null;
  const decides = (m: number) =>
    judgeDrop((b * m) / n, (c * m) / n, m, rule).verdict !== "inconclusive";
  if (decides(n)) return null;
  let hi = n * 2;
  while (!decides(hi)) {
    if (hi > 1e7) return null;
    hi *= 2;
  }
  let lo = Math.max(n, hi / 2);
  while (hi - lo > Math.max(1, lo * 0.01)) {
    const mid = Math.floor((lo + hi) / 2);
    if (decides(mid)) hi = mid;
    else lo = mid;
  }
  return Math.ceil(hi);
}

const points = (x: number) => `${(x * 100).toFixed(1)} points`;

function reasonsOf(r: Pick<AccuracyReport, "overall" | "flip_rule" | "kld_rule">): string[] {
  const out: string[] = [];
  const d = r.overall.drop;
  if (d.verdict === "fail")
    out.push(
      `accuracy: ${points(d.estimate)} lower on the candidate (at least ${points(d.lower)})`,
    );
  if (d.verdict === "inconclusive")
    out.push(
      `accuracy: a drop of ${points(d.estimate)} is neither shown within the tolerance nor beyond it (up to ${points(d.upper)})`,
    );
  if (r.flip_rule && r.flip_rule.verdict !== "pass")
    out.push(
      `flips beyond the baseline's own: ${points(r.flip_rule.estimate)} (${r.flip_rule.verdict === "fail" ? "over" : "not shown within"} max-flip-rate)`,
    );
  if (r.kld_rule && r.kld_rule.verdict !== "pass")
    out.push(
      `mean KL divergence ${r.kld_rule.estimate.toPrecision(3)} nats per token (${r.kld_rule.verdict === "fail" ? "over" : "not shown within"} max-kld)`,
    );
  return out;
}

/** The items an answer lost in transport left out, per arm, the first few named. */
function leftOut(answers: readonly ItemAnswers[]): NonNullable<AccuracyReport["left_out"]> {
  const out = answers.filter((a) => a.baseline.lost || a.candidate.lost);
  return {
    items: out.length,
    baseline: out.filter((a) => a.baseline.lost).length,
    candidate: out.filter((a) => a.candidate.lost).length,
    ids: out.slice(0, 10).map((a) => a.id),
  };
}

/** Every rule's verdict together: any fail fails, any open leaves it open. */
const together = (verdicts: RuleVerdict[]): RuleVerdict =>
  verdicts.includes("fail") ? "fail" : verdicts.includes("inconclusive") ? "inconclusive" : "pass";

/** The comparison of the arms' answers, decided under the rule. */
export function compareAccuracy(
  suite: string,
  answers: ItemAnswers[],
  rule: AccuracyRule,
  facts: Pick<AccuracyReport, "logprobs" | "seconds" | "scoring" | "looks">,
): AccuracyReport {
  // An answer lost in transport says nothing of the model: the item is compared on neither arm.
  const paired = answers.filter((a) => !a.baseline.lost && !a.candidate.lost);
  const overall = compareItems("all", paired, rule);
  const families = [...Map.groupBy(paired, (a) => a.family)].map(([f, items]) =>
    compareItems(f, items, rule),
  );
  const floor = floorOf(paired.filter((a) => !a.again?.lost));
  const found = {
    overall,
    flip_rule: flipRule(overall, floor, rule),
    kld_rule: kldRule(paired, rule),
  };
  // A KL budget set with no logprobs to judge it by cannot be shown met.
  const kldUnknown = rule.maxKld !== null && found.kld_rule === null;
  const verdict = together([
    overall.drop.verdict,
    found.flip_rule?.verdict ?? "pass",
    kldUnknown ? "inconclusive" : (found.kld_rule?.verdict ?? "pass"),
  ]);
  const unknown = kldUnknown
    ? ["max-kld is set, but the servers returned no logprobs to judge it by"]
    : [];
  return {
    suite,
    verdict,
    reasons: [...reasonsOf(found), ...unknown],
    ...found,
    families,
    floor,
    items_to_decide:
      overall.drop.verdict === "inconclusive"
        ? itemsToDecide(overall.right_to_wrong, overall.wrong_to_right, overall.items, rule)
        : null,
    unanswered: {
      baseline: answers.filter((x) => x.baseline.error !== null).length,
      candidate: answers.filter((x) => x.candidate.error !== null).length,
    },
    left_out: leftOut(answers),
    ...facts,
    answers,
  };
}
