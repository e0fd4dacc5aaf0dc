// The extractor reads both arms' replies the same documented way: the final
// answer after the last marker, numbers with separators, units, fractions and
// signs, a chosen letter in its common forms, normalized text, a pattern, and
// the first JSON object's fields.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  chosenLetter,
  finalAnswer,
  firstJsonObject,
  lastNumber,
  normalized,
  pathSteps,
  scoreReply,
} from "../../src/accuracy/extract.ts";
import type { AccuracyItem, Match } from "../../src/accuracy/items.ts";

const item = (answer: AccuracyItem["answer"], match: Match): AccuracyItem => ({
  id: "x",
  family: "f",
  messages: [{ role: "user", content: "q" }],
  answer,
  match,
  maxTokens: 64,
});

test("the final answer: after the last marker, on its line or the next; else \\boxed{}; else the last line", () => {
  assert.equal(finalAnswer("Some work: 3 + 4.\nAnswer: 7."), "7");
  assert.equal(finalAnswer("answer: 3 is wrong\nFinal answer: **12**"), "12");
  assert.equal(finalAnswer("So the answer is 42, as shown."), "42, as shown");
  assert.equal(finalAnswer("Answer:\n  19\n"), "19");
  assert.equal(
    finalAnswer("She answered 5 questions.\nIt was 8"),
    "It was 8",
    "answered is no marker",
  );
  assert.equal(finalAnswer("work...\n#### 1,234"), "1,234");
  assert.equal(finalAnswer("Thus \\boxed{17} holds."), "17");
  assert.equal(finalAnswer("\\boxed{3}\nAnswer: 4"), "4", "the later one wins");
  assert.equal(finalAnswer("first line\n\nlast line.\n"), "last line");
  assert.equal(finalAnswer(""), "");
});

test("numbers: separators, decimals, signs, fractions, currency and units around them", () => {
  assert.equal(lastNumber("1,234,567"), 1234567);
  assert.equal(lastNumber("1_000 and 2 500"), 500, "a space is no thousands separator");
  assert.equal(lastNumber("$12.50"), 12.5);
  assert.equal(lastNumber("−3 degrees"), -3);
  assert.equal(lastNumber("about 3/4 of it"), 0.75);
  assert.equal(lastNumber("3.5 km"), 3.5);
  assert.equal(lastNumber(".5"), 0.5);
  assert.equal(lastNumber("no digits"), null);
  const numeric = item(72, { kind: "numeric", tolerance: 1e-6 });
  assert.deepEqual(scoreReply(numeric, "Work: 70 + 2\nAnswer: 72 apples."), {
    answer: "72",
    correct: true,
  });
  assert.equal(scoreReply(numeric, "I think 72 then 73").correct, false, "the last number counts");
  assert.equal(scoreReply(numeric, "The total is 72 without a marker").correct, true);
  assert.deepEqual(scoreReply(numeric, "no idea"), { answer: "", correct: false });
  const tolerant = item(3.2808, { kind: "numeric", tolerance: 0.0051 });
  assert.equal(scoreReply(tolerant, "Answer: 3.28").correct, true);
  assert.equal(scoreReply(tolerant, "Answer: 3.27").correct, false);
});

test("choice letters: (B), B), B., option B, a lone B, or exactly one option's text", () => {
  const letters = "ABCD";
  const texts = ["Ada", "Bram", "Chidi", "Dana"];
  for (const final of ["B", "(B)", "B) Bram", "B. Bram", "option B", "Option (B) it is", "**B**"])
    assert.equal(chosenLetter(final.replaceAll("*", ""), letters, texts), "B", final);
  assert.equal(chosenLetter("Bram is the tallest", letters, texts), "B");
  assert.equal(chosenLetter("Ada or Bram", letters, texts), "", "two options named: none");
  assert.equal(chosenLetter("E", letters, texts), "", "not an option");
  assert.equal(chosenLetter("C is the one", letters, []), "C");
  assert.equal(chosenLetter("A cat sat", letters, []), "", "an article, not a choice");
  assert.equal(chosenLetter("I think so", "ABCDEFGHIJ", []), "", "a pronoun, not a choice");
  assert.equal(chosenLetter("option b", letters, texts), "", "lower case is a word");
  const choice = item("C", { kind: "choice", choices: texts });
  assert.equal(scoreReply(choice, "Chidi is older.\nAnswer: C").correct, true);
  assert.equal(scoreReply(choice, "Answer: (c)").correct, false, "letters are capitals");
  assert.equal(scoreReply(choice, "Answer: Chidi").correct, true);
});

test("exact answers compare normalized: case, quotes, markup, spaces, a trailing period", () => {
  assert.equal(normalized(' "Tuesday". '), "tuesday");
  assert.equal(normalized("4,4,  17 , 33"), "4, 4, 17, 33");
  const exact = item("2004-07-23", { kind: "exact" });
  assert.equal(scoreReply(exact, "Counting on...\nAnswer: `2004-07-23`").correct, true);
  assert.equal(scoreReply(exact, "Answer: 2004-07-24").correct, false);
});

test("regex answers run in linear time on RE2, in the final answer or else the reply", () => {
  const regex = item("^(a+)+$", { kind: "regex" });
  const started = performance.now();
  assert.equal(scoreReply(regex, `Answer: ${"a".repeat(5000)}!`).correct, false);
  assert.ok(performance.now() - started < 5000, "no catastrophic backtracking");
  assert.equal(scoreReply(item("blue|green", { kind: "regex" }), "It is GREEN").correct, true);
});

test("json_path answers: the first JSON object (fences allowed), every path's value equal", () => {
  assert.deepEqual(firstJsonObject('noise {"a": {"b": [1, 2]}} {"c": 3}'), { a: { b: [1, 2] } });
  assert.deepEqual(firstJsonObject('{not json} then {"ok": true}'), { ok: true });
  assert.equal(firstJsonObject('{"open": "never closed'), undefined);
  // A reply of braces: a bounded number of starts tried, no quadratic stall.
  const braces = "{".repeat(60_000);
  const started = performance.now();
  assert.equal(firstJsonObject(braces), undefined);
  assert.ok(performance.now() - started < 5000);
  assert.deepEqual(pathSteps("$.a.b[0]"), ["a", "b", 0]);
  assert.deepEqual(pathSteps('$["odd key"]'), ["odd key"]);
  assert.equal(pathSteps("a.b"), null);
  const json = item({ "$.customer": "Nils Silva", "$.quantity": 16 }, { kind: "json_path" });
  const reply = '```json\n{"customer": "nils  silva", "quantity": 16, "city": "Lyon"}\n```';
  assert.equal(scoreReply(json, reply).correct, true, "strings trimmed and case-folded");
  assert.equal(scoreReply(json, '{"customer": "Nils Silva", "quantity": 17}').correct, false);
  assert.equal(scoreReply(json, "no object").correct, false);
});
