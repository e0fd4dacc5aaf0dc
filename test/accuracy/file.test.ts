// A user's accuracy items: JSONL validated line by line before anything is
// sent, the public formats' one-line conversions read as documented, and
// every refusal naming the file, the line and what is accepted.

import assert from "node:assert/strict";
import { test } from "node:test";
import { scoreReply } from "../../src/accuracy/extract.ts";
import { parseAccuracyItems } from "../../src/accuracy/file.ts";

const parse = (lines: unknown[]) =>
  parseAccuracyItems(
    lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n"),
    "items.jsonl",
  );

test("GSM8K's answer field (…#### 72) is a numeric answer, read as a reply is", () => {
  const suite = parse([
    {
      prompt: "Natalia sold 48 clips…",
      answer: "She sold 48/2 = 24 in May.\n#### 72",
      match: "numeric",
    },
  ]);
  const [i] = suite.items;
  assert.equal(i?.answer, 72);
  assert.equal(i?.id, "line-1");
  assert.equal(i?.family, "items");
  assert.match(i?.messages[0]?.content ?? "", /Natalia sold 48 clips…\n.*Answer: <answer>/);
  assert.ok(i && scoreReply(i, "48 + 24 = 72\nAnswer: 72").correct);
});

test("multiple choice with choices: the answer as an index or a letter, the options lettered in the prompt", () => {
  const suite = parse([
    { id: "q1", prompt: "Which is a prime?", choices: ["4", "6", "7", "9"], answer: 2 },
    { id: "q2", prompt: "Which is even?", choices: ["3", "8"], answer: "b", family: "mmlu-ish" },
  ]);
  assert.deepEqual(
    suite.items.map((i) => [i.id, i.answer, i.match.kind, i.family]),
    [
      ["q1", "C", "choice", "items"],
      ["q2", "B", "choice", "mmlu-ish"],
    ],
  );
  assert.match(suite.items[0]?.messages[0]?.content ?? "", /A\) 4\nB\) 6\nC\) 7\nD\) 9\n/);
});

test("messages are sent as they are; match and tolerance as given; blank and # lines skipped", () => {
  const suite = parse([
    "# a comment",
    "",
    {
      id: "m",
      messages: [
        { role: "system", content: "Answer with a number." },
        { role: "user", content: "2+2?" },
      ],
      answer: 4,
      tolerance: 0.5,
      max_tokens: 8,
    },
    { id: "r", prompt: "Name a colour", answer: "^(red|blue)$", match: "regex" },
    { id: "j", prompt: "JSON please", answer: { "$.a[0].b": 1 } },
  ]);
  assert.equal(suite.items.length, 3);
  assert.equal(suite.items[0]?.messages.length, 2);
  assert.deepEqual(suite.items[0]?.match, { kind: "numeric", tolerance: 0.5 });
  assert.equal(suite.items[0]?.maxTokens, 8);
  assert.equal(suite.items[2]?.match.kind, "json_path");
});

test("bad items are refused by line, with what is accepted", () => {
  const cases: [unknown[], RegExp][] = [
    [["{not json"], /accuracy items\.jsonl: line 1 is not JSON; expected one JSON object per line/],
    [[{ prompt: "p" }], /line 1: .*must have required property 'answer'/],
    [[{ answer: 1 }], /line 1: an item has either messages or a prompt \(one of them\)/],
    [
      [{ prompt: "p", messages: [{ role: "user", content: "q" }], answer: 1 }],
      /line 1: an item has either messages or a prompt/,
    ],
    [
      [{ prompt: "p", answer: "x", match: "fuzzy" }],
      /line 1: \/match must be equal to one of the allowed values: "exact", "numeric"/,
    ],
    [
      [{ prompt: "p", answer: "none here", match: "numeric" }],
      /line 1: a numeric match needs a number/,
    ],
    [
      [{ prompt: "p", choices: ["a", "b"], answer: 5 }],
      /line 1: a choice answer is an option's index \(0–1\) or letter \(AB\)/,
    ],
    [[{ prompt: "p", answer: { "a.b": 1 } }], /line 1: "a\.b" is not a path such as \$\.a\.b\[0\]/],
    [[{ prompt: "p", answer: "(a)\\1", match: "regex" }], /line 1: the pattern cannot run on RE2/],
    [
      [
        { id: "x", prompt: "p", answer: 1 },
        { id: "x", prompt: "q", answer: 2 },
      ],
      /line 2: the id "x" is used twice/,
    ],
    [["", "# only comments"], /holds no item/],
    [
      [{ prompt: "p", answer: 1, extra: true }],
      /line 1: .*must NOT have additional properties \(extra\)/,
    ],
  ];
  for (const [lines, message] of cases)
    assert.throws(() => parse(lines), message, JSON.stringify(lines));
});
