// Plans that cannot run are refused before the first request, naming the
// arithmetic and the fix (issue 50, item 2): trials whose window cannot hold
// min-ok-requests, a surge or a scaling step shorter than the buckets its
// reading needs, and a capacity gate whose rate leaves the pairs too few.

import assert from "node:assert/strict";
import { test } from "node:test";
import { windowTooSmall } from "../../src/compare/reach.ts";
import { parseConfig } from "../../src/config/config.ts";

const ARMS = {
  model: "m",
  "baseline-url": "http://127.0.0.1:1/v1",
  "candidate-url": "http://127.0.0.1:2/v1",
};

const refused = (settings: Record<string, string>, pattern: RegExp) =>
  assert.throws(
    () => parseConfig({ ...ARMS, ...settings }),
    (e: Error) => e.name === "InputError" && pattern.test(e.message),
  );

test("trials whose window schedules fewer than min-ok-requests are refused, with the count and the fix", () => {
  refused(
    { rate: "2", duration: "4s", arrival: "constant" },
    /^the plan cannot run: every trial's 4 s window schedules 8 requests, fewer than min-ok-requests \(10\): every trial would be invalid — raise the rate or duration \(to schedule at least 10\), or lower min-ok-requests$/,
  );
  // The seeded Poisson schedule every trial replays: its count, whatever it is, is the one said.
  refused(
    { rate: "1", duration: "3s" },
    /window schedules \d requests, fewer than min-ok-requests/,
  );
  // Enough: 2 req/s × 5 s = 10; or fewer asked for.
  assert.ok(parseConfig({ ...ARMS, rate: "2", duration: "5s", arrival: "constant" }));
  assert.ok(parseConfig({ ...ARMS, rate: "2", duration: "4s", "min-ok-requests": "8" }).gate);
  // A burst: 4 every 2 s over 3 s is two bursts, 8 requests.
  refused(
    { arrival: "burst", "burst-size": "4", "burst-interval": "2s", duration: "3s" },
    /schedules 8 requests, fewer than min-ok-requests \(10\)/,
  );
});

test("the capacity gate's pairs are checked at the rate its sweep chose, not before", () => {
  const capacity = { capacity: "true", slo: "ttft:800", duration: "2s" };
  assert.ok(parseConfig({ ...ARMS, ...capacity }).gate.capacity, "its rate is not known yet");
  const spec = parseConfig({ ...ARMS, rate: "100", duration: "2s", arrival: "constant" }).gate
    .baseline.workload;
  assert.equal(windowTooSmall(spec, 200), null);
  const slow = { ...spec, arrival: { kind: "constant" as const, ratePerS: 3 } };
  assert.match(windowTooSmall(slow, 10) ?? "", /window schedules 6 requests/);
});

test("a surge whose after-window cannot show a recovery, or whose before-window has no steady second, is refused", () => {
  const steady = { rate: "5", duration: "10s" };
  // A 1 h surge: its trials are read in 31 s buckets; a recovery needs 3 of them.
  refused(
    { ...steady, surge: "1.5x 1h", "surge-after": "60s" },
    /surge-after \(60 s\) holds fewer whole buckets than a recovery needs: the surge's 3682 s trials are read in 31 s buckets and a recovery needs 3 in a row/,
  );
  refused(
    { ...steady, surge: "1.5x 1h", "surge-after": "2m", "surge-before": "5s" },
    /surge-before \(5 s\) holds no whole 32 s bucket/,
  );
  assert.ok(parseConfig({ ...ARMS, ...steady, surge: "1.5x 30s" }).gate.surge, "the defaults run");
  // Long enough, but misaligned: warm-up 10, before 60, a 61 s surge, after 6 — 2 s buckets from
  // the trial's start leave whole only those at 132 and 134 after the surge's end at 131.
  refused(
    { ...steady, warmup: "10s", surge: "1.5x 61s", "surge-before": "60s", "surge-after": "6s" },
    /surge-after \(6 s\) holds fewer whole buckets than a recovery needs: the surge's 137 s trials are read in 2 s buckets/,
  );
});

test("a scaling step held for less than two buckets is refused", () => {
  const steady = { rate: "5", duration: "10s" };
  // 1 h of hover: the trials are read in 32 s buckets; a 40 s hold is not two of them.
  refused(
    { ...steady, scaling: "2x 40s", "scaling-hover": "1x 1h" },
    /the scaling step's hold \(40 s\) is shorter than two buckets: the scaling trials \(3732 s\) are read in 32 s buckets/,
  );
  assert.ok(parseConfig({ ...ARMS, ...steady, scaling: "2x 5m" }).gate.scaling);
});
