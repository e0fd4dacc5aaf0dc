// Pooled (descriptive) percentiles keep censoring: a percentile whose rank
// falls among timed-out requests is a lower bound, pooled as per trial.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { TrialEntry } from "../../src/compare/trials.ts";
import { pooledPercentiles } from "../../src/results/model.ts";
import { fakeReport } from "../helpers/reports.ts";

const trial = (pair: number, arm: TrialEntry["arm"], censored: number): TrialEntry => ({
  pair,
  arm,
  position: 0,
  seed: 1,
  report: fakeReport({ ttftMs: 100, itlMs: 10, failed: censored > 0 ? { censored } : {} }),
});

test("pooled percentiles among censored requests are lower bounds at the timeout", () => {
  // Per trial: 100 ok requests and 5 timed out at 60 s; pooled: 10 of 210 at the top.
  const pooled = pooledPercentiles([
    trial(0, "baseline", 5),
    trial(1, "baseline", 5),
    trial(0, "candidate", 0),
    trial(1, "candidate", 0),
  ]);
  const ttft = pooled.baseline.ttft_ms;
  assert.equal(ttft.count, 210);
  assert.equal(ttft.censored, 10);
  assert.equal(ttft.p99, 60_000);
  assert.ok(ttft.lower_bounds.includes("p99"), JSON.stringify(ttft.lower_bounds));
  assert.ok(!ttft.lower_bounds.includes("p50"));
  assert.ok(Math.abs((ttft.p50 as number) - 100) <= 2, `p50 ${ttft.p50}`);
  assert.ok(pooled.baseline.e2el_ms.lower_bounds.includes("p99"));
  const healthy = pooled.candidate.ttft_ms;
  assert.equal(healthy.count, 200);
  assert.deepEqual(healthy.lower_bounds, []);
  assert.ok((healthy.p99 as number) < 110);
});
