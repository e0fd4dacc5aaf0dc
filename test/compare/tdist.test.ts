import assert from "node:assert/strict";
import { test } from "node:test";
import { incompleteBeta, tCdf, tQuantile } from "../../src/compare/tdist.ts";

// Published two-sided critical values (e.g. NIST/SEMATECH e-Handbook, table 1.3.6.7.2).
const TABLE: [number, number, number][] = [
  // [upper-tail quantile p, df, t]
  [0.95, 1, 6.314],
  [0.95, 2, 2.92],
  [0.95, 3, 2.353],
  [0.95, 4, 2.132],
  [0.95, 5, 2.015],
  [0.95, 7, 1.895],
  [0.95, 10, 1.812],
  [0.95, 30, 1.697],
  [0.95, 100, 1.66],
  [0.975, 1, 12.706],
  [0.975, 2, 4.303],
  [0.975, 3, 3.182],
  [0.975, 4, 2.776],
  [0.975, 10, 2.228],
  [0.99, 2, 6.965],
  [0.99, 5, 3.365],
  [0.995, 3, 5.841],
  [0.9, 2, 1.886],
  [0.9, 9, 1.383],
];

test("t quantiles match published tables to 3 decimals", () => {
  for (const [p, df, t] of TABLE) {
    assert.ok(
      Math.abs(tQuantile(p, df) - t) < 0.0015,
      `t(${p}, ${df}) = ${tQuantile(p, df)}, table ${t}`,
    );
    assert.ok(Math.abs(tQuantile(1 - p, df) + t) < 0.0015, "symmetric");
  }
  assert.equal(tQuantile(0.5, 4), 0);
  assert.throws(() => tQuantile(1, 3), RangeError);
});

test("the CDF inverts the quantile and the incomplete beta has known values", () => {
  for (const df of [1, 2, 3.5, 8, 40]) {
    for (const p of [0.01, 0.2, 0.8, 0.975])
      assert.ok(Math.abs(tCdf(tQuantile(p, df), df) - p) < 1e-9);
  }
  assert.ok(Math.abs(incompleteBeta(0.5, 2, 2) - 0.5) < 1e-12);
  assert.ok(Math.abs(incompleteBeta(0.3, 1, 1) - 0.3) < 1e-12);
  assert.ok(Math.abs(incompleteBeta(0.2, 2, 3) - 0.1808) < 1e-12, "1 − 4(0.8)^3 + 3(0.8)^4");
});
