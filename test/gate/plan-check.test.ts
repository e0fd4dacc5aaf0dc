// The plan check before the first trial: per family what the plan can decide
// at its first look and at max-trials, and the endpoint time it may take; a
// family that cannot be decided even in the best case is named with what
// would decide it and adds no pairs — and every verdict says what the plan
// predicted beside what it cost.

import assert from "node:assert/strict";
import { test } from "node:test";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { FAKE_SETTINGS, fakeGateResults, gate } from "../helpers/gate.ts";
import { fakeReport } from "../helpers/reports.ts";

test("a plan that cannot decide the failure rate says so before the first trial, and adds no pairs for it", async () => {
  const lines: string[] = [];
  const { run, results } = await gate(
    {
      ...FAKE_SETTINGS,
      rate: "2",
      duration: "6s",
      warmup: "0",
      trials: "4",
      "max-trials": "30",
      "max-failure-increase": "0.5%",
    },
    {
      // 2 req/s × 6 s: 12 requests a trial, none failing, the same latencies on both arms.
      measureTrial: async () => fakeReport({ ttftMs: 100, itlMs: 10, ok: 12 }),
      log: (line) => lines.push(line),
    },
  );
  const plan = run.cost?.plan;
  assert.ok(plan, "the plan is in the results");
  assert.deepEqual(plan.pairs, { first: 4, most: 30 });
  assert.deepEqual(plan.requests_per_arm, { first: 48, most: 360 });
  assert.deepEqual(plan.under_load_s, { first: 48, most: 360 });
  assert.equal(plan.failure_rate.requests_needed, 598);
  assert.equal(plan.failure_rate.decidable, false);
  // No failure in 360 requests bounds the rate at 1 − 0.05^(1/360) ≈ 0.83 points.
  assert.ok(Math.abs(plan.failure_rate.bound_most - (1 - 0.05 ** (1 / 360))) < 1e-9);
  const said = lines.findIndex((l) => l.startsWith("warning: the failure rate cannot be decided"));
  const firstTrial = lines.findIndex((l) => l.includes("measuring"));
  assert.ok(said >= 0 && said < firstTrial, "said before the first trial");
  assert.match(
    results.warnings.join("\n"),
    /needs ≥ 598 requests per arm without a failure, and it sends at most 360 \(30 pairs\) — raise rate × duration, max-trials, or max-failure-increase/,
  );
  // The latencies pass at the first look; the failure rate adds no pairs.
  assert.equal(run.pairs, 4);
  assert.equal(run.reliability?.status, "futile");
  assert.equal(run.verdict, "inconclusive");
  assert.match(
    results.warnings.join("\n"),
    /stopped at 4 pairs of 30: failure rate cannot be decided/,
  );
  assert.match(
    renderMarkdown(results, "default"),
    /The plan check predicted 4 to 30 pairs, 48 s to 6 min of load\./,
  );
});

test("a plan that can decide names nothing, and its failure rate passes without a failure once it has sent enough", async () => {
  const same = [{ ttftMs: 100, itlMs: 10, ok: 200 }];
  const results = await fakeGateResults(same, same, {
    rate: "40",
    duration: "5s",
    warmup: "0",
    trials: "4",
    "max-trials": "10",
    "max-failure-increase": "0.5%",
  });
  const plan = results.cost?.plan;
  assert.equal(plan?.failure_rate.decidable, true);
  assert.deepEqual(plan?.undecidable, []);
  assert.ok(!results.warnings.some((w) => w.includes("cannot be decided")));
  // 800 requests per arm at the first look, none failed: within 1.25 × 598.
  assert.equal(results.verdict, "pass");
  assert.equal(results.pairs, 4);
  assert.deepEqual(
    plan?.metrics.map((m) => m.label),
    ["goodput", "p95 TTFT", "p95 ITL"],
    "the first look's noise, per gated metric",
  );
});
