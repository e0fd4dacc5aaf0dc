// Time inside a trial: buckets of offered and completed requests, failures
// where they happened, percentiles per bucket, a stall as empty buckets, and
// memory bounded however many requests a bucket sees.

import assert from "node:assert/strict";
import { test } from "node:test";
import { newRecord } from "../../src/load/record.ts";
import { bucketSeconds, SAMPLES_PER_BUCKET, TimelineTally } from "../../src/metrics/timeline.ts";

/** A request due at dueMs (trial clock, start 1000) that took ttftMs to its first token. */
function request(dueMs: number, ttftMs: number, outcome: "ok" | "http_5xx" = "ok") {
  const r = newRecord(0, false, 1000 + dueMs, 1000 + dueMs + 60_000, undefined);
  Object.assign(r, {
    dispatchMs: 1000 + dueMs,
    firstOutputMs: 1000 + dueMs + ttftMs,
    endMs: 1000 + dueMs + ttftMs + 50,
    gapsMs: [5, 10],
    outputChunks: 3,
    outcome,
  });
  return r;
}

test("buckets: offered when due, completed and failed when ended, TTFT by due time, a stall as empty seconds", () => {
  const t = new TimelineTally(1, 10);
  t.startMs = 1000;
  for (let i = 0; i < 10; i++) t.add(request(100 * i, 20 + i));
  // A stall: nothing due in seconds 1 and 2; then one slow request and a failure in second 3.
  t.add(request(3100, 900));
  t.add(request(3200, 10, "http_5xx"));
  t.addGauges(1000 + 3500, 4, 2);
  const { bucket_s, buckets } = t.timeline();
  assert.equal(bucket_s, 1);
  assert.deepEqual(
    buckets.map((b) => b.t_s),
    [0, 1, 2, 3, 4],
    "every second from the first to the last, empty ones too",
  );
  const [first, stalled, , third, fourth] = buckets;
  assert.equal(first?.offered, 10);
  assert.equal(first?.completed, 10);
  assert.equal(first?.ttft_p50_ms, 24);
  assert.equal(first?.ttft_p95_ms, 29);
  assert.equal(first?.itl_p95_ms, 10);
  assert.deepEqual([stalled?.offered, stalled?.completed, stalled?.ttft_p95_ms], [0, 0, null]);
  assert.equal(third?.offered, 2);
  assert.deepEqual(third?.failed, { http_5xx: 1 }, "the failure where it ended");
  assert.equal(third?.ttft_p95_ms, 900, "only ok requests' TTFT");
  assert.deepEqual([third?.running, third?.waiting], [4, 2], "the server's queue scraped then");
  assert.equal(fourth?.completed, 1, "the slow one ended in second 4");
});

test("a long trial gets wider buckets; a busy bucket keeps a bounded sample", () => {
  assert.equal(bucketSeconds(60), 1);
  assert.equal(bucketSeconds(1800), 15);
  const t = new TimelineTally(1, 1);
  t.startMs = 1000;
  for (let i = 0; i < 20_000; i++) t.add(request((i % 1000) * 0.9, i % 100));
  const [only] = t.timeline().buckets;
  assert.equal(only?.offered, 20_000);
  // A uniform sample of 500 of 20,000 TTFTs spread 0–99 ms: its p50 near 50.
  assert.ok(Math.abs((only?.ttft_p50_ms ?? 0) - 50) <= 8, String(only?.ttft_p50_ms));
  assert.equal(SAMPLES_PER_BUCKET, 500);
  // A request that ends an hour after a 1-second schedule lands in the last bucket, not the 3600th.
  t.add(request(500, 3_600_000));
  assert.equal(t.timeline().buckets.length, 2);
});
