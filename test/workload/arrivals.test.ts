import assert from "node:assert/strict";
import { test } from "node:test";
import { type ArrivalSpec, arrivalOffsetsMs } from "../../src/workload/arrivals.ts";
import { Rng } from "../../src/workload/rng.ts";

function gapStats(offsets: number[]): { ratePerS: number; cv: number } {
  const gaps = offsets.slice(1).map((t, i) => t - (offsets[i] as number));
  const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
  const sd = Math.sqrt(gaps.reduce((a, b) => a + (b - mean) ** 2, 0) / (gaps.length - 1));
  return { ratePerS: 1000 / mean, cv: sd / mean };
}

const HOUR_MS = 3_600_000;

test("poisson arrivals have the asked rate and gap CV ≈ 1", () => {
  const offsets = arrivalOffsetsMs({ kind: "poisson", ratePerS: 10 }, 0, HOUR_MS, new Rng(1));
  // Exactly rate × span arrivals; the gap CV's sd is about 0.007.
  assert.equal(offsets.length, 36_000);
  const { ratePerS, cv } = gapStats(offsets);
  assert.ok(Math.abs(ratePerS - 10) < 0.3, `rate ${ratePerS}`);
  assert.ok(Math.abs(cv - 1) < 0.04, `cv ${cv}`);
});

test("gamma arrivals have CV ≈ 1/√burstiness at the same mean rate", () => {
  for (const burstiness of [0.25, 1, 4]) {
    const spec: ArrivalSpec = { kind: "gamma", ratePerS: 10, burstiness };
    const { ratePerS, cv } = gapStats(arrivalOffsetsMs(spec, 0, HOUR_MS, new Rng(2)));
    const expectedCv = 1 / Math.sqrt(burstiness);
    assert.ok(Math.abs(ratePerS / 10 - 1) < 0.05, `burstiness ${burstiness}: rate ${ratePerS}`);
    assert.ok(
      Math.abs(cv / expectedCv - 1) < 0.06,
      `burstiness ${burstiness}: cv ${cv}, expected ${expectedCv}`,
    );
  }
});

test("constant, burst and all-at-once are exact", () => {
  assert.deepEqual(
    arrivalOffsetsMs({ kind: "constant", ratePerS: 4 }, 0, 1000, new Rng(1)),
    [0, 250, 500, 750],
  );
  assert.deepEqual(
    arrivalOffsetsMs({ kind: "burst", burstSize: 2, burstIntervalS: 0.5 }, 0, 1200, new Rng(1)),
    [0, 0, 500, 500, 1000, 1000],
  );
  assert.deepEqual(
    arrivalOffsetsMs({ kind: "all-at-once", count: 3 }, 100, 200, new Rng(1)),
    [100, 100, 100],
  );
  const window = arrivalOffsetsMs({ kind: "constant", ratePerS: 4 }, 500, 1000, new Rng(1));
  assert.deepEqual(window, [500, 750]);
});

test("the same seed gives the same schedule; another seed another", () => {
  const spec: ArrivalSpec = { kind: "gamma", ratePerS: 50, burstiness: 0.5 };
  const a = arrivalOffsetsMs(spec, 0, 10_000, new Rng(9));
  assert.deepEqual(arrivalOffsetsMs(spec, 0, 10_000, new Rng(9)), a);
  assert.notDeepEqual(arrivalOffsetsMs(spec, 0, 10_000, new Rng(10)), a);
  for (let i = 1; i < a.length; i++) assert.ok((a[i] as number) >= (a[i - 1] as number));
});

test("a short span offers exactly its rate, at every seed, inside the span", () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    for (const spec of [
      { kind: "poisson", ratePerS: 57.3 },
      { kind: "gamma", ratePerS: 20, burstiness: 0.5 },
    ] as ArrivalSpec[]) {
      const offsets = arrivalOffsetsMs(spec, 1000, 5000, new Rng(seed));
      const rate = (spec as { ratePerS: number }).ratePerS;
      assert.equal(offsets.length, Math.round(rate * 4), `${spec.kind} seed ${seed}`);
      assert.ok(offsets.every((t) => t > 1000 && t < 5000));
    }
  }
});
