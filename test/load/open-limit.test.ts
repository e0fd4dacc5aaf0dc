// The client's limit of open requests (load/record.ts MAX_OPEN_REQUESTS): a
// request due while the client holds its limit is not sent, counted as the
// client's (unsent, open-limited), and the trial is invalid with that reason
// — memory stays bounded, and a server slower than the load is never blamed
// on the client's CPU nor counted as the server's failure.

import assert from "node:assert/strict";
import { test } from "node:test";
import { endpointFailure } from "../../src/commands/measure.ts";
import { parseTrialOptions } from "../../src/config/trial.ts";
import { classify } from "../../src/load/outcome.ts";
import { newRecord, openLimitShare, type RequestRecord } from "../../src/load/record.ts";
import { runLoad, sliceSize } from "../../src/load/run.ts";
import { TrialRecorder } from "../../src/metrics/recorder.ts";
import { recorderState } from "../../src/metrics/recorder-state.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { buildWorkload } from "../../src/workload/plan.ts";
import { LOAD_TEST, quickProfile } from "../helpers/mock.ts";
import { fakeReport } from "../helpers/reports.ts";

/** 8 requests due at once against answers of ≈ 0.4 s, under `openLimit`: the records. */
async function eightAtOnce(openLimit: { requests: number; bodyBytes: number }) {
  const server = await startMockServer({ profile: quickProfile({ decodeBaseMs: 20 }) });
  try {
    const options = parseTrialOptions({
      url: `${server.url}/v1`,
      model: "mock-llm",
      arrival: "all-at-once",
      requests: "8",
      "input-len": "256",
      "output-len": "20",
      "ignore-eos": "true",
      warmup: "0s",
    });
    const records: RequestRecord[] = [];
    await runLoad({
      target: options.target,
      workload: buildWorkload(options.workload),
      timeoutS: 10,
      maxConcurrency: undefined,
      openLimit,
      onRequest: (r) => records.push(r),
    });
    return records;
  } finally {
    await server.close();
  }
}

test(
  "past the open limit a due request is not sent, is the client's, and invalidates the trial",
  LOAD_TEST,
  async () => {
    const records = await eightAtOnce({ requests: 3, bodyBytes: 2 ** 30 });
    assert.equal(records.length, 8);
    assert.deepEqual(
      records.filter((r) => !r.openLimited).map((r) => r.outcome),
      ["ok", "ok", "ok"],
    );
    assert.ok(records.filter((r) => r.openLimited).every((r) => r.outcome === "unsent"));

    const rec = new TrialRecorder({}, 10_000);
    for (const r of records) rec.add(r);
    assert.equal(rec.openLimited, 5);
    assert.equal(recorderState(rec).counts.openLimited, 5, "merged across workers and shards");
    assert.match(rec.examples.unsent?.[0]?.detail ?? "", /client already held its limit/);
  },
);

test(
  "the open request bodies are bounded too: a 256-token prompt is about 1 kB, 2.5 kB hold two",
  LOAD_TEST,
  async () => {
    const records = await eightAtOnce({ requests: 100, bodyBytes: 2500 });
    assert.equal(records.filter((r) => r.outcome === "ok").length, 2);
    assert.equal(records.filter((r) => r.openLimited).length, 6);
  },
);

test(
  "measure: requests the client never sent are not the endpoint's failures (exit 3, not 4)",
  LOAD_TEST,
  () => {
    const limit = { maxErrorRate: 0.01, exclude: [] };
    const unsent = fakeReport({ ttftMs: 100, itlMs: 10, ok: 90, failed: { unsent: 10 } });
    assert.equal(endpointFailure(unsent, limit), null);
    const refused = fakeReport({ ttftMs: 100, itlMs: 10, ok: 90, failed: { http_5xx: 10 } });
    assert.match(endpointFailure(refused, limit) ?? "", /the endpoint failed 10 of 100 requests/);
  },
);

test(
  "a queued request the open limit held is the client's (unsent), and a worker's share holds its slice",
  LOAD_TEST,
  () => {
    const r = newRecord(0, false, 0, 1000, undefined);
    r.queued = true;
    assert.equal(classify(r), "censored", "a slot the server held until the deadline");
    r.openLimited = true;
    assert.equal(classify(r), "unsent");
    for (const count of [2, 3, 7, 64]) {
      const share = openLimitShare(count).requests;
      assert.ok(share >= sliceSize(10_000, { index: 0, count }), `${count} workers: ${share}`);
    }
    const none = fakeReport({ ttftMs: 100, itlMs: 10, ok: 0, failed: { unsent: 10 } });
    assert.equal(endpointFailure(none, { maxErrorRate: 0.01, exclude: [] }), null);
  },
);
