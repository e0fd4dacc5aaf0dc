// The comment's words that are computed: the pairs a next step advises, quality codes in words.

import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_ADVISED_PAIRS } from "../../src/common/advice.ts";
import { pairsToDecide } from "../../src/compare/advice.ts";
import { tQuantile } from "../../src/compare/tdist.ts";
import { codeWords } from "../../src/report/quality-words.ts";

test("pairs to decide: the fewest n whose one-sided t bound is within the margin", () => {
  const margin = Math.log(1.1);
  for (const sd of [0.02, 0.08, 0.2]) {
    const n = pairsToDecide(sd, margin, 0.95) as number;
    const bound = (k: number) => tQuantile(0.95, k - 1) * (sd / Math.sqrt(k));
    assert.ok(bound(n) <= margin, `${sd}: ${n} pairs suffice`);
    if (n > 2) assert.ok(bound(n - 1) > margin, `${sd}: ${n - 1} pairs do not`);
  }
  // More noise needs more pairs; a stricter confidence too.
  assert.ok(
    (pairsToDecide(0.2, margin, 0.95) as number) > (pairsToDecide(0.08, margin, 0.95) as number),
  );
  assert.ok(
    (pairsToDecide(0.08, margin, 0.99) as number) > (pairsToDecide(0.08, margin, 0.95) as number),
  );
  assert.equal(
    pairsToDecide(5, margin, 0.95),
    null,
    `beyond ${MAX_ADVISED_PAIRS}: no advice to add pairs`,
  );
  assert.equal(pairsToDecide(null, margin, 0.95), null, "one pair: the noise is unknown");
});

test("quality codes in words: whole codes match whole, prefixes carry their detail", () => {
  assert.equal(codeWords("tool.missing"), "no tool call");
  assert.equal(codeWords("tool.missing_required"), "tool arguments without a required field");
  assert.equal(codeWords("json.schema:/age"), "JSON that breaks the schema at /age");
  assert.equal(codeWords("transport.http_500"), "HTTP 500");
  assert.equal(codeWords("tool.no_id"), "a malformed tool call: tool.no_id");
  assert.equal(codeWords("something.new"), "something.new", "an unknown code stays as it is");
});
