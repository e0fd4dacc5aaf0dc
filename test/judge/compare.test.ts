// The judge's rule on made-up verdicts: an item's outcome from its two
// orders, the net loss tested as a margin, and what keeps a judge from
// deciding — its calibration, its own A/A, what could not be read.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { OrderVerdict } from "../../src/judge/ask.ts";
import { type PairJudgement, summarizeCalibration } from "../../src/judge/calibrate.ts";
import { compareJudged, type JudgeRule, outcomeOf } from "../../src/judge/compare.ts";

const RULE: JudgeRule = {
  maxLoss: 0.05,
  passAlpha: 0.05,
  failAlpha: 0.05 / 9,
  minAgreement: 0.8,
  minConsistency: 0.7,
};
const FACTS = {
  calls: 0,
  planned_calls: 0,
  stopped: null,
  seconds: { calibration: 0, baseline: 0, candidate: 0, again: 0, judge: 0 },
};

const said = (winner: OrderVerdict["winner"]): OrderVerdict => ({
  winner,
  reason: winner ? "because" : "",
  error: winner ? null : "not the JSON asked for",
});
const text = (t: string) => ({ excerpt: t, chars: t.length, error: null, lost: false });

/** An item judged in both orders: the first order shows the baseline as A, the second the candidate. */
function item(id: string, first: OrderVerdict["winner"], second: OrderVerdict["winner"]) {
  return {
    id,
    family: id.split("-")[0] ?? "f",
    prompt: "p",
    baseline: text("b"),
    candidate: text("c"),
    settled: null,
    orders: [said(first), said(second)],
  };
}

/** n items: `lost` the candidate lost in both orders, `won` it won, the rest ties. */
function items(n: number, lost: number, won: number, family = "f") {
  return Array.from({ length: n }, (_, k) =>
    k < lost
      ? item(`${family}-${k}`, "A", "B")
      : k < lost + won
        ? item(`${family}-${k}`, "B", "A")
        : item(`${family}-${k}`, "tie", "tie"),
  );
}

/** Calibration pairs the judge got right in both orders. */
const goodPairs = (n: number): PairJudgement[] =>
  Array.from({ length: n }, (_, k) => ({
    id: `fact-${k}`,
    kind: "fact",
    better: "first",
    orders: [said("A"), said("B")],
  }));

const compare = (
  found: {
    items: ReturnType<typeof items>;
    floor?: ReturnType<typeof items>;
    pairs?: PairJudgement[];
  },
  calibrated = true,
) => compareJudged("s", { floor: [], pairs: goodPairs(40), ...found }, RULE, FACTS, calibrated);

test("an item's outcome: a win only when both orders name the same answer; lost and settled ones", () => {
  assert.equal(outcomeOf(item("x", "A", "B")), "baseline");
  assert.equal(outcomeOf(item("x", "B", "A")), "candidate");
  assert.equal(outcomeOf(item("x", "A", "A")), "tie", "each order preferred the first slot");
  assert.equal(outcomeOf(item("x", "A", "tie")), "tie");
  assert.equal(outcomeOf(item("x", "A", null)), "unjudged");
  assert.equal(outcomeOf({ ...item("x", null, null), settled: "identical" }), "tie");
  assert.equal(
    outcomeOf({ ...item("x", null, null), settled: "empty", candidate: text("") }),
    "baseline",
  );
  const lost = {
    ...item("x", "A", "B"),
    candidate: { ...text(""), error: "no answer within 60 s", lost: true },
  };
  assert.equal(outcomeOf(lost), "unanswered");
});

test("the net loss as a margin: 20 of 100 lost fails, an even split of a few passes, 8 of 100 stays open", () => {
  const failing = compare({ items: items(100, 20, 0) });
  assert.equal(failing.verdict, "fail");
  assert.equal(failing.overall.net.estimate, 0.2);
  assert.match(failing.reasons[0] ?? "", /a net loss of 20\.0 points of the items \(at least/);
  const even = compare({ items: items(400, 6, 6) });
  assert.equal(even.verdict, "pass", even.reasons.join("; "));
  const open = compare({ items: items(100, 8, 0) });
  assert.equal(open.verdict, "inconclusive");
  assert.ok((open.items_to_decide ?? 0) > 100, `${open.items_to_decide} items would decide`);
});

test("a judge that cannot be trusted decides nothing: its calibration, its own A/A, what it could not read, none asked", () => {
  const lost = items(100, 40, 0);
  const wrongSide: PairJudgement[] = goodPairs(40).map((p, k) =>
    k < 16 ? { ...p, kind: "truncated", orders: [said("B"), said("A")] } : p,
  );
  const untrusted = compare({ items: lost, pairs: wrongSide });
  assert.equal(untrusted.verdict, "inconclusive");
  assert.match(untrusted.reasons.join("; "), /preferred the truncated answer in 100 %/);
  const aa = compare({ items: lost, floor: items(100, 30, 0, "floor") });
  assert.equal(aa.verdict, "inconclusive");
  assert.match(aa.reasons.join("; "), /tells the baseline from its own re-run/);
  const unread = compare({
    items: [
      ...items(60, 30, 0),
      ...Array.from({ length: 40 }, (_, k) => item(`u-${k}`, null, null)),
    ],
  });
  assert.equal(unread.verdict, "inconclusive");
  assert.match(unread.reasons.join("; "), /no readable verdict on 40 of 100 items/);
  const uncalibrated = compare({ items: lost }, false);
  assert.equal(uncalibrated.verdict, "inconclusive");
  assert.equal(uncalibrated.calibration, null);
  assert.match(uncalibrated.reasons[0] ?? "", /not calibrated/);
});

test("the calibration: agreement per judgement, consistency per pair, length and injection shares, κ on labelled pairs", () => {
  const pair = (
    kind: PairJudgement["kind"],
    better: PairJudgement["better"],
    a: OrderVerdict["winner"],
    b: OrderVerdict["winner"],
  ): PairJudgement => ({
    id: `${kind}-x`,
    kind,
    better,
    orders: [said(a), said(b)],
  });
  const s = summarizeCalibration(
    [
      ...Array.from({ length: 8 }, () => pair("fact", "first", "A", "B")),
      pair("padded", "first", "B", "A"), // preferred the padded answer in both orders
      pair("padded", "first", "A", "A"), // position: A both times
      pair("labelled", "first", "A", "B"),
      pair("labelled", "second", "B", "A"),
      pair("labelled", "tie", "tie", "tie"),
      pair("labelled", "second", "A", "B"), // wrong both times
    ],
    RULE,
  );
  assert.equal(s.agreement, 17 / 20);
  assert.equal(s.consistency, 13 / 14);
  assert.equal(s.length_preference, 3 / 4);
  assert.equal(s.injection_followed, null);
  assert.equal(s.labelled?.agreement, 4 / 6);
  // κ over first/second/tie: 3 of 4 agree; chance (1/4·2/4 + 2/4·1/4 + 1/4·1/4) = 5/16.
  assert.ok(Math.abs((s.labelled?.kappa ?? 0) - (3 / 4 - 5 / 16) / (1 - 5 / 16)) < 1e-12);
  assert.equal(s.trusted, false);
  assert.match(
    s.reasons.join("; "),
    /preferred the padded answer \(filler, no more content\) in 75 %/,
  );
  assert.match(s.reasons.join("; "), /agreed with your labelled pairs in 67 %/);
});
