import assert from "node:assert/strict";
import { test } from "node:test";
import * as hdr from "hdr-histogram-js";
import { LatencyHistogram } from "../../src/metrics/histogram.ts";

test("percentiles are exact to 3 significant digits and never above the max", () => {
  const h = new LatencyHistogram();
  for (let i = 1; i <= 1000; i++) h.record(i);
  const s = h.summary();
  assert.equal(s.count, 1000);
  assert.equal(s.mean, 500.5);
  assert.ok(Math.abs((s.p50 as number) - 500) <= 0.5);
  assert.ok(Math.abs((s.p99 as number) - 990) <= 1);
  assert.ok((s.p999 as number) <= (s.max as number));
  assert.deepEqual(s.lower_bounds, []);
  assert.equal(new LatencyHistogram().summary().p50, null);
});

test("censored values make the percentiles that fall among them lower bounds", () => {
  const h = new LatencyHistogram();
  for (let i = 0; i < 96; i++) h.record(100);
  for (let i = 0; i < 4; i++) h.recordCensored(30_000);
  const s = h.summary();
  assert.equal(s.censored, 4);
  assert.ok(Math.abs((s.p95 as number) - 100) <= 0.1, "rank 95 of 100 is observed (to 0.1 %)");
  assert.equal(s.p99, 30_000);
  assert.deepEqual(s.lower_bounds, ["mean", "p99", "p999", "max"]);
  // Exactly at the boundary: rank 96 is the last observed value.
  const edge = new LatencyHistogram();
  for (let i = 0; i < 96; i++) edge.record(50);
  for (let i = 0; i < 4; i++) edge.recordCensored(1000);
  assert.equal(edge.percentile(96)?.lowerBound, false);
  assert.equal(edge.percentile(96.01)?.lowerBound, true);
});

test("encoded histograms decode and merge across runs", () => {
  const a = new LatencyHistogram();
  const b = new LatencyHistogram();
  for (let i = 1; i <= 100; i++) a.record(i);
  for (let i = 101; i <= 200; i++) b.record(i);
  const merged = hdr.decodeFromCompressedBase64(a.encode());
  merged.add(hdr.decodeFromCompressedBase64(b.encode()));
  assert.equal(merged.totalCount, 200);
  assert.ok(Math.abs(merged.getValueAtPercentile(50) - 100_000) <= 100, "µs");
});

test("p99.9 of 1,000 values is rank 999: one timeout does not make it a lower bound", () => {
  const h = new LatencyHistogram();
  for (let i = 1; i <= 999; i++) h.record(i);
  h.recordCensored(60_000);
  const p999 = h.percentile(99.9);
  assert.equal(p999?.lowerBound, false, "rank 999 is a measured value");
  assert.ok(p999 && Math.abs(p999.value - 999) <= 1, `p99.9 = ${p999?.value}`);
  // Two timeouts: rank 999 falls among them.
  h.recordCensored(60_000);
  assert.equal(h.percentile(99.9)?.lowerBound, true);
});
