import assert from "node:assert/strict";
import { test } from "node:test";
import type { Outcome } from "../../src/common/outcomes.ts";
import type { TimelineBucket, TrialTimeline } from "../../src/metrics/timeline.ts";
import { readSurge, type SurgeReading, type SurgeSpan } from "../../src/stress/recovery.ts";
import { compareSurge, type SurgeRule } from "../../src/stress/surge-compare.ts";

// A trial of 1 s warm-up, 10 s steady, a 5 s surge, 20 s after: seconds 0–35.
const SPAN: SurgeSpan = { steadyFromS: 1, startS: 11, endS: 16, scheduleEndS: 36 };

/** A timeline whose p95 TTFT per second is `ttft(t)`, failures `failed(t)`, queue `waiting(t)`. */
function timeline(
  ttft: (t: number) => number | null,
  failed: (t: number) => Partial<Record<Outcome, number>> = () => ({}),
  waiting?: (t: number) => number,
): TrialTimeline {
  const buckets: TimelineBucket[] = Array.from({ length: 37 }, (_, t) => ({
    t_s: t,
    offered: 10,
    completed: 10,
    failed: failed(t),
    ttft_p50_ms: null,
    ttft_p95_ms: ttft(t),
    itl_p95_ms: null,
    ...(waiting ? { waiting: waiting(t) } : {}),
  }));
  return { bucket_s: 1, buckets };
}

/** Steady at 100 ms (two seconds at 105), the surge at 900 ms, recovering `lagS` after it ends. */
const recovering = (lagS: number) => (t: number) =>
  t < 11 ? (t === 5 || t === 6 ? 105 : 100) : t < 16 + lagS ? 900 : 104;

test("recovery: from the surge's end to the first of three good seconds in a row", () => {
  const r = readSurge(timeline(recovering(4)), SPAN, undefined);
  assert.equal(r.steady_ttft_p95_ms, 105, "the steady seconds' 90th percentile");
  assert.equal(r.target_ttft_ms, 105 * 1.1);
  assert.equal(r.recovery_s, 4);
  assert.equal(r.recovery_censored, false);
  // One good second inside the slow stretch is not a recovery.
  const blip = readSurge(
    timeline((t) => (t === 18 ? 100 : recovering(6)(t))),
    SPAN,
    undefined,
  );
  assert.equal(blip.recovery_s, 6);
});

test("recovery: a second with failures (but timeouts) is not recovered; never recovered is censored at the window", () => {
  const shedding = readSurge(
    timeline(recovering(0), (t) =>
      t >= 11 && t < 25 ? { overloaded: 3 } : t === 30 ? { censored: 2 } : {},
    ),
    SPAN,
    undefined,
  );
  assert.equal(shedding.recovery_s, 9, "from 25 s: the timeout at 30 s does not count");
  assert.equal(shedding.shed, 42);
  assert.equal(shedding.timed_out, 2);
  assert.equal(shedding.failed, 44);
  assert.equal(shedding.scheduled, 26 * 10, "requests due from the surge's start on");
  const never = readSurge(timeline(recovering(100)), SPAN, undefined);
  assert.equal(never.recovery_s, 20);
  assert.equal(never.recovery_censored, true);
});

test("recovery: an SLO the steady load met is the target; the queue's peak from the surge on", () => {
  const r = readSurge(
    timeline(recovering(3), undefined, (t) => (t >= 11 && t < 19 ? 40 + t : 0)),
    SPAN,
    1000,
  );
  assert.equal(r.target_from, "slo");
  assert.equal(r.recovery_s, 0, "900 ms is within a 1000 ms SLO");
  assert.equal(r.peak_waiting, 58);
  const above = readSurge(timeline(recovering(3)), SPAN, 50);
  assert.equal(above.target_from, "steady", "an SLO the steady load missed is no target");
});

const RULE: SurgeRule = {
  maxRecoveryIncrease: 0.25,
  maxFailureIncrease: 0.05,
  passAlpha: 0.05,
  failAlpha: 0.05 / 6,
};

const reading = (recovery: number, censored = false, failed = 0): SurgeReading => ({
  recovery_s: recovery,
  recovery_censored: censored,
  target_ttft_ms: 110,
  target_from: "steady",
  steady_ttft_p95_ms: 100,
  scheduled: 100,
  failed,
  failed_by_class: failed > 0 ? { overloaded: failed } : {},
  shed: failed,
  timed_out: 0,
  peak_waiting: null,
  resolution_s: 1,
});

test("the surge's rules: a slower recovery fails, the same passes, censoring blocks the side it hides", () => {
  const pairs = (b: number[], c: number[], cCensored = false, failedC = 0) =>
    b.map((x, i) => ({
      pair: i,
      baseline: reading(x),
      candidate: reading(c[i] ?? 0, cCensored, failedC),
    }));
  const slower = compareSurge(pairs([2, 3, 2, 3], [9, 11, 10, 12]), RULE);
  assert.equal(slower.checks[0]?.verdict, "fail", slower.checks[0]?.reason);
  assert.equal(slower.verdict, "fail");
  const same = compareSurge(pairs([0, 0, 0, 0], [0, 0, 0, 0]), RULE);
  assert.equal(same.verdict, "pass", same.checks.map((c) => c.reason).join("; "));
  // The candidate never recovered: a lower bound, so no pass however close.
  const censored = compareSurge(pairs([20, 20, 20, 20], [20, 20, 20, 20], true), RULE);
  assert.equal(censored.checks[0]?.verdict, "inconclusive");
  assert.match(censored.checks[0]?.reason ?? "", /did not recover within the window/);
  const shedding = compareSurge(pairs([0, 0, 0, 0], [0, 0, 0, 0], false, 30), RULE);
  assert.equal(shedding.checks[1]?.verdict, "fail", shedding.checks[1]?.reason);
  assert.equal(
    compareSurge(pairs([1], [1]), RULE).verdict,
    "inconclusive",
    "one pair: no interval",
  );
});
