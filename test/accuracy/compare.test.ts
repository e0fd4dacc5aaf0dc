// The accuracy rule on made-up answers: the margin rule's three outcomes,
// the items that would decide, flips against the baseline's re-run, the
// optional limits, families, and the top-k divergence (a lower bound, zero
// for identical distributions, the first position that differs).

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type ArmAnswer,
  compareAccuracy,
  type ItemAnswers,
  itemsToDecide,
} from "../../src/accuracy/compare.ts";
import { divergenceOf, type TokenLogprobs, topKDivergence } from "../../src/accuracy/divergence.ts";
import { DEFAULT_ACCURACY_RULE } from "../../src/gate/accuracy.ts";

const RULE = DEFAULT_ACCURACY_RULE;
const FACTS = {
  logprobs: { baseline: false, candidate: false },
  seconds: { baseline: 1, candidate: 1, again: 0 },
  scoring: null,
};

const answer = (correct: boolean, text = correct ? "1" : "2"): ArmAnswer => ({
  answer: text,
  correct,
  error: null,
  excerpt: `Answer: ${text}`,
  finish_reason: "stop",
});

/** n items: b right → wrong, c wrong → right, `wrong` wrong on both, the rest right on both. */
function items(n: number, b: number, c: number, wrong = 0, family = "f"): ItemAnswers[] {
  return Array.from({ length: n }, (_, i) => {
    const [base, cand] =
      i < b
        ? [true, false]
        : i < b + c
          ? [false, true]
          : i < b + c + wrong
            ? [false, false]
            : [true, true];
    return {
      id: `${family}-${i}`,
      family,
      expected: "1",
      baseline: answer(base),
      candidate: answer(cand),
      again: null,
      divergence: null,
    };
  });
}

test("the margin rule: pass within τ, fail beyond τ/2 with the estimate beyond τ, else open with the items that would decide", () => {
  const pass = compareAccuracy("s", items(1000, 15, 5), RULE, FACTS);
  assert.equal(pass.verdict, "pass", JSON.stringify(pass.overall.drop));
  assert.equal(pass.overall.drop.estimate, 0.01);
  const fail = compareAccuracy("s", items(1000, 55, 5), RULE, FACTS);
  assert.equal(fail.verdict, "fail");
  assert.ok(fail.overall.drop.lower > 0.01);
  assert.match(fail.reasons[0] ?? "", /accuracy: 5\.0 points lower on the candidate/);
  const open = compareAccuracy("s", items(200, 8, 2), RULE, FACTS);
  assert.equal(open.verdict, "inconclusive");
  assert.ok((open.items_to_decide ?? 0) > 200, `${open.items_to_decide}`);
  // A tenth beyond the advised count (rounded to whole items), the same rates decide.
  const n = Math.ceil((open.items_to_decide ?? 0) * 1.1);
  const scaled = compareAccuracy(
    "s",
    items(n, Math.round((8 * n) / 200), Math.round((2 * n) / 200)),
    RULE,
    FACTS,
  );
  assert.notEqual(scaled.verdict, "inconclusive");
});

test("an estimate between τ/2 and τ never fails, however many items", () => {
  const r = compareAccuracy("s", items(20_000, 300, 0), RULE, FACTS);
  assert.equal(r.overall.drop.estimate, 0.015);
  assert.notEqual(r.verdict, "fail");
  // No discordant item of 50: the bound (corrected by half an item) is within 2 points from about 180.
  const n = itemsToDecide(0, 0, 50, RULE) ?? 0;
  assert.ok(n >= 170 && n <= 190, `${n}`);
});

test("flips: right → wrong, wrong → right, changed answers; the floor from the baseline's re-run; the limit beyond it", () => {
  const list = items(1000, 40, 40, 100);
  // 200 items re-run on the baseline: 4 flipped.
  for (const [i, x] of list.slice(0, 200).entries())
    x.again = answer(i < 2 ? !x.baseline.correct : x.baseline.correct);
  for (const x of list.slice(80, 90)) x.candidate = answer(false, "3");
  const r = compareAccuracy("s", list, { ...RULE, maxFlipRate: 0.05 }, FACTS);
  assert.equal(r.overall.right_to_wrong, 40);
  assert.equal(r.overall.wrong_to_right, 40);
  assert.equal(r.overall.changed, 10);
  assert.equal(
    r.verdict,
    "fail",
    "8 % flips against a 1 % floor: beyond a 5-point limit? no — shown beyond 2.5 and estimated beyond 5",
  );
  assert.deepEqual({ items: r.floor?.items, flips: r.floor?.flips }, { items: 200, flips: 2 });
  assert.equal(r.flip_rule?.verdict, "fail");
  const loose = compareAccuracy("s", list, { ...RULE, maxFlipRate: 0.2 }, FACTS);
  assert.equal(loose.flip_rule?.verdict, "pass");
  assert.equal(loose.verdict, "pass");
});

test("families are compared apart; the overall row decides", () => {
  const r = compareAccuracy(
    "s",
    [...items(500, 0, 0, 0, "easy"), ...items(500, 30, 0, 0, "hard")],
    RULE,
    FACTS,
  );
  assert.deepEqual(
    r.families.map((f) => [f.family, f.right_to_wrong]),
    [
      ["easy", 0],
      ["hard", 30],
    ],
  );
  assert.equal(r.overall.drop.estimate, 0.03);
});

const tok = (token: string, top: [string, number][]): TokenLogprobs => ({
  token,
  logprob: Math.log(top.find(([t]) => t === token)?.[1] ?? 0.5),
  top: top.map(([t, p]) => ({ token: t, logprob: Math.log(p) })),
});

test("top-k divergence: zero when the same, a lower bound on the full KL, the first differing position", () => {
  const p: [string, number][] = [
    ["a", 0.6],
    ["b", 0.3],
  ];
  assert.equal(topKDivergence(tok("a", p).top, tok("a", p).top), 0);
  const q: [string, number][] = [
    ["a", 0.5],
    ["b", 0.4],
  ];
  // The full distributions: the rest (0.1 on each) as one token.
  const full = 0.6 * Math.log(0.6 / 0.5) + 0.3 * Math.log(0.3 / 0.4) + 0.1 * Math.log(0.1 / 0.1);
  assert.ok(Math.abs(topKDivergence(tok("a", p).top, tok("a", q).top) - full) < 1e-12);
  // A token only one arm listed joins the rest: never more than the full value.
  const q2: [string, number][] = [
    ["a", 0.4],
    ["c", 0.5],
  ];
  assert.ok(
    topKDivergence(tok("a", p).top, tok("a", q2).top) <=
      0.6 * Math.log(0.6 / 0.4) + 0.4 * Math.log(0.4 / 0.6) + 1e-12,
  );
  const base = [tok("a", p), tok("b", [["b", 0.9]]), tok("c", [["c", 0.9]])];
  const same = divergenceOf(base, base);
  assert.deepEqual(same, {
    first: null,
    positions: 3,
    kld_sum: 0,
    same_top: 3,
    forced_positions: 3,
    forced_kld_sum: 0,
  });
  const cand = [tok("a", q), tok("b", [["b", 0.9]]), tok("x", [["x", 0.9]])];
  const d = divergenceOf(base, cand);
  assert.equal(d.first, 2);
  assert.equal(d.positions, 3);
  assert.equal(d.same_top, 2, "the top differs at the first difference");
  assert.equal(d.forced_kld_sum, null, "parted, and not scored: no whole-answer divergence");
  const scored = divergenceOf(base, cand, [
    tok("a", q),
    tok("b", [["b", 0.9]]),
    tok("c", [["c", 0.5]]),
  ]);
  assert.equal(scored.forced_positions, 3);
  assert.ok(
    (scored.forced_kld_sum ?? 0) >
      d.kld_sum - topKDivergence(base[2]?.top ?? [], cand[2]?.top ?? []),
  );
  const shorter = divergenceOf(base, base.slice(0, 2));
  assert.equal(shorter.first, 2, "one answer ended where the other went on");
});

test("an answer lost in transport on either arm leaves its item out on both; a server's error stays wrong", () => {
  const lost: ArmAnswer = { ...answer(false, ""), error: "no answer within 60 s", lost: true };
  const refused: ArmAnswer = { ...answer(false, ""), error: "HTTP 500" };
  // 200 items right on both; 19 timed out on the candidate only, 5 answered HTTP 500 there.
  const all = items(200, 0, 0);
  const answers = all.map((a, i) =>
    i < 19 ? { ...a, candidate: lost } : i < 24 ? { ...a, candidate: refused } : a,
  );
  const r = compareAccuracy("s", answers, RULE, FACTS);
  // Not 24 flips out of load: the 19 lost are out on both arms, the 5 errors wrong.
  assert.equal(r.overall.items, 181);
  assert.equal(r.overall.right_to_wrong, 5);
  assert.deepEqual(r.left_out, {
    items: 19,
    baseline: 0,
    candidate: 19,
    ids: answers.slice(0, 10).map((a) => a.id),
  });
  // Counted as wrong before: 24 right → wrong, a 12-point drop.
  const before = compareAccuracy(
    "s",
    answers.map((a) => ({ ...a, candidate: { ...a.candidate, lost: undefined } })),
    RULE,
    FACTS,
  );
  assert.equal(before.overall.right_to_wrong, 24);
  assert.equal(before.verdict, "fail");
  assert.notEqual(r.verdict, "fail");
});
