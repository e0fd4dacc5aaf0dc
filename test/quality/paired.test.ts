import assert from "node:assert/strict";
import { test } from "node:test";
import { type Answer, emptyAnswer } from "../../src/quality/answer.ts";
import { runChecks } from "../../src/quality/checks.ts";
import { compareQuality, type QualityReruns } from "../../src/quality/paired.ts";
import { mcnemarOneSided, type QualityRule } from "../../src/quality/rule.ts";
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
const NONE: QualityReruns = { baseline: new Map(), candidate: new Map() };
/** Re-runs of the listed cases: the baseline's all good, the candidate's as given. */
const candidateReruns = (runs: Map<string, CaseRun[]>): QualityReruns => ({
  baseline: new Map(
    [...runs].map(([id, rs]) => [id, rs.map(() => runOf(id, good(Number(id.slice(1)))))]),
  ),
  candidate: runs,
});

test("quality: b and c per check kind, McNemar with the effect floors", () => {
  // 6 cases newly wrong on the candidate (json_path), 1 newly right: b = 6, c = 1, n = 20.
  const baseline = SUITE.cases.map((c, i) => runOf(c.id, i === 19 ? '{"v": -1}' : good(i)));
  const candidate = SUITE.cases.map((c, i) => runOf(c.id, i < 6 ? '{"v": -1}' : good(i)));
  const q = compareQuality(SUITE, baseline, candidate, NONE, RULE);
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

test("strict: pre-existing cases are excluded; a flake that passes its re-runs is not gated", () => {
  const baseline = SUITE.cases.map((c, i) => runOf(c.id, i === 0 ? "not json" : good(i)));
  const candidate = SUITE.cases.map((c, i) => runOf(c.id, i <= 2 ? "not json" : good(i)));
  const reruns = new Map([
    ["c1", [runOf("c1", "still not json"), runOf("c1", "nope")]],
    ["c2", [runOf("c2", good(2)), runOf("c2", good(2))]],
  ]);
  const q = compareQuality(SUITE, baseline, candidate, candidateReruns(reruns), RULE);
  assert.deepEqual(q.pre_existing, [{ id: "c0", codes: ["json.invalid"] }]);
  assert.deepEqual(
    q.strict.map((c) => [c.id, c.candidate_failures, c.runs, c.confirmed]),
    [
      ["c1", 3, 3, true],
      ["c2", 1, 3, false],
    ],
  );
  assert.equal(q.verdict, "fail");
  assert.match(
    q.reasons[0]?.message ?? "",
    /^strict checks: 1 case the baseline passes fails on the candidate, confirmed by re-runs: c1 \[json\.invalid\]/,
  );
  const flakeOnly = compareQuality(
    SUITE,
    baseline,
    candidate,
    candidateReruns(
      new Map([...reruns].map(([k, v]) => [k, k === "c1" ? v.map(() => runOf("c1", good(1))) : v])),
    ),
    RULE,
  );
  assert.equal(flakeOnly.strict.filter((c) => c.confirmed).length, 0);
});

test("a check whose new failures are all confirmed strict failures is counted once, as strict", () => {
  const broken = new Set(["c1", "c2", "c3", "c4"]);
  const baseline = SUITE.cases.map((c, i) => runOf(c.id, good(i)));
  const candidate = SUITE.cases.map((c, i) => runOf(c.id, broken.has(c.id) ? "not json" : good(i)));
  const reruns = new Map([...broken].map((id) => [id, [runOf(id, "nope"), runOf(id, "nope")]]));
  const q = compareQuality(SUITE, baseline, candidate, candidateReruns(reruns), RULE);
  // json_path: b = 4 of 20 (p = 0.0625, 20 % ≥ the large-effect floor) — but those are the strict cases.
  assert.equal(q.kinds.find((k) => k.kind === "json_path")?.decision, "counted");
  assert.deepEqual(
    q.reasons.map((r) => r.check),
    ["strict"],
    "one reason: the gate fails once for these cases",
  );
  assert.equal(q.strict[0]?.answer, '"not json"', "what the candidate returned");
  // Field finding: the JSON-mode cases were left out of json_parse's own row, which read
  // "100 % | 100 % | 0 | pass" under a headline of four broken cases. They count in it.
  const parse = q.kinds.find((k) => k.kind === "json_parse");
  assert.equal(parse?.b, 4);
  assert.equal(parse?.candidate_rate, 16 / 20);
  assert.equal(parse?.decision, "counted");
});

test("a kind failing on its own new failures lists them; the confirmed strict cases among them, once, as strict", () => {
  const broken = new Set(["c1", "c2", "c3", "c4"]);
  const wrong = new Set(["c5", "c6", "c7", "c8"]);
  const baseline = SUITE.cases.map((c, i) => runOf(c.id, good(i)));
  const content = (id: string, i: number) =>
    broken.has(id) ? "not json" : wrong.has(id) ? `{"v": ${i + 100}}` : good(i);
  const candidate = SUITE.cases.map((c, i) => runOf(c.id, content(c.id, i)));
  const reruns = new Map(
    [...broken, ...wrong].map((id) => {
      const i = Number(id.slice(1));
      return [id, [runOf(id, content(id, i)), runOf(id, content(id, i))]];
    }),
  );
  const q = compareQuality(SUITE, baseline, candidate, candidateReruns(reruns), RULE);
  const path = q.kinds.find((k) => k.kind === "json_path");
  // b counts all eight (the table adds up); the row fails on its own four (20 % of 20).
  assert.equal(path?.b, 8);
  assert.equal(path?.decision, "fail");
  const reason = q.reasons.find((r) => r.check === "json_path");
  assert.deepEqual(reason?.cases, ["c5", "c6", "c7", "c8"]);
  assert.match(
    reason?.message ?? "",
    /^json_path: 4 cases newly fail \(and 4 of the strict cases above\)/,
  );
  assert.deepEqual(q.reasons.find((r) => r.check === "strict")?.cases, ["c1", "c2", "c3", "c4"]);
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
  const q = compareQuality(small, baseline, candidate, NONE, RULE);
  assert.equal(q.kinds.find((k) => k.kind === "regex")?.decision, "pass");
  assert.equal(q.verdict, "pass");
  const failing = small.cases.map((c, i) => run(c.id, "", i === 0 ? 500 : 200));
  const http = compareQuality(small, baseline, failing, NONE, RULE);
  assert.match(
    http.strict[0]?.answer ?? "",
    /^HTTP 500 "\{\\"error\\":\{\\"message\\":\\"CUDA error: an illegal memory access/,
  );
});

test("finding 3a: a case that fails once and passes its re-runs does not count against its kind", () => {
  // Two one-off HTTP 500s on the candidate's first run, both passing their re-runs.
  const baseline = SUITE.cases.map((c, i) => runOf(c.id, good(i)));
  const candidate = SUITE.cases.map((c, i) =>
    i < 2 ? runOf(c.id, "", 500) : runOf(c.id, good(i)),
  );
  const reruns = new Map(
    ["c0", "c1"].map((id, i) => [id, [runOf(id, good(i)), runOf(id, good(i))]]),
  );
  const q = compareQuality(SUITE, baseline, candidate, candidateReruns(reruns), RULE);
  const path = q.kinds.find((k) => k.kind === "json_path");
  assert.deepEqual([path?.b, path?.decision], [0, "pass"]);
  assert.deepEqual(path?.flaky, ["c0", "c1"]);
  assert.equal(q.verdict, "pass");
});

test("finding 3b: no kind fails on two flips of ten (p = 0.25), however large the share", () => {
  assert.ok(Math.abs(mcnemarOneSided(2, 0) - 0.25) < 1e-12);
  const ten = SUITE.cases.slice(0, 10);
  const suite = { ...SUITE, cases: ten };
  const baseline = ten.map((c, i) => runOf(c.id, good(i)));
  const candidate = ten.map((c, i) => runOf(c.id, i < 2 ? '{"v": -1}' : good(i)));
  const reruns = new Map(
    ["c0", "c1"].map((id) => [id, [runOf(id, '{"v": -1}'), runOf(id, '{"v": -1}')]]),
  );
  const q = compareQuality(suite, baseline, candidate, candidateReruns(reruns), RULE);
  const path = q.kinds.find((k) => k.kind === "json_path");
  assert.deepEqual([path?.b, path?.c, path?.decision], [2, 0, "pass"]);
});

test("finding 3c: the baseline is re-run too — a case flaky on the baseline is no flip", () => {
  const baseline = SUITE.cases.map((c, i) => runOf(c.id, good(i)));
  const wrong = new Set(["c0", "c1", "c2", "c3", "c4", "c5"]);
  const candidate = SUITE.cases.map((c, i) => runOf(c.id, wrong.has(c.id) ? '{"v": -1}' : good(i)));
  const again = (id: string, content: string) => [runOf(id, content), runOf(id, content)];
  // Every differing case fails again on the candidate, but also once on the baseline's re-runs.
  const reruns: QualityReruns = {
    baseline: new Map([...wrong].map((id) => [id, [runOf(id, '{"v": -1}'), runOf(id, good(0))]])),
    candidate: new Map([...wrong].map((id) => [id, again(id, '{"v": -1}')])),
  };
  const q = compareQuality(SUITE, baseline, candidate, reruns, RULE);
  const path = q.kinds.find((k) => k.kind === "json_path");
  assert.equal(path?.b, 0);
  assert.equal(path?.flaky.length, 6);
  assert.equal(q.verdict, "pass");
  // The same candidate against a baseline that passes its re-runs: six consistent flips, a fail.
  const solid = compareQuality(SUITE, baseline, candidate, candidateReruns(reruns.candidate), RULE);
  assert.equal(solid.kinds.find((k) => k.kind === "json_path")?.b, 6);
  assert.equal(solid.verdict, "fail");
});

test("finding 3d: McNemar in log space — thousands of discordant cases are a number", () => {
  for (const [b, c] of [
    [600, 500],
    [1100, 0],
    [1500, 1500],
    [5000, 4800],
  ] as const) {
    const p = mcnemarOneSided(b, c);
    assert.ok(Number.isFinite(p) && p >= 0 && p <= 1, `${b}, ${c}: ${p}`);
  }
  assert.ok(mcnemarOneSided(1500, 1500) > 0.5 && mcnemarOneSided(1500, 1500) < 0.52);
  assert.ok(mcnemarOneSided(600, 500) < 0.002, "a 100-case excess of 1,100 is significant");
  assert.ok(mcnemarOneSided(1100, 0) < 1e-300);
  // The small exact values: P(X ≥ 6 | Bin(7, ½)) = 8/128.
  assert.ok(Math.abs(mcnemarOneSided(6, 1) - 8 / 128) < 1e-12);
});
