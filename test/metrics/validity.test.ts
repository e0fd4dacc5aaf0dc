// The self-checks judge what the client's lateness did to the load and to the
// gated numbers, not a count of individually late sends.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  evaluateValidity,
  type SelfCheckInputs,
  type SelfCheckLimits,
  worstDrift,
} from "../../src/metrics/validity.ts";
import { TEST_LIMITS } from "../helpers/reports.ts";

const LIMITS: SelfCheckLimits = { ...TEST_LIMITS, maxSkewEffect: 0.1 };

const onTime = { scheduled: 100, onTime: 100, censored: false, resolutionMs: 1 };

/** 90 sends at 15 req/s over 6 s, `late` of them 7 ms late; the windows as given. */
function inputs(late: number, windows: Map<number, { scheduled: number; sent: number }>) {
  const x: SelfCheckInputs = {
    sendSkewP99Ms: late > 0 ? 7 : 0.1,
    ttft: onTime,
    e2el: onTime,
    lateSends: late,
    lateSendMs: 6.7,
    offeredDrift: worstDrift(windows, 1000),
    scheduled: 90,
    unsent: 0,
    openLimited: 0,
    windowMs: 6000,
    readings: {
      eventLoopDelayMs: { p50: 1, p99: 2, max: 8 },
      gc: { count: 0, totalMs: 0 },
      cpu: { userMs: 100, systemMs: 10, wallMs: 6000, shareOfCore: 0.1 },
    },
    slotWaits: 0,
    slotWaitP99Ms: 0,
    maxConcurrency: undefined,
    hardStopped: false,
  };
  return x;
}

const steady = new Map(Array.from({ length: 6 }, (_, k) => [k, { scheduled: 15, sent: 15 }]));

test("finding 11: five sends 7 ms late do not change a 15 req/s load — the trial stands", () => {
  // The old rule (max-late-sends 1 % of 90: one late send) threw this trial away.
  const v = evaluateValidity(inputs(5, steady), LIMITS);
  assert.deepEqual(v.reasons, []);
  assert.equal(v.valid, true);
  // The count rule is still there for who asks for it.
  const strict = evaluateValidity(inputs(5, steady), { ...LIMITS, maxLateSends: 0.01 });
  assert.match(strict.reasons[0] ?? "", /5 of 90 sends were more than 6\.7 ms late/);
});

test("a window whose sent requests stray from the scheduled ones beyond max-offered-drift invalidates", () => {
  const stalled = new Map(steady);
  stalled.set(3, { scheduled: 15, sent: 9 });
  stalled.set(4, { scheduled: 15, sent: 21 });
  const v = evaluateValidity(inputs(0, stalled), LIMITS);
  assert.equal(v.valid, false);
  assert.match(
    v.reasons[0] ?? "",
    /the offered load changed: 9 requests went out in the 1\.0 s window at \+3\.0 s where 15 were scheduled \(−40\.0 %; limit max-offered-drift 10\.0 %\)/,
  );
  assert.equal(v.lateness_only, false, "a changed load is re-run whatever the verdict");
});

test("lateness that moved the gated percentile beyond max-skew-effect is the only fault: the gate may keep it", () => {
  const x = { ...inputs(0, steady), ttft: { ...onTime, scheduled: 115 } };
  const v = evaluateValidity(x, LIMITS);
  assert.equal(v.valid, false);
  assert.match(v.reasons[0] ?? "", /late sends moved p95 TTFT by \+15\.0 %/);
  assert.equal(v.lateness_only, true);
});

test("the unsent reason names the open limit, not the client's CPU, when the limit held them", () => {
  const busy = {
    ...inputs(0, steady).readings,
    cpu: { userMs: 5000, systemMs: 500, wallMs: 6000, shareOfCore: 0.92 },
  };
  const x = { ...inputs(0, steady), unsent: 5, openLimited: 5, readings: busy };
  const limited = evaluateValidity(x, LIMITS);
  assert.equal(limited.valid, false);
  assert.match(
    limited.reasons.join("\n"),
    /5 requests were never sent in time \(limit max-unsent 0\): 5 of them were due while the client held its limit of open requests \(10,000 requests or 256 MiB of request bodies in one process, shared by its worker threads\): the server answered slower than the load arrived/,
  );
  const saturated = evaluateValidity({ ...x, openLimited: 0 }, LIMITS);
  assert.match(
    saturated.reasons.join("\n"),
    /never sent in time .*: the load generator was saturated/,
  );
});

test("a window of a few milliseconds says nothing about the client's CPU: every request refused at once is not the client's bottleneck", () => {
  const busy = (wallMs: number) => {
    const x = inputs(0, steady);
    return {
      ...x,
      readings: {
        ...x.readings,
        cpu: { userMs: 40, systemMs: 5, wallMs, shareOfCore: 45 / wallMs },
      },
    };
  };
  // 45 ms of CPU over a 35 ms window (the trial's start-up): 129 % of a core, not a finding.
  assert.deepEqual(evaluateValidity(busy(35), LIMITS).reasons, []);
  // Over a second it is one.
  const long = {
    ...busy(1000),
    readings: {
      ...busy(1000).readings,
      cpu: { userMs: 990, systemMs: 10, wallMs: 1000, shareOfCore: 1 },
    },
  };
  assert.match(evaluateValidity(long, LIMITS).reasons.join(), /the client used 100\.0 % of a core/);
});
