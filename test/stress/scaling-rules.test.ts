// The scaling scenario read from a timeline and decided, without a server:
// the reaction, the scale-up's end, a new replica's first answer, the turns
// while hovering and the streams cut; the paired rules both ways, the noise
// floor that keeps two lucky A/A pairs from deciding, what an open rule says
// would decide it, and the budgets.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { TimelineBucket, TrialTimeline } from "../../src/metrics/timeline.ts";
import { compareScaling, type ScalingRule } from "../../src/stress/scaling-compare.ts";
import {
  overloadEndS,
  readScaling,
  type ScalingReading,
  sloOver,
  turnsOf,
} from "../../src/stress/scaling-read.ts";

const SPAN = { steadyFromS: 0, stepS: 5, downS: 15, hoverS: 20, endS: 40 };

/** A 1-second timeline from each second's replica count; 10 requests due a second, all good but `unmet` in the step's first seconds. */
function timeline(counts: number[], unmetFirst = 0, cutAfterDown = 0): TrialTimeline {
  const buckets: TimelineBucket[] = counts.map((replicas, t) => ({
    t_s: t,
    offered: 10,
    completed: 10,
    failed: t === SPAN.downS + 1 && cutAfterDown > 0 ? { truncated: cutAfterDown } : {},
    good: t >= SPAN.stepS && t < SPAN.stepS + unmetFirst ? 5 : 10,
    ttft_p50_ms: 10,
    ttft_p95_ms: 20,
    itl_p95_ms: 5,
    replicas,
  }));
  return {
    bucket_s: 1,
    buckets,
    first_served: [
      { replica: "r0", t_s: 0.1, ttft_ms: 9 },
      { replica: "r1", t_s: 8.5, ttft_ms: 900 },
    ],
  };
}

/** 1 replica until `upAt` s after the step, 3 from then to the step down, 2 after, flipping in the hover every `flipEvery` s (0: never). */
function counts(upAt: number, flipEvery = 0): number[] {
  return Array.from({ length: 40 }, (_, t) => {
    if (t < SPAN.stepS + upAt) return 1;
    if (t < SPAN.downS) return 3;
    if (t < SPAN.hoverS || flipEvery === 0) return 2;
    return Math.floor((t - SPAN.hoverS) / flipEvery) % 2 === 0 ? 2 : 1;
  });
}

const RULE: ScalingRule = {
  maxReactionIncrease: 0.5,
  maxSloDrop: 0.05,
  maxFlapIncrease: 2,
  budgets: {},
  passAlpha: 0.05,
  failAlpha: 0.01,
};

test("turns of a count: a step up is none, up and down one, every change of direction one more", () => {
  assert.equal(turnsOf([1, 2, 3, 3]), 0);
  assert.equal(turnsOf([1, 2, 1]), 1);
  assert.equal(turnsOf([2, 1, 1, 2, 1, 2]), 3);
  assert.equal(turnsOf([]), 0);
});

test("a reading: the first added replica, the scale-up's end, a new replica's first answer, the hover's turns, what scaling in cut", () => {
  const r = readScaling(timeline(counts(3, 4), 2, 3), SPAN);
  assert.equal(r.start_replicas, 1);
  assert.equal(r.peak_replicas, 3);
  assert.equal(r.reaction_s, 3);
  assert.equal(r.reaction_censored, false);
  assert.equal(r.scaled_s, 3);
  assert.equal(r.served_s, 3.5);
  assert.equal(r.served_ttft_ms, 900);
  // Due from the step until the scale-up's end (3 s + its bucket): 40 requests, 10 of them not good.
  assert.equal(r.scheduled, 40);
  assert.equal(r.unmet, 10);
  assert.equal(r.flaps, 3);
  assert.equal(r.flaps_per_10min, 90);
  assert.equal(r.cut, 3);
  assert.equal(r.at_risk, 250);
  assert.equal(r.scale_ins, 3);
});

test("no replica added before the step down: a censored reaction, the hold's length", () => {
  const r = readScaling(timeline(Array<number>(40).fill(1)), SPAN);
  assert.equal(r.reaction_s, 10);
  assert.equal(r.reaction_censored, true);
  assert.equal(r.scaled_s, null);
});

const pairs = (b: ScalingReading, c: ScalingReading, n: number) =>
  Array.from({ length: n }, (_, pair) => ({ pair, baseline: b, candidate: c }));
const read = (upAt: number, flipEvery = 0, unmet = 0, cut = 0) =>
  readScaling(timeline(counts(upAt, flipEvery), unmet, cut), SPAN);
const check = (c: ReturnType<typeof compareScaling>, id: string) =>
  c.checks.find((x) => x.id === id);

test("a scaler twice as slow fails on reaction; the same one passes", () => {
  const slow = compareScaling(pairs(read(2), read(5), 3), RULE);
  assert.equal(check(slow, "reaction")?.verdict, "fail", check(slow, "reaction")?.reason);
  const same = compareScaling(pairs(read(2), read(2), 3), RULE);
  assert.equal(check(same, "reaction")?.verdict, "pass", check(same, "reaction")?.reason);
  assert.equal(same.verdict, "pass");
});

test("a flapping candidate fails on flaps; two A/A pairs that flapped alike are no certainty either way", () => {
  const flappy = compareScaling(pairs(read(2), read(2, 2), 3), RULE);
  assert.equal(check(flappy, "flaps")?.verdict, "fail", check(flappy, "flaps")?.reason);
  // Both arms flapped 4 times in each pair: the pairs' spread is 0, the counts' noise is not.
  const alike = compareScaling(pairs(read(2, 4), read(2, 4), 2), RULE);
  const flaps = check(alike, "flaps");
  assert.equal(flaps?.verdict, "inconclusive", flaps?.reason);
  assert.match(flaps?.reason ?? "", /pairs would decide|more pairs than are practical/);
});

test("the SLO while scaling: points of the load not good until scaled up", () => {
  const worse = compareScaling(pairs(read(2), read(2, 0, 3), 3), RULE);
  assert.equal(check(worse, "slo")?.verdict, "fail", check(worse, "slo")?.reason);
});

test("streams cut by scaling in: Fisher on the pooled counts; none cut is a pass", () => {
  const cutting = compareScaling(pairs(read(2), read(2, 0, 0, 5), 3), RULE);
  assert.equal(check(cutting, "cut")?.verdict, "fail", check(cutting, "cut")?.reason);
  assert.match(
    check(cutting, "cut")?.reason ?? "",
    /the candidate 15 of 750, the baseline 0 of 750/,
  );
  const one = compareScaling(pairs(read(2), read(2, 0, 0, 1), 1), RULE);
  assert.equal(check(one, "cut")?.verdict, "pass");
});

test("without a replica count the rules that need it are skipped and say why, a budget set stays open; the others still decide", () => {
  const none: ScalingReading = {
    ...read(2),
    start_replicas: null,
    peak_replicas: null,
    flaps: null,
    flaps_per_10min: null,
  };
  const c = compareScaling(pairs(none, none, 3), { ...RULE, budgets: { scaleUpS: 60 } });
  for (const id of ["reaction", "flaps", "scale_up_budget"]) {
    assert.equal(check(c, id)?.verdict, id === "scale_up_budget" ? "inconclusive" : "skipped");
    assert.match(check(c, id)?.reason ?? "", /replicas-source/);
  }
  assert.equal(check(c, "slo")?.verdict, "pass");
  assert.equal(c.verdict, "inconclusive");
  assert.equal(compareScaling(pairs(none, none, 3), RULE).verdict, "pass");
});

test("budgets on the candidate: scale-up within its limit passes, beyond it fails; any cut fails cut:0", () => {
  const fast = compareScaling(pairs(read(2), read(2), 3), {
    ...RULE,
    budgets: { scaleUpS: 10, cut: 0 },
  });
  assert.equal(
    check(fast, "scale_up_budget")?.verdict,
    "pass",
    check(fast, "scale_up_budget")?.reason,
  );
  assert.equal(check(fast, "cut_budget")?.verdict, "pass");
  const slow = compareScaling(pairs(read(2), read(8, 0, 0, 1), 3), {
    ...RULE,
    budgets: { scaleUpS: 4, cut: 0 },
  });
  assert.equal(
    check(slow, "scale_up_budget")?.verdict,
    "fail",
    check(slow, "scale_up_budget")?.reason,
  );
  assert.equal(check(slow, "cut_budget")?.verdict, "fail");
});

test("a source that failed part-way leaves the trial without a count, not one frozen at its last sample", () => {
  const r = readScaling(timeline(counts(2)), SPAN, false);
  assert.equal(r.start_replicas, null);
  assert.equal(r.reaction_s, null);
  assert.equal(r.flaps, null);
  // What the client sees alone still reads.
  assert.equal(r.at_risk, 250);
});

test("buckets wider than a second: the step inside one is read as the step's, the count at the step from the bucket wholly before it", () => {
  // 5 s buckets; the step at 12 s falls in [10, 15). One replica until 14 s, two from then.
  const span = { steadyFromS: 0, stepS: 12, downS: 40, hoverS: 45, endS: 60 };
  const buckets: TimelineBucket[] = Array.from({ length: 12 }, (_, k) => ({
    t_s: k * 5,
    offered: 10,
    completed: 10,
    failed: {},
    good: 10,
    ttft_p50_ms: 10,
    ttft_p95_ms: 20,
    itl_p95_ms: 5,
    replicas: k * 5 + 5 <= 14 ? 1 : 2,
  }));
  const r = readScaling({ bucket_s: 5, buckets }, span);
  assert.equal(r.start_replicas, 1);
  assert.equal(r.reaction_s, 0);
  assert.equal(r.reaction_censored, false);
});

test("the SLO while scaling: both arms of a pair over one window, to the later arm's scale-up end", () => {
  const fast = timeline(counts(2), 2);
  const slow = timeline(counts(6), 6);
  const b = readScaling(fast, SPAN);
  const c = readScaling(slow, SPAN);
  // Alone, each over its own window: 5 of 30 vs 30 of 70 (the slow one's window is longer).
  assert.deepEqual([b.unmet, b.scheduled, c.unmet, c.scheduled], [10, 30, 30, 70]);
  const toS = overloadEndS(SPAN, 1, [b.scaled_s, c.scaled_s]);
  assert.equal(toS, SPAN.stepS + 7);
  assert.deepEqual(sloOver(fast, SPAN.stepS, toS), { scheduled: 70, unmet: 10 });
  assert.deepEqual(sloOver(slow, SPAN.stepS, toS), { scheduled: 70, unmet: 30 });
});
