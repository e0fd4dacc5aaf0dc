// The failure rate at its limit: the counts' exact bounds, the looks' levels
// that keep the sequential pass error within α exactly where it is hardest
// (a baseline that never fails, a candidate failing at the margin), and zero
// failures passing within 1.25 × the exact minimum.

import assert from "node:assert/strict";
import { test } from "node:test";
import { countsTrial } from "../../bench/simulate.ts";
import {
  binomialCdf,
  dispersion,
  exactLower,
  exactUpper,
  increaseUpper,
  passLevels,
} from "../../src/compare/counts.ts";
import { designOf } from "../../src/compare/decide-run.ts";
import { requestsToShow } from "../../src/compare/reach.ts";
import { compareReliability } from "../../src/compare/reliability.ts";
import { Rng } from "../../src/workload/rng.ts";

const DESIGN = designOf({ trials: 4, maxTrials: 30 }, 0.95, 2);
const OPTIONS = { maxFailureIncrease: 0.005, exclude: [] };

test("Clopper–Pearson limits: no failure in n is below 1 − α^(1/n); 3 in 1,000 at 95 % is 0.774 %", () => {
  assert.ok(Math.abs(exactUpper(0, 598, 0.05) - (1 - 0.05 ** (1 / 598))) < 1e-12);
  assert.ok(Math.abs(exactUpper(3, 1000, 0.05) - 0.007735) < 2e-6);
  assert.ok(Math.abs(exactLower(8, 15_000, 0.05) - 0.0002654) < 1e-6);
  assert.equal(exactLower(0, 100, 0.05), 0);
  // The limit is where the tail equals the level.
  assert.ok(Math.abs(binomialCdf(3, 1000, exactUpper(3, 1000, 0.05)) - 0.05) < 1e-9);
  // Large counts do not underflow: 1,000 failures in 200,000 requests.
  assert.ok(Math.abs(binomialCdf(1000, 200_000, 0.005) - 0.5) < 0.01);
  // With no baseline failure the increase's bound is the candidate's own.
  const none = { failed: 0, counted: 700 };
  assert.equal(increaseUpper(none, none, 0.03), exactUpper(0, 700, 0.03));
});

test("the looks' levels keep a wrong pass within α where it is hardest: baseline never fails, candidate at the margin", () => {
  const perTrial = 90;
  const requests = DESIGN.looks.map((n) => n * perTrial);
  const levels = passLevels(
    requests,
    0.005,
    DESIGN.spent,
    requests.map(() => 0.001),
  );
  const rng = new Rng(20261205);
  const gates = 8000;
  let passed = 0;
  for (let g = 0; g < gates; g++) {
    let [failed, sent] = [0, 0];
    for (const [k, n] of requests.entries()) {
      for (; sent < n; sent++) if (rng.uniform() < 0.005) failed++;
      const upper = increaseUpper(
        { failed: 0, counted: n },
        { failed, counted: n },
        levels[k] ?? 0,
      );
      if (upper < 0.005) {
        passed++;
        break;
      }
    }
  }
  // The exact error is ≤ 5 %; 8,000 gates measure it to ±0.5 % (two SE).
  assert.ok(passed / gates <= 0.055, `wrong passes ${passed / gates}`);
  assert.ok(passed / gates >= 0.03, `the α spent: ${passed / gates}`);
});

test("zero failures on both arms pass within 1.25 × the exact minimum (598 requests at +0.5 points, 95 %)", () => {
  const exact = requestsToShow(0.005, 0.05);
  assert.equal(exact, 598);
  for (const perTrial of [90, 60, 150]) {
    const trials = Array.from({ length: 30 }, (_, p) => [
      countsTrial(p, "baseline", perTrial, 0),
      countsTrial(p, "candidate", perTrial, 0),
    ]).flat();
    const r = compareReliability(OPTIONS, trials, DESIGN);
    assert.equal(r.verdict, "pass", `${perTrial} a trial: ${r.reason}`);
    const sent = r.decided_at * perTrial;
    // The first look that has sent 1.25 × the minimum (or the design's first look).
    const firstEnough = DESIGN.looks.find((n) => n * perTrial >= 1.25 * exact) ?? 30;
    assert.ok(r.decided_at <= firstEnough, `${perTrial} a trial: decided at ${sent} requests`);
  }
});

test("a failure rate no look can show in the best case is given up (futile), saying what would decide it", () => {
  const trials = [0, 1, 2, 3].flatMap((p) => [
    countsTrial(p, "baseline", 12, 0),
    countsTrial(p, "candidate", 12, 0),
  ]);
  const r = compareReliability(OPTIONS, trials, DESIGN);
  assert.equal(r.status, "futile");
  assert.equal(r.verdict, "inconclusive");
  assert.match(r.reason, /needs ≥ 598 requests per arm without a failure/);
  // The same counts with pairs enough to reach it stay open.
  const open = compareReliability(OPTIONS, trials, designOf({ trials: 4, maxTrials: 60 }, 0.95, 2));
  assert.equal(open.status, "open");
});

test("many failures: the limits are normal ones, computed at once, never a stack overflow", () => {
  // 200,000 failures in a million: the exact sum would spread 200,001 terms into Math.max.
  const upper = exactUpper(200_000, 1_000_000, 0.05);
  assert.ok(Math.abs(upper - (0.2 + 1.6449 * Math.sqrt((0.2 * 0.8) / 1e6))) < 1e-5, `${upper}`);
  assert.ok(exactLower(200_000, 1_000_000, 0.05) < 0.2);
  assert.ok(binomialCdf(150_000, 1_000_000, 0.15) > 0.49);
});

test("failures that cluster between pairs count for fewer requests (Rao–Scott); independent ones, or none, do not", () => {
  const even = Array.from({ length: 8 }, () => ({ failed: 2, counted: 100 }));
  assert.equal(dispersion([even, even]), 1, "no spread beyond the binomial's");
  assert.equal(
    dispersion([even.map((c) => ({ ...c, failed: 0 }))]),
    1,
    "no failure, no information",
  );
  // All of an arm's failures in one pair of eight.
  const clustered = [
    { failed: 16, counted: 100 },
    ...even.slice(1).map((c) => ({ ...c, failed: 0 })),
  ];
  const phi = dispersion([clustered]);
  assert.ok(phi > 5, `dispersion ${phi}`);
  // The failure rate's pass bound widens with it: the same counts, clustered, do not pass.
  const trials = (perPair: readonly number[]) =>
    perPair.flatMap((failed, p) => [
      countsTrial(p, "baseline", 1000, 1),
      countsTrial(p, "candidate", 1000, failed),
    ]);
  const spread = compareReliability(OPTIONS, trials([1, 1, 1, 1, 1, 1, 1, 1]), DESIGN);
  const bunched = compareReliability(OPTIONS, trials([8, 0, 0, 0, 0, 0, 0, 0]), DESIGN);
  assert.equal(spread.verdict, "pass");
  assert.ok((bunched.increase_upper ?? 0) > (spread.increase_upper ?? 0));
});
