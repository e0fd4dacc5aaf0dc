// A trial's requests recorded by one recorder, and split over three whose
// states go through JSON and merge: the same summary to the last digit (HDR
// counts merge exactly), the same failure examples, finish reasons and
// offered-rate windows.

import assert from "node:assert/strict";
import { test } from "node:test";
import { newRecord, type RequestRecord } from "../../src/load/record.ts";
import { TrialRecorder } from "../../src/metrics/recorder.ts";
import {
  mergeRecorderState,
  type RecorderState,
  recorderState,
} from "../../src/metrics/recorder-state.ts";
import { summarizeTrial } from "../../src/metrics/summary.ts";
import { Rng } from "../../src/workload/rng.ts";
import { QUIET_READINGS, TEST_LIMITS } from "../helpers/reports.ts";

/** 600 requests over 6 s: ok ones with varied latencies, some timed out, some failed. */
function records(): RequestRecord[] {
  const rng = new Rng(7);
  return Array.from({ length: 600 }, (_, i) => {
    const scheduledMs = i * 10;
    const r = newRecord(i, false, scheduledMs, scheduledMs + 5_000, undefined);
    const ttftMs = 20 + 200 * rng.uniform() ** 3;
    const gapMs = 2 + 30 * rng.uniform() ** 4;
    const chunks = 1 + Math.floor(64 * rng.uniform());
    r.dispatchMs = scheduledMs + 3 * rng.uniform();
    r.slotMs = scheduledMs;
    r.firstByteMs = r.dispatchMs + ttftMs / 2;
    r.firstOutputMs = r.dispatchMs + ttftMs;
    r.gapsMs = Array.from({ length: chunks - 1 }, () => gapMs * (0.5 + rng.uniform()));
    r.endMs = r.firstOutputMs + r.gapsMs.reduce((a, b) => a + b, 0);
    r.outputChunks = chunks;
    r.usageCompletionTokens = i % 3 === 0 ? undefined : chunks * 2;
    r.finishReason = i % 7 === 0 ? "length" : "stop";
    r.outcome = "ok";
    if (i % 97 === 5) {
      r.outcome = "censored";
      r.timedOut = true;
      r.firstOutputMs = Number.NaN;
    } else if (i % 53 === 3) {
      r.outcome = "http_5xx";
      r.status = 503;
      r.body = `busy ${i}`;
    }
    return r;
  });
}

const recorder = () => new TrialRecorder({ ttftMs: 120, itlMs: 20 }, 5_000, 1, 1_000);

const summaryOf = (rec: TrialRecorder) =>
  summarizeTrial(rec, {
    windowS: 6,
    readings: QUIET_READINGS,
    hardStopped: false,
    maxConcurrency: undefined,
    limits: TEST_LIMITS,
    slo: { ttftMs: 120, itlMs: 20 },
  });

test("three shards' recorder states, merged through JSON, summarize as one recorder of every request", () => {
  const one = recorder();
  const shards = [recorder(), recorder(), recorder()];
  for (const r of records()) {
    one.add(structuredClone(r));
    shards[r.index % 3]?.add(structuredClone(r));
  }
  const merged = recorder();
  for (const s of shards)
    mergeRecorderState(merged, JSON.parse(JSON.stringify(recorderState(s))) as RecorderState);
  const single = summaryOf(one);
  assert.ok(single.outcomes.censored > 0 && single.outcomes.http_5xx > 0);
  assert.ok(single.goodput.good > 0 && single.goodput.good < single.scheduled);
  // As the results file holds them.
  const json = (x: unknown) => JSON.parse(JSON.stringify(x));
  assert.deepEqual(json(summaryOf(merged)), json(single));
  assert.deepEqual(merged.offered, one.offered);
});

test("a merged recorder keeps the plan's earliest failure examples, whichever shard saw them", () => {
  const shards = [recorder(), recorder()];
  const failing = records().filter((r) => r.outcome === "http_5xx");
  // The second shard's failures come first in the plan.
  for (const r of failing) shards[r.index < 300 ? 1 : 0]?.add(structuredClone(r));
  const merged = recorder();
  for (const s of shards) mergeRecorderState(merged, recorderState(s));
  assert.deepEqual(
    merged.examples.http_5xx?.map((e) => e.index),
    failing.slice(0, 3).map((r) => r.index),
  );
});
