// Both arms' server views, and where a TTFT rise went: queue time with its
// cause (a smaller batch, preemptions, a full KV cache), compute inside the
// server, or outside the server; and a trial's scrapes reduced with an
// injected fetch and clock (window, counter resets, failures as notes).

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { compareServerViews, type TrialServerInput } from "../../src/servermetrics/compare.ts";
import { type ServerMetrics, TrialScrape } from "../../src/servermetrics/scraper.ts";
import { type FakeServer, fakeServerView } from "../helpers/reports.ts";

function arms(base: FakeServer, cand: FakeServer, clientMs: [number, number], pairs = 3) {
  const arm = (s: FakeServer, ms: number): TrialServerInput[] =>
    Array.from({ length: pairs }, (_, pair) => ({
      pair,
      metrics: fakeServerView(s),
      clientTtftMeanMs: ms + pair,
    }));
  return compareServerViews({
    baseline: arm(base, clientMs[0]),
    candidate: arm(cand, clientMs[1]),
  });
}

const BASE: FakeServer = { running: [12, 16], waiting: [0.1, 2], ttftMeanMs: 40, queueMeanMs: 3 };

test("a TTFT rise that is queue time, and the batch limit behind it", () => {
  const v = arms(
    BASE,
    { running: [7.5, 8], waiting: [9, 20], ttftMeanMs: 70, queueMeanMs: 32 },
    [45, 76],
  );
  assert.deepEqual(
    { client: v?.ttft?.client_ms, server: v?.ttft?.server_ttft_ms, queue: v?.ttft?.queue_ms },
    { client: 31, server: 30, queue: 29 },
  );
  assert.equal(
    v?.ttft?.words,
    "+31.0 ms mean TTFT, of which +29.0 ms server queue time: the candidate runs fewer sequences at once (at most 8 running vs 16, mean 7.50 vs 12.0)",
  );
  assert.deepEqual(v?.baseline.gauges.running, { mean: 12, max: 16 });
});

test("queue time from preemptions or a full KV cache; compute; outside the server; no rise", () => {
  const queued = {
    running: [12, 16] as [number, number],
    waiting: [9, 20] as [number, number],
    ttftMeanMs: 70,
    queueMeanMs: 32,
  };
  assert.match(
    arms(BASE, { ...queued, preemptions: 12 }, [45, 76])?.ttft?.words ?? "",
    /the candidate preempts more \(12 preemptions per trial vs 0\)/,
  );
  assert.match(
    arms(BASE, { ...queued, kvMax: 0.99 }, [45, 76])?.ttft?.words ?? "",
    /the candidate's KV cache is full \(at most 99\.0 % used\)/,
  );
  assert.match(
    arms(BASE, { ...BASE, ttftMeanMs: 68, queueMeanMs: 4 }, [45, 74])?.ttft?.words ?? "",
    /of which \+28\.0 ms inside the server's own TTFT \(queue time \+1\.00 ms\): it takes longer to compute the first token/,
  );
  assert.match(
    arms(BASE, { ...BASE, ttftMeanMs: 41 }, [45, 76])?.ttft?.words ?? "",
    /but the server's own TTFT changed \+1\.00 ms: the rest is outside the server/,
  );
  const faster = arms(BASE, BASE, [45, 40]);
  assert.equal(faster?.ttft?.client_ms, -5);
  assert.equal(faster?.ttft?.words, null, "TTFT fell: nothing to explain");
});

test("names one arm exposes and the other does not; none across different runtimes", () => {
  const v = arms(
    { ...BASE, names: ["vllm:gpu_cache_usage_perc"] },
    { ...BASE, names: ["vllm:kv_cache_usage_perc"] },
    [45, 45],
  );
  assert.deepEqual(v?.only_in, {
    baseline: ["vllm:gpu_cache_usage_perc"],
    candidate: ["vllm:kv_cache_usage_perc"],
  });
  const other = compareServerViews({
    baseline: [{ pair: 0, metrics: fakeServerView(BASE), clientTtftMeanMs: 45 }],
    candidate: [
      { pair: 0, metrics: { ...fakeServerView(BASE), runtime: "sglang" }, clientTtftMeanMs: 45 },
    ],
  });
  assert.deepEqual(other?.only_in, { baseline: [], candidate: [] });
});

test("no metrics anywhere: no comparison; failed scrapes: their reasons, no breakdown", () => {
  const none = (pair: number) => ({ pair, metrics: null, clientTtftMeanMs: 40 });
  assert.equal(compareServerViews({ baseline: [none(0)], candidate: [none(0)] }), null);
  const failed: ServerMetrics = {
    url: "http://h/metrics",
    error: "GET http://h/metrics answered HTTP 404",
  };
  const v = compareServerViews({
    baseline: [{ pair: 0, metrics: fakeServerView(BASE), clientTtftMeanMs: 40 }],
    candidate: [{ pair: 0, metrics: failed, clientTtftMeanMs: 50 }],
  });
  assert.equal(v?.candidate.trials, 0);
  assert.deepEqual(v?.candidate.errors, ["GET http://h/metrics answered HTTP 404"]);
  assert.equal(v?.ttft, null);
});

const VLLM = readFileSync(join(import.meta.dirname, "../fixtures/metrics/vllm.txt"), "utf8");

/** The vLLM sample with its running gauge and preemption counter set. */
const page = (running: number, preemptions: number) =>
  VLLM.replace(/^(vllm:num_requests_running\{engine="0".*\}) 3\.0$/m, `$1 ${running}`).replace(
    /^(vllm:num_preemptions_total\{engine="0".*\}) 2\.0$/m,
    `$1 ${preemptions}`,
  );

test("a trial's scrapes: gauges from the window's, counters from before to after, resets and failures noted", async () => {
  let nowMs = 0;
  const pages = [page(0, 2), page(10, 5), "fail", page(20, 9), page(30, 1), page(0, 1)];
  const scrape = new TrialScrape(
    { url: "http://127.0.0.1:1/metrics", intervalS: 0.1, runtime: "auto" },
    "meta-llama/Llama-3.1-8B-Instruct",
    {
      now: () => nowMs,
      fetch: async () => {
        nowMs += 100;
        const next = pages.shift() ?? page(0, 1);
        if (next === "fail") throw new Error("connection refused");
        return next;
      },
    },
  );
  await scrape.start();
  // Let the interval scrapes run (the clock advances 100 ms a scrape).
  while (pages.length > 1) await new Promise((r) => setTimeout(r, 5));
  const v = await scrape.finish(150, 450);
  assert.ok(!("error" in v), JSON.stringify(v));
  assert.equal(v.runtime, "vllm");
  // In the window (150–450 ms): the scrapes at 200 (running 10+5), 400 (20+5); at 500 not.
  assert.deepEqual(v.gauges.running, { mean: 20, p95: 24.5, max: 25 });
  // Engine 0's preemptions went 2 → 1: a reset; counted from 0 (1), plus engine 1's unchanged 1.
  assert.equal(v.counters.preemptions, 2);
  assert.match(v.notes.join(" "), /counters went down .*preemptions/);
  assert.match(v.notes.join(" "), /1 scrape failed, the last: connection refused/);
  assert.equal(v.failed_scrapes, 1);
  assert.equal(v.histograms.ttft?.count, 0, "nothing observed between before and after");
});

test("a server without metrics: the trial's scrape is a failure with the reason, never an error", async () => {
  const scrape = new TrialScrape(
    { url: "http://127.0.0.1:1/metrics", intervalS: 1, runtime: "auto" },
    "m",
    {
      now: () => 0,
      fetch: async () => {
        throw new Error("answered HTTP 404");
      },
    },
  );
  await scrape.start();
  assert.deepEqual(await scrape.finish(0, 1), {
    url: "http://127.0.0.1:1/metrics",
    error: "GET http://127.0.0.1:1/metrics answered HTTP 404",
  });
});
