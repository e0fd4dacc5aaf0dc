// The judge's settings: off unless a judge endpoint is named, its items and
// labelled pairs read line by line with errors naming the file and the line,
// its key never a variant's, a self-judging endpoint named, and its rule one
// more share of the gate's α.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parseConfig } from "../../src/config/config.ts";
import type { RawSettings } from "../../src/config/settings.ts";
import { judgeRule } from "../../src/gate/judge.ts";
import { parseJudgeItems, parseLabelledPairs } from "../../src/judge/file.ts";

const BASE: RawSettings = {
  "baseline-url": "http://127.0.0.1:8001/v1",
  "candidate-url": "http://127.0.0.1:8002/v1",
  model: "m",
  rate: "10",
  accuracy: "none",
};
const JUDGE: RawSettings = { "judge-url": "http://127.0.0.1:9000/v1", "judge-model": "judge-m" };

const files: Record<string, string> = {
  "items.jsonl": [
    '{"id": "a", "prompt": "Explain TCP slow start.", "reference": "It grows the window…", "rubric": "Mentions cwnd."}',
    "# a comment",
    '{"messages": [{"role": "user", "content": "Summarize: …"}], "family": "summaries", "max_tokens": 64}',
  ].join("\n"),
  "pairs.jsonl":
    '{"prompt": "Hi", "a": "Hello!", "b": "k", "label": "a"}\n{"prompt": "?", "a": "x", "b": "y", "label": "tie"}',
};
const readFile = (path: string) => {
  const text = files[path];
  if (text === undefined) throw new Error(`ENOENT: no such file, open '${path}'`);
  return text;
};
const config = (raw: RawSettings, env: Record<string, string> = {}) =>
  parseConfig({ ...BASE, ...raw }, env, readFile);

test("off unless named; judge-url turns the built-in suite on; a judge without its URL or model is refused", () => {
  assert.equal(config({}).gate.judge, undefined);
  const on = config(JUDGE).gate.judge;
  assert.equal(on?.suite.name, "builtin@1");
  // The looks' most: 1,600 items, the first look at 200.
  assert.equal(on?.suite.items.length, 1600);
  assert.equal(on?.firstLook, 200);
  assert.equal(on?.calibration?.source, "builtin");
  assert.equal(on?.judge.model, "judge-m");
  assert.equal(config({ ...JUDGE, judge: "none" }).gate.judge, undefined);
  assert.throws(
    () => config({ judge: "builtin" }),
    /judge-url is required: the judge's OpenAI base URL/,
  );
  assert.throws(() => config({ "judge-url": JUDGE["judge-url"] ?? "" }), /judge-model is required/);
  assert.equal(config({ ...JUDGE, "judge-items": "40" }).gate.judge?.suite.items.length, 40);
  assert.equal(config({ ...JUDGE, "judge-calibration": "none" }).gate.judge?.calibration, null);
});

test("the judge's key: judge-api-key or its own environment variable, never a variant's", () => {
  const fromEnv = config(JUDGE, {
    OPENAI_API_KEY: "sk-arms",
    LLM_PERF_GATE_JUDGE_API_KEY: "sk-judge",
  });
  assert.equal(fromEnv.gate.judge?.judge.apiKey, "sk-judge");
  assert.equal(config(JUDGE, { OPENAI_API_KEY: "sk-arms" }).gate.judge?.judge.apiKey, undefined);
  assert.equal(config({ ...JUDGE, "api-key": "sk-arms" }).gate.judge?.judge.apiKey, undefined);
  assert.equal(
    config({ ...JUDGE, "judge-api-key": "sk-given" }).gate.judge?.judge.apiKey,
    "sk-given",
  );
});

test("a judge at a variant's URL is allowed and named: a model grading itself", () => {
  const notes =
    config({ ...JUDGE, "judge-url": "http://LOCALHOST:8002/v1/" }).gate.setupNotes ?? [];
  assert.ok(
    notes.some((n) =>
      /judge-url is the candidate's endpoint: the model grades its own answers/.test(n),
    ),
  );
  assert.ok(!(config(JUDGE).gate.setupNotes ?? []).some((n) => /judge-url/.test(n)));
});

test("the judge's rule takes one more share of the gate's α", () => {
  const without = config({});
  const withJudge = config(JUDGE);
  assert.equal(
    (withJudge.gate.decision.apartRates ?? 0) - (without.gate.decision.apartRates ?? 0),
    1,
  );
  const rule = withJudge.gate.judge && judgeRule(withJudge.gate.judge, withJudge.gate.decision);
  assert.equal(rule?.maxLoss, 0.05);
  assert.ok(Math.abs((rule?.passAlpha ?? 0) - 0.05) < 1e-12);
  assert.ok((rule?.failAlpha ?? 1) < 0.05 / 3);
});

test("items and labelled pairs from files; every refusal names the file, the line and what is accepted", () => {
  const j = config({ ...JUDGE, judge: "items.jsonl", "judge-calibration": "pairs.jsonl" }).gate
    .judge;
  assert.deepEqual(
    j?.suite.items.map((i) => [i.id, i.family, i.reference, i.rubric, i.maxTokens]),
    [
      ["a", "items", "It grows the window…", "Mentions cwnd.", 512],
      ["line-3", "summaries", null, null, 64],
    ],
  );
  assert.deepEqual(
    j?.calibration?.labelled.map((p) => [p.id, p.better, p.first]),
    [
      ["labelled-line-1", "first", "Hello!"],
      ["labelled-line-2", "tie", "x"],
    ],
  );
  assert.throws(
    () => parseJudgeItems('{"prompt": "x"}\nnot json', "f.jsonl"),
    /^InputError: judge f\.jsonl: line 2 is not JSON; expected one JSON object per line$/,
  );
  assert.throws(() => parseJudgeItems('{"prompt": "x", "messages": []}', "f.jsonl"), /line 1/);
  assert.throws(
    () => parseJudgeItems('{"prompt": "x", "answer": 3}', "f.jsonl"),
    /line 1: .*answer/,
  );
  assert.throws(
    () => parseJudgeItems('{"id": "a", "prompt": "x"}\n{"id": "a", "prompt": "y"}', "f.jsonl"),
    /line 2: the id "a" is used twice/,
  );
  assert.throws(() => parseJudgeItems("# nothing\n", "f.jsonl"), /holds no item/);
  assert.throws(
    () => parseLabelledPairs('{"prompt": "x", "a": "1", "b": "2", "label": "c"}', "p.jsonl"),
    /judge-calibration p\.jsonl: line 1: .*label/,
  );
  assert.throws(
    () => config({ ...JUDGE, judge: "missing.jsonl" }),
    /judge = "missing\.jsonl" cannot be read: ENOENT/,
  );
});
