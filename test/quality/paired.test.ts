import assert from "node:assert/strict";
import { test } from "node:test";
import { type Answer, emptyAnswer } from "../../src/quality/answer.ts";
import { runChecks } from "../../src/quality/checks.ts";
import { compareQuality, type QualityRule } from "../../src/quality/paired.ts";

import type { CaseRun } from "../../src/quality/run.ts";
import { parseSuite } from "../../src/quality/suite.ts";

/** The documented defaults (quality-alpha, -min-effect, -large-effect, -confirm-reruns). */
const RULE: QualityRule = { alpha: 0.05, minEffect: 0.02, largeEffect: 0.1, confirmReruns: 2 };

const cases = Array.from(
  { length: 20 },
  (_, i) =>
    `  - { id: c${i}, messages: [{role: user, content: q${i}}], response_format: {type: json_object}, expect: [{kind: json_parse}, {kind: json_path, pointer: /v, equals: ${i}}, {kind: agreement, mode: json}] }`,
);
const SUITE = parseSuite(`defaults: { max_tokens: 20 }\ncases:\n${cases.join("\n")}`, "t");

function runOf(id: string, content: string, status = 200): CaseRun {
  const c = SUITE.cases.find((x) => x.id === id);
  if (!c) throw new Error(id);
  const answer: Answer = {
    ...emptyAnswer(status),
    content,
    finishReason: "stop",
    completionTokens: 3,
  };
  return { id, attempts: [{ stream: false, answer, results: runChecks(c, answer) }] };
}

const good = (i: number) => `{"v": ${i}}`;

test("quality: b and c per check kind, McNemar with the effect floors", () => {
  // 6 cases newly wrong on the candidate (json_path), 1 newly right: b = 6, c = 1, n = 20.
  const baseline = SUITE.cases.map((c, i) => runOf(c.id, i === 19 ? '{"v": -1}' : good(i)));
  const candidate = SUITE.cases.map((c, i) => runOf(c.id, i < 6 ? '{"v": -1}' : good(i)));
  const q = compareQuality(SUITE, baseline, candidate, new Map(), RULE);
  const path = q.kinds.find((k) => k.kind === "json_path");
  assert.deepEqual([path?.n, path?.b, path?.c], [20, 6, 1]);
  assert.ok(Math.abs((path?.p as number) - 0.0625) < 1e-12, "P(X ≥ 6 | Bin(7, ½)) = 8/128");
  // p = 0.0625 > α, but (6 − 1)/20 = 25 % ≥ the 10 % large-effect floor.
  assert.equal(path?.decision, "fail");
  assert.equal(q.verdict, "fail");
  assert.deepEqual(
    path?.flipped.filter((f) => f.direction === "b").map((f) => f.id),
    ["c0", "c1", "c2", "c3", "c4", "c5"],
  );
  assert.match(
    path?.flipped[0]?.diff ?? "",
    /baseline "\{\\"v\\": 0\}" → candidate "\{\\"v\\": -1\}"/,
  );
  assert.equal(q.agreement.n, 20);
  assert.equal(q.agreement.agreed, 13);
  assert.equal(q.kinds.find((k) => k.kind === "json_parse")?.decision, "pass");
});

test("contract: pre-existing cases are excluded; a flake that passes its re-runs is not gated", () => {
  const baseline = SUITE.cases.map((c, i) => runOf(c.id, i === 0 ? "not json" : good(i)));
  const candidate = SUITE.cases.map((c, i) => runOf(c.id, i <= 2 ? "not json" : good(i)));
  const reruns = new Map([
    ["c1", [runOf("c1", "still not json"), runOf("c1", "nope")]],
    ["c2", [runOf("c2", good(2)), runOf("c2", good(2))]],
  ]);
  const q = compareQuality(SUITE, baseline, candidate, reruns, RULE);
  assert.deepEqual(q.pre_existing, [{ id: "c0", codes: ["json.invalid"] }]);
  assert.deepEqual(
    q.contract.map((c) => [c.id, c.candidate_failures, c.runs, c.confirmed]),
    [
      ["c1", 3, 3, true],
      ["c2", 1, 3, false],
    ],
  );
  assert.equal(q.verdict, "fail");
  assert.match(
    q.reasons[0]?.message ?? "",
    /^contract: 1 case the baseline passes fails on the candidate, confirmed by re-runs: c1 \[json\.invalid\]/,
  );
  const flakeOnly = compareQuality(
    SUITE,
    baseline,
    candidate,
    new Map([...reruns].map(([k, v]) => [k, k === "c1" ? v.map(() => runOf("c1", good(1))) : v])),
    RULE,
  );
  assert.equal(flakeOnly.contract.filter((c) => c.confirmed).length, 0);
});

test("a check whose new failures are all confirmed contract failures is counted once, as contract", () => {
  const broken = new Set(["c1", "c2", "c3"]);
  const baseline = SUITE.cases.map((c, i) => runOf(c.id, good(i)));
  const candidate = SUITE.cases.map((c, i) => runOf(c.id, broken.has(c.id) ? "not json" : good(i)));
  const reruns = new Map([...broken].map((id) => [id, [runOf(id, "nope"), runOf(id, "nope")]]));
  const q = compareQuality(SUITE, baseline, candidate, reruns, RULE);
  // json_path: b = 3 of 20 (15 % ≥ the large-effect floor) — but those are the contract cases.
  assert.equal(q.kinds.find((k) => k.kind === "json_path")?.decision, "counted");
  assert.deepEqual(
    q.reasons.map((r) => r.check),
    ["contract"],
    "one reason: the gate fails once for these cases",
  );
  assert.equal(q.contract[0]?.answer, '"not json"', "what the candidate returned");
});

test("the large-effect rule needs more than one case; a flipped case shows the candidate's HTTP error", () => {
  const small = parseSuite(
    `defaults: { max_tokens: 5 }\ncases:\n${Array.from({ length: 5 }, (_, i) => `  - { id: s${i}, messages: [{role: user, content: q}], expect: [{kind: regex, pattern: "^ok$"}] }`).join("\n")}`,
    "small",
  );
  const run = (id: string, content: string, status = 200): CaseRun => {
    const c = small.cases.find((x) => x.id === id) as (typeof small.cases)[number];
    const answer: Answer = {
      ...emptyAnswer(status),
      content,
      finishReason: "stop",
      raw:
        status === 200 ? content : '{"error":{"message":"CUDA error: an illegal memory access"}}',
    };
    return { id, attempts: [{ stream: false, answer, results: runChecks(c, answer) }] };
  };
  const baseline = small.cases.map((c) => run(c.id, "ok"));
  // One case of five flips: 20 % of the suite, above the 10 % floor, but one case.
  const candidate = small.cases.map((c, i) => run(c.id, i === 0 ? "no" : "ok"));
  const q = compareQuality(small, baseline, candidate, new Map(), RULE);
  assert.equal(q.kinds.find((k) => k.kind === "regex")?.decision, "pass");
  assert.equal(q.verdict, "pass");
  const failing = small.cases.map((c, i) => run(c.id, "", i === 0 ? 500 : 200));
  const http = compareQuality(small, baseline, failing, new Map(), RULE);
  assert.match(
    http.contract[0]?.answer ?? "",
    /^HTTP 500 "\{\\"error\\":\{\\"message\\":\\"CUDA error: an illegal memory access/,
  );
});
