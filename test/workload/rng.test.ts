import assert from "node:assert/strict";
import { test } from "node:test";
import { hashString, mixSeeds, Rng } from "../../src/workload/rng.ts";

test("the same seed gives the same stream on every machine", () => {
  // Pinned values: integer-only arithmetic, so any platform must reproduce them.
  const rng = new Rng(12345);
  const first = Array.from({ length: 4 }, () => rng.nextUint32());
  assert.deepEqual(first, PINNED);
  assert.notDeepEqual(
    Array.from({ length: 4 }, () => new Rng(12346).nextUint32()),
    first,
  );
  assert.equal(hashString("hello"), 0x4f9f2cab, "FNV-1a's published value for 'hello'");
  assert.notEqual(mixSeeds(1, 2), mixSeeds(2, 1));
});

const PINNED = [518667457, 440444462, 4232892992, 3757857622];

function moments(values: number[]): { mean: number; variance: number } {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1);
  return { mean, variance };
}

test("uniform, normal, exponential and gamma have their textbook moments", () => {
  const rng = new Rng(7);
  const n = 200_000;
  const u = moments(Array.from({ length: n }, () => rng.uniform()));
  assert.ok(Math.abs(u.mean - 0.5) < 0.005 && Math.abs(u.variance - 1 / 12) < 0.002);
  const z = moments(Array.from({ length: n }, () => rng.normal()));
  assert.ok(Math.abs(z.mean) < 0.01 && Math.abs(z.variance - 1) < 0.02);
  const e = moments(Array.from({ length: n }, () => rng.exponential(2)));
  assert.ok(Math.abs(e.mean - 2) < 0.03 && Math.abs(e.variance - 4) < 0.15);
  for (const shape of [0.25, 1, 4]) {
    const g = moments(Array.from({ length: n }, () => rng.gamma(shape, 3)));
    const mean = shape * 3;
    const variance = shape * 9;
    assert.ok(Math.abs(g.mean / mean - 1) < 0.03, `gamma(${shape}) mean ${g.mean}`);
    assert.ok(Math.abs(g.variance / variance - 1) < 0.06, `gamma(${shape}) variance ${g.variance}`);
  }
  for (let i = 0; i < 1000; i++) {
    const k = rng.int(3, 5);
    assert.ok(k >= 3 && k <= 5 && Number.isInteger(k));
  }
});
