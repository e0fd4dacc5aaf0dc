// The accuracy suite's looks (issue 49): blocks from the first look doubling
// to the suite's size, each boundary's α split over them (most at the first),
// items interleaved across families, a results file re-decided at the look it
// stopped at, and futility when the items left cannot decide.

import assert from "node:assert/strict";
import { test } from "node:test";
import { type ArmAnswer, compareAccuracy, type ItemAnswers } from "../../src/accuracy/compare.ts";
import {
  FIRST_LOOK_SHARE,
  futileAt,
  interleaveFamilies,
  itemLooks,
  lookAlpha,
  ruleAtLook,
} from "../../src/accuracy/looks.ts";
import { accuracySuite, DEFAULT_ACCURACY_RULE } from "../../src/gate/accuracy.ts";

test("looks from the first, doubling, the suite's size last; one look when the suite is smaller", () => {
  assert.deepEqual(itemLooks(300, 4800), [300, 600, 1200, 2400, 4800]);
  assert.deepEqual(itemLooks(300, 1000), [300, 600, 1000]);
  assert.deepEqual(itemLooks(300, 60), [60]);
  assert.deepEqual(itemLooks(1200, 1200), [1200]);
});

test("each boundary's α is split over the looks: most at the first, the rest by the items added, the whole spent", () => {
  const looks = itemLooks(300, 4800);
  const alphas = looks.map((_, k) => lookAlpha(looks, k, 0.05));
  assert.equal(alphas[0], 0.05 * FIRST_LOOK_SHARE);
  assert.ok(Math.abs(alphas.reduce((s, a) => s + a, 0) - 0.05) < 1e-12);
  // 2,400 of the 4,500 items after the first look: the last look's share of the rest.
  assert.ok(Math.abs((alphas[4] ?? 0) - (0.05 * 0.4 * 2400) / 4500) < 1e-12);
  assert.equal(lookAlpha([1200], 0, 0.05), 0.05, "one look: the whole α");
  const r = ruleAtLook(DEFAULT_ACCURACY_RULE, looks, 0);
  assert.equal(r.passAlpha, 0.03);
  assert.equal(r.failAlpha, (0.05 / 9) * 0.6);
  assert.equal(r.maxDrop, DEFAULT_ACCURACY_RULE.maxDrop);
});

test("a look's items are a spread of the suite: round-robin over the families", () => {
  const items = ["a", "b", "c"].flatMap((family) =>
    Array.from({ length: family === "c" ? 1 : 3 }, (_, i) => ({ id: `${family}${i}`, family })),
  );
  assert.deepEqual(
    interleaveFamilies(items).map((i) => i.id),
    ["a0", "b0", "c0", "a1", "b1", "a2", "b2"],
  );
});

const answer = (correct: boolean): ArmAnswer => ({
  answer: correct ? "1" : "2",
  correct,
  error: null,
  excerpt: "",
  finish_reason: "stop",
});

/** n items, the first b right → wrong, the next c wrong → right, the rest right on both. */
const items = (n: number, b: number, c = 0): ItemAnswers[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `f-${i}`,
    family: "f",
    expected: "1",
    baseline: answer(i < b || i >= b + c),
    candidate: answer(i >= b),
    again: null,
    divergence: null,
  }));

const FACTS = {
  logprobs: { baseline: false, candidate: false },
  seconds: { baseline: 1, candidate: 1, again: 0 },
  scoring: null,
};

test("a results file is re-decided at the look it stopped at, with that look's α", () => {
  const looks = { items: [300, 600, 1200, 2400, 4800], at: 0, futile: null };
  // 2 flips right → wrong in 300.
  const answers = items(300, 2);
  const atFirst = compareAccuracy("s", answers, ruleAtLook(DEFAULT_ACCURACY_RULE, looks.items, 0), {
    ...FACTS,
    looks,
  });
  const again = accuracySuite.redecide(atFirst, null);
  assert.equal(again.verdict, atFirst.verdict);
  assert.deepEqual(again.overall.drop, atFirst.overall.drop);
  assert.deepEqual(again.looks, looks);
  // Decided at the whole α instead, the bounds would be narrower.
  const whole = compareAccuracy("s", answers, DEFAULT_ACCURACY_RULE, FACTS);
  assert.ok(whole.overall.drop.upper < atFirst.overall.drop.upper);
});

test("futility: a look whose items left cannot decide either way stops the suite; one that can goes on", () => {
  const looks = [300, 600, 1200];
  const rule = DEFAULT_ACCURACY_RULE;
  const at = (answers: ItemAnswers[]) =>
    compareAccuracy("s", answers, ruleAtLook(rule, looks, 0), FACTS);
  // 40 % of items flipping at no drop: not even 1,200 items would show it within 2 points.
  const noisy = at(items(300, 60, 60));
  assert.equal(noisy.verdict, "inconclusive");
  assert.match(
    futileAt(60, 60, 300, rule, looks) ?? "",
    /the 900 items left cannot decide: at 40\.0 % of items flipping/,
  );
  // 4 % flipping at no drop: 1,200 items would show it.
  assert.equal(at(items(300, 6, 6)).verdict, "inconclusive");
  assert.equal(futileAt(6, 6, 300, rule, looks), null);
});
