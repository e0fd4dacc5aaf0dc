// Accuracy in the results file: the settings and each boundary's α recorded,
// every item's answers kept, and a file from another job re-decided from
// those answers (never its own verdict), validated first; and the settings
// read, bounded and folded into the gate's family-wise α.

import assert from "node:assert/strict";
import { test } from "node:test";
import { type ArmAnswer, compareAccuracy, type ItemAnswers } from "../../src/accuracy/compare.ts";
import { sharesOf } from "../../src/compare/decide-run.ts";
import { parseConfig } from "../../src/config/config.ts";
import { accuracyRule, DEFAULT_ACCURACY_RULE } from "../../src/gate/accuracy.ts";
import { headlineFor } from "../../src/report/headline.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { trustResults } from "../../src/results/trust.ts";
import { FAKE_SETTINGS, fakeGateResults } from "../helpers/gate.ts";

const arm = (correct: boolean): ArmAnswer => ({
  answer: correct ? "1" : "2",
  correct,
  error: null,
  excerpt: "Answer: 1",
  finish_reason: "stop",
});

/** 1,000 items: b right → wrong, the rest right on both. */
const answers = (b: number): ItemAnswers[] =>
  Array.from({ length: 1000 }, (_, i) => ({
    id: `i-${i}`,
    family: "f",
    expected: "1",
    baseline: arm(true),
    candidate: arm(i >= b),
    again: null,
    divergence: null,
  }));

test("accuracy's settings: on by default, one more rate in the fail α; none adds nothing; items bounded", () => {
  const on = parseConfig(FAKE_SETTINGS_WITH({ accuracy: "builtin" })).gate;
  // The looks' most: 4,800 items, the first look at 300.
  assert.equal(on.accuracy?.suite.items.length, 4800);
  assert.equal(on.accuracy?.firstLook, 300);
  assert.equal(on.accuracy?.maxDrop, 0.02);
  assert.equal(on.decision.apartRates, 1);
  assert.deepEqual(sharesOf(on.decision), { latencies: 2, rates: 3 });
  assert.ok(on.accuracy);
  const rule = accuracyRule(on.accuracy, on.decision);
  assert.equal(rule.passAlpha.toFixed(4), "0.0500");
  assert.equal(rule.failAlpha.toFixed(5), (0.05 / 9).toFixed(5));
  // The defaults' rule, as a file without one is re-decided (up to 1 − 0.95 in floating point).
  for (const k of ["maxDrop", "passAlpha", "failAlpha"] as const)
    assert.ok(Math.abs(rule[k] - DEFAULT_ACCURACY_RULE[k]) < 1e-12, k);
  assert.equal(rule.maxFlipRate, DEFAULT_ACCURACY_RULE.maxFlipRate);
  assert.equal(rule.maxKld, DEFAULT_ACCURACY_RULE.maxKld);
  const limits = parseConfig(
    FAKE_SETTINGS_WITH({ accuracy: "builtin", "max-flip-rate": "5%", "max-kld": "0.1" }),
  ).gate;
  assert.equal(limits.decision.apartRates, 3);
  const off = parseConfig(FAKE_SETTINGS_WITH({ accuracy: "none" })).gate;
  assert.equal(off.accuracy, undefined);
  assert.equal(off.decision.apartRates, undefined);
  const some = parseConfig(
    FAKE_SETTINGS_WITH({ accuracy: "builtin", "accuracy-items": "60" }),
  ).gate;
  assert.deepEqual(
    [...new Set(some.accuracy?.suite.items.map((i) => i.family))].length,
    6,
    "spread over every family",
  );
  assert.equal(some.accuracy?.suite.items.length, 60);
  const more = parseConfig(
    FAKE_SETTINGS_WITH({ accuracy: "builtin", "accuracy-items": "2400" }),
  ).gate;
  assert.equal(more.accuracy?.suite.items.length, 2400);
  assert.equal(
    more.accuracy?.suite.items[0]?.id,
    "arithmetic-000",
    "the larger suite begins with the smaller",
  );
  assert.throws(
    () => parseConfig(FAKE_SETTINGS_WITH({ accuracy: "builtin", "accuracy-items": "20000" })),
    /accuracy-items = 20000 is more than the built-in suite holds; accepted: at most 12000/,
  );
  assert.throws(
    () => parseConfig(FAKE_SETTINGS_WITH({ accuracy: "/nonexistent.jsonl" })),
    /accuracy = "\/nonexistent\.jsonl" cannot be read: .*accepted: a file path, builtin or none/,
  );
  assert.throws(
    () => parseConfig(FAKE_SETTINGS_WITH({ "max-accuracy-drop": "150%" })),
    /max-accuracy-drop/,
  );
});

function FAKE_SETTINGS_WITH(extra: Record<string, string>) {
  return { ...FAKE_SETTINGS, ...extra };
}

/** A gate's results with an accuracy report (the trials stand-ins), as a file another job wrote. */
async function resultsWith(b: number, claimed: "pass" | "fail") {
  const same = [{ ttftMs: 100, itlMs: 10 }];
  const results = await fakeGateResults(same, same);
  const file = JSON.parse(JSON.stringify(results));
  const rule = DEFAULT_ACCURACY_RULE;
  const report = compareAccuracy("builtin@1", answers(b), rule, {
    logprobs: { baseline: false, candidate: false },
    seconds: { baseline: 1, candidate: 1, again: 0 },
    scoring: null,
  });
  file.accuracy = { ...report, verdict: claimed };
  file.config.accuracy = {
    suite: "builtin@1",
    items: 1000,
    concurrency: 16,
    floor_share: 0,
    top_logprobs: 5,
    rule: {
      max_drop: 0.02,
      max_flip_rate: null,
      max_kld: null,
      pass_alpha: 0.05,
      fail_alpha: 0.05 / 9,
    },
  };
  return file;
}

test("a results file's accuracy is decided again from its answers, never its own verdict", async () => {
  const file = await resultsWith(50, "pass");
  const trusted = trustResults(file, "other-job.json", headlineFor);
  assert.equal(trusted.accuracy?.verdict, "fail");
  assert.equal(trusted.verdict, "fail");
  assert.ok(
    trusted.warnings.some((w) =>
      /the results file said the accuracy verdict was pass; recomputed from its evidence: fail/.test(
        w,
      ),
    ),
    trusted.warnings.join("\n"),
  );
  assert.match(trusted.headline, /the candidate answers 5\.0 points fewer items right/);
  assert.match(renderMarkdown(trusted, "k"), /\*\*Accuracy\*\* ❌/);
});

test("a results file's accuracy answers are validated before anything is read", async () => {
  const file = await resultsWith(0, "pass");
  file.accuracy.answers[3].candidate.excerpt = "x".repeat(5000);
  assert.throws(
    () => trustResults(file, "other-job.json", headlineFor),
    /accuracy\/answers\/3\/candidate\/excerpt/,
  );
  const extra = await resultsWith(0, "pass");
  extra.accuracy.answers[0].script = "<script>";
  assert.throws(
    () => trustResults(extra, "other-job.json", headlineFor),
    /must NOT have additional properties/,
  );
});

test("texts from a results file's accuracy items reach the comment as code, never as markup", async () => {
  const file = await resultsWith(50, "fail");
  file.accuracy.answers[0].id = "<img src=x onerror=alert(1)> @org/team";
  file.accuracy.answers[0].candidate.answer = "](https://evil.example) `tick`";
  const md = renderMarkdown(trustResults(file, "other-job.json", headlineFor), "k");
  assert.doesNotMatch(md, /<img/);
  assert.doesNotMatch(md, /@org/);
  assert.doesNotMatch(md, /\]\(https:\/\/evil/);
});

test("a results file's accuracy settings and scoring are validated: no crash on a partial record", async () => {
  const empty = await resultsWith(0, "pass");
  empty.config.accuracy = {};
  assert.throws(() => trustResults(empty, "other-job.json", headlineFor), /config\/accuracy/);
  const scoring = await resultsWith(0, "pass");
  scoring.accuracy.scoring = { items: "many", scored: 1, supported: true };
  assert.throws(() => trustResults(scoring, "other-job.json", headlineFor), /accuracy\/scoring/);
});

test("a family name cannot add rows or headings to the comment", async () => {
  const file = await resultsWith(50, "fail");
  for (const a of file.accuracy.answers) a.family = "x |\n### ✅ pass";
  const md = renderMarkdown(trustResults(file, "other-job.json", headlineFor), "k");
  assert.doesNotMatch(md, /^### ✅ pass/m);
  assert.match(md, /\| x +### ✅ pass \|/);
});

test("a key pasted where the items file belongs is described, never quoted", () => {
  const key = "hf_PASTEDSECRETabcdef1234567890";
  assert.throws(
    () => parseConfig({ ...FAKE_SETTINGS, accuracy: key }),
    (e: Error) =>
      !e.message.includes(key) &&
      /accuracy = \(a value that looks like a credential/.test(e.message),
  );
});
