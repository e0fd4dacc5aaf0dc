import assert from "node:assert/strict";
import { test } from "node:test";
import { classOf, materiallyLonger, type ReplayRecord } from "../../src/stress/replay.ts";
import { compareTruncation } from "../../src/stress/truncation.ts";

const rec = (load: number, idle: number | null, idle2: number | null = idle): ReplayRecord => ({
  load_tokens: load,
  idle_tokens: idle,
  idle2_tokens: idle2,
  failed: idle === null ? "http_5xx" : null,
});
const RULE = { maxIncrease: 0.05, failAlpha: 0.05 / 6 };

test("materially longer: by 10 % and by 3 tokens", () => {
  assert.equal(materiallyLonger(110, 100), true);
  assert.equal(materiallyLonger(109, 100), false);
  assert.equal(materiallyLonger(12, 10), false, "20 % but 2 tokens");
  assert.equal(classOf(rec(50, 100)), "truncated_under_load");
  assert.equal(classOf(rec(100, 100, 130)), "differs_at_idle");
  assert.equal(classOf(rec(100, 100)), "same");
  assert.equal(classOf(rec(100, null)), "replay_failed");
});

test("a candidate cut short far more often than the baseline fails; the floor is half the idle differences", () => {
  const same = Array.from({ length: 40 }, () => rec(100, 100));
  const cut = Array.from({ length: 40 }, (_, i) => (i < 16 ? rec(50, 100) : rec(100, 100)));
  const r = compareTruncation({ baseline: same, candidate: cut }, RULE);
  assert.equal(r.verdict, "fail", r.reason);
  assert.equal(r.arms.candidate.rate, 0.4);
  assert.equal(r.records.candidate[0]?.class, "truncated_under_load");
  // Idle answers that differ in 8 of 40: a floor of 10 %, taken off a 15 % cut rate.
  const noisy = Array.from({ length: 40 }, (_, i) =>
    i < 6 ? rec(50, 100) : i < 14 ? rec(100, 100, 130) : rec(100, 100),
  );
  const n = compareTruncation({ baseline: same, candidate: noisy }, RULE);
  assert.equal(n.arms.candidate.floor, 0.1);
  assert.ok(Math.abs(n.arms.candidate.net - 0.05) < 1e-12);
  assert.equal(n.verdict, "pass", n.reason);
  assert.equal(compareTruncation({ baseline: [], candidate: cut }, RULE).verdict, "inconclusive");
});
