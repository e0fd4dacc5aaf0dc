import assert from "node:assert/strict";
import { test } from "node:test";
import { compareMetric, type MetricSpec, type PairValues } from "../../src/compare/decide.ts";
import { pairOrder } from "../../src/compare/plan.ts";
import { Rng } from "../../src/workload/rng.ts";

const TTFT: MetricSpec = {
  id: "ttft",
  label: "p95 TTFT",
  unit: "ms",
  higherIsWorse: true,
  tolerance: 0.1,
};
const GOODPUT: MetricSpec = {
  id: "goodput",
  label: "goodput",
  unit: "req/s",
  higherIsWorse: false,
  tolerance: 0.05,
};

const pairs = (ratios: number[], base = 100): PairValues[] =>
  ratios.map((r) => ({ baseline: base, candidate: base * r }));

test("significant-and-material: regressed, inconclusive, pass and improved", () => {
  const regressed = compareMetric(
    TTFT,
    pairs([1.2, 1.22, 1.18]),
    "significant-and-material",
    0.95,
    0.1,
  );
  assert.equal(regressed.verdict, "regressed");
  assert.ok(Math.abs(regressed.change - 0.2) < 0.01);
  assert.ok(regressed.change_lower > 0 && regressed.change_upper > regressed.change);
  assert.match(regressed.reason, /\+20\.0 % is beyond \+10\.0 % and significantly worse/);

  // Beyond the tolerance on average but one pair disagrees: within the noise.
  const noisy = compareMetric(TTFT, pairs([1.5, 0.9, 1.1]), "significant-and-material", 0.95, 0.1);
  assert.equal(noisy.verdict, "inconclusive");
  assert.ok(noisy.change > 0.1 && noisy.change_lower < 0);

  const small = compareMetric(
    TTFT,
    pairs([1.05, 1.06, 1.04]),
    "significant-and-material",
    0.95,
    0.1,
  );
  assert.equal(small.verdict, "pass", "significant but not material");

  const better = compareMetric(
    TTFT,
    pairs([0.7, 0.72, 0.69]),
    "significant-and-material",
    0.95,
    0.1,
  );
  assert.equal(better.verdict, "improved");
});

test("confirm: the whole interval decides", () => {
  assert.equal(
    compareMetric(TTFT, pairs([1.3, 1.31, 1.29]), "confirm", 0.95, 0.1).verdict,
    "regressed",
  );
  assert.equal(compareMetric(TTFT, pairs([1.01, 1.0, 0.99]), "confirm", 0.95, 0.1).verdict, "pass");
  // Clearly worse than 0 and beyond 10 % on average, but the interval reaches below 10 %.
  const straddle = compareMetric(TTFT, pairs([1.12, 1.2, 1.16]), "confirm", 0.95, 0.1);
  assert.equal(straddle.verdict, "inconclusive");
  assert.equal(
    compareMetric(TTFT, pairs([1.12, 1.2, 1.16]), "significant-and-material", 0.95, 0.1).verdict,
    "regressed",
  );
});

test("goodput: a drop is positive d, and the change reads as a drop", () => {
  const drop = compareMetric(
    GOODPUT,
    pairs([0.8, 0.82, 0.79], 10),
    "significant-and-material",
    0.95,
    0.1,
  );
  assert.equal(drop.verdict, "regressed");
  assert.ok(drop.change < -0.15 && drop.change > -0.22);
  assert.ok(drop.change_lower < drop.change && drop.change < drop.change_upper);
  assert.ok(drop.d_mean > 0);
  assert.equal(
    compareMetric(GOODPUT, pairs([0.97, 0.98, 0.96], 10), "significant-and-material", 0.95, 0.1)
      .verdict,
    "pass",
  );
  assert.equal(
    compareMetric(GOODPUT, pairs([1.3, 1.31, 1.32], 10), "significant-and-material", 0.95, 0.1)
      .verdict,
    "improved",
  );
});

test("one pair cannot fail a gate; noise, outliers and the detectable change are reported", () => {
  const one = compareMetric(TTFT, pairs([1.5]), "significant-and-material", 0.95, 0.1);
  assert.equal(one.verdict, "inconclusive");
  assert.equal(one.detectable_change, null);
  const values: PairValues[] = [
    { baseline: 100, candidate: 101 },
    { baseline: 130, candidate: 131 },
    { baseline: 100, candidate: 99 },
    { baseline: 101, candidate: 100 },
    { baseline: 100, candidate: 180 },
  ];
  const c = compareMetric(TTFT, values, "significant-and-material", 0.95, 0.1);
  assert.equal(c.noisy, true, "baseline CV over 10 %");
  assert.deepEqual(
    c.pairs.map((p) => p.outlier),
    [false, false, false, false, true],
  );
  const tight = compareMetric(
    TTFT,
    pairs([1.0, 1.01, 0.99, 1.0, 1.005]),
    "significant-and-material",
    0.95,
    0.1,
  );
  assert.ok(
    Math.abs((tight.detectable_change as number) - 0.1) < 1e-9,
    "noise below the tolerance: the tolerance",
  );
  const loose = compareMetric(TTFT, pairs([0.8, 1.2, 1.0]), "confirm", 0.95, 0.1);
  assert.ok((loose.detectable_change as number) > 0.4);
});

test("orders: abba alternates, abab repeats, random is seeded", () => {
  assert.deepEqual(
    [0, 1, 2, 3].map((i) => pairOrder("abba", i, 1)[0]),
    ["baseline", "candidate", "baseline", "candidate"],
  );
  assert.deepEqual(
    [0, 1, 2].map((i) => pairOrder("abab", i, 1)[0]),
    ["baseline", "baseline", "baseline"],
  );
  const r = Array.from({ length: 40 }, (_, i) => pairOrder("random", i, 5)[0]);
  assert.deepEqual(
    r,
    Array.from({ length: 40 }, (_, i) => pairOrder("random", i, 5)[0]),
  );
  assert.ok(r.includes("baseline") && r.includes("candidate"));
});

/** Per-trial p95s: log-normal run noise plus a per-pair drift shared by both arms. */
function simulate(rng: Rng, pairsN: number, noise: number, trueChange: number): PairValues[] {
  return Array.from({ length: pairsN }, () => {
    const drift = Math.exp(0.05 * rng.normal());
    return {
      baseline: 100 * drift * Math.exp(noise * rng.normal()),
      candidate: 100 * (1 + trueChange) * drift * Math.exp(noise * rng.normal()),
    };
  });
}

test("calibration: few false regressions at no change, power at a 30 % regression", () => {
  const rng = new Rng(2026);
  const gates = 4000;
  for (const noise of [0.03, 0.08]) {
    let falseRegressed = 0;
    for (let g = 0; g < gates; g++) {
      const c = compareMetric(
        TTFT,
        simulate(rng, 3, noise, 0),
        "significant-and-material",
        0.95,
        0.1,
      );
      if (c.verdict === "regressed") falseRegressed++;
    }
    assert.ok(
      falseRegressed / gates <= 0.03,
      `noise ${noise}: ${falseRegressed} of ${gates} false regressions`,
    );
  }
  let caught = 0;
  for (let g = 0; g < gates; g++) {
    if (
      compareMetric(TTFT, simulate(rng, 3, 0.03, 0.3), "significant-and-material", 0.95, 0.1)
        .verdict === "regressed"
    )
      caught++;
  }
  assert.ok(
    caught / gates >= 0.8,
    `${caught} of ${gates} 30 % regressions caught at 3 % noise, 3 pairs`,
  );
});

test("the arms' values are the ones the change is computed from: candidate ÷ baseline − 1", () => {
  // Baselines that drift between pairs: medians of each arm would not divide to the change.
  const values: PairValues[] = [
    { baseline: 20, candidate: 30 },
    { baseline: 21, candidate: 22 },
    { baseline: 80, candidate: 85 },
  ];
  for (const spec of [TTFT, GOODPUT]) {
    const c = compareMetric(spec, values, "significant-and-material", 0.95, 0.1);
    assert.ok(
      Math.abs(c.candidate / c.baseline - 1 - c.change) < 1e-12,
      `${spec.id}: ${c.baseline} → ${c.candidate} is not ${c.change}`,
    );
    assert.ok(Math.abs(c.baseline - Math.cbrt(20 * 21 * 80)) < 1e-9, "geometric mean");
  }
});
