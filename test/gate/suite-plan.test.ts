// The plan check counts the item suites (issue 49, item 4): the accuracy
// suite's requests at its first look and its last, and the time they take at
// the preflight's measured speed — said before the first request, kept in the
// results' cost, and in the comment's cost line beside what it took.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parseConfig } from "../../src/config/config.ts";
import { accuracyPlan, suitePlanLine } from "../../src/gate/suite-plan.ts";
import type { PreflightReport } from "../../src/servers/preflight.ts";

const preflight = (
  arm: "baseline" | "candidate",
  ttftMs: number,
  tpotMs: number | null,
): PreflightReport => ({
  arm,
  url: "http://127.0.0.1:1/v1",
  model: "m",
  models: ["m"],
  first_ttft_ms: ttftMs,
  idle_ttft_ms: ttftMs,
  tpot_ms: tpotMs,
  warnings: [],
});

const ARMS = {
  model: "m",
  "baseline-url": "http://127.0.0.1:1/v1",
  "candidate-url": "http://127.0.0.1:2/v1",
  rate: "5",
  accuracy: "builtin",
};

test("the accuracy suite's requests at its first and last look, and their time at the preflight's speed", () => {
  const a = parseConfig({ ...ARMS, "accuracy-concurrency": "16" }).gate.accuracy;
  assert.ok(a);
  const maxTokens = a.suite.items.reduce((s, i) => s + i.maxTokens, 0) / a.suite.items.length;
  const plan = accuracyPlan(a, {
    baseline: preflight("baseline", 100, 20),
    candidate: preflight("candidate", 200, 25),
  });
  assert.ok(plan);
  assert.deepEqual(plan.items, { first: 300, most: 4800 });
  // Both arms and the baseline's re-run of a quarter: 300 × 2.25, 4,800 × 2.25.
  assert.deepEqual(plan.requests, { first: 675, most: 10800 });
  // 375 on the baseline, 300 on the candidate, 16 at a time.
  const first =
    (Math.ceil(375 / 16) * (100 + maxTokens * 20) + Math.ceil(300 / 16) * (200 + maxTokens * 25)) /
    1000;
  assert.ok(
    Math.abs((plan.seconds?.first ?? 0) - first) < 0.1,
    `${plan.seconds?.first} vs ${first}`,
  );
  assert.match(
    suitePlanLine(plan, 16),
    /^plan: accuracy: 300 items at the first look \(675 requests\), up to 4,800 \(10,800\): at most \d.* to \d.* at the preflight's speed, 16 at a time$/,
  );
  // One token at the preflight: no speed to time them by, said.
  const unknown = accuracyPlan(a, {
    baseline: preflight("baseline", 100, null),
    candidate: preflight("candidate", 200, 25),
  });
  assert.equal(unknown?.seconds, null);
  assert.match(
    suitePlanLine(unknown ?? plan, "auto"),
    /16 at a time unless the servers say \(no speed measured to time them\)$/,
  );
  assert.equal(accuracyPlan(undefined, {}), null);
});
