// The comment's words that are computed: the pairs a next step advises, quality codes in words.

import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_ADVISED_PAIRS } from "../../src/common/advice.ts";
import { pairsToDecide } from "../../src/compare/advice.ts";
import { designOf } from "../../src/compare/decide-run.ts";
import { compareMetric, type MetricSpec } from "../../src/compare/metric.ts";
import { codeWords } from "../../src/report/quality-words.ts";
import { Rng } from "../../src/workload/rng.ts";

const TTFT: MetricSpec = {
  id: "ttft",
  label: "p95 TTFT",
  unit: "ms",
  higherIsWorse: true,
  tolerance: 0.1,
};

test("pairs to decide: the advised max-trials decides as often as it says, on the gate's own design", () => {
  const margins = { tolerance: Math.log(1.1), floor: Math.log(1.05) };
  // The default gate: each pass boundary at 5 %, a latency fail at 5 % ÷ 3.
  const ALPHA = { pass: 0.05, fail: 0.05 / 3 };
  const rng = new Rng(9);
  const decidedShare = (maxTrials: number, sd: number) => {
    const design = designOf({ trials: 4, maxTrials }, 0.95, 2);
    let decided = 0;
    for (let g = 0; g < 400; g++) {
      const values = Array.from({ length: maxTrials }, () => ({
        baseline: 100,
        candidate: 100 * Math.exp(sd * rng.normal()),
      }));
      if (compareMetric(TTFT, values, "margin", design, 1).verdict !== "inconclusive") decided++;
    }
    return decided / 400;
  };
  for (const sd of [0.08, 0.12]) {
    const advice = pairsToDecide(0, sd, margins, 4, ALPHA);
    assert.ok(advice.even !== null && advice.likely !== null, JSON.stringify(advice));
    assert.ok(advice.even <= advice.likely);
    // An even chance and four in five, within the sampling error of 400 gates (±2.5 %).
    assert.ok(decidedShare(advice.even, sd) >= 0.44, `${sd}: ${JSON.stringify(advice)}`);
    assert.ok(decidedShare(advice.likely, sd) >= 0.74, `${sd}: ${JSON.stringify(advice)}`);
  }
  // More noise needs more pairs.
  const even = (sd: number) => pairsToDecide(0, sd, margins, 4, ALPHA).even ?? Infinity;
  assert.ok(even(0.12) > even(0.08));
  assert.deepEqual(
    pairsToDecide(0, 5, margins, 4, ALPHA),
    { even: null, likely: null },
    `beyond ${MAX_ADVISED_PAIRS}: no advice to add pairs`,
  );
  assert.deepEqual(pairsToDecide(0, null, margins, 4, ALPHA), { even: null, likely: null });
});

test("quality codes in words: whole codes match whole, prefixes carry their detail", () => {
  assert.equal(codeWords("tool.missing"), "no tool call");
  assert.equal(codeWords("tool.missing_required"), "tool arguments without a required field");
  assert.equal(codeWords("json.schema:/age"), "JSON that breaks the schema at /age");
  assert.equal(codeWords("transport.http_500"), "HTTP 500");
  assert.equal(codeWords("tool.no_id"), "a malformed tool call: tool.no_id");
  assert.equal(codeWords("something.new"), "something.new", "an unknown code stays as it is");
});
