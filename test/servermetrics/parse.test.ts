// The metrics text parser and the runtime mappings, on /metrics samples of the
// four runtimes written from their documented names (test/fixtures/metrics):
// each runtime detected, its series read and summed over engines, older vLLM
// names still mapped, and OpenMetrics' forms read as Prometheus text's.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parseExposition } from "../../src/servermetrics/parse.ts";
import { detectRuntime } from "../../src/servermetrics/runtimes.ts";
import { metricNames, samplesByName, snapshot } from "../../src/servermetrics/snapshot.ts";
import { bucketQuantile, histogramStats } from "../../src/servermetrics/view.ts";

const read = (name: string) =>
  readFileSync(join(import.meta.dirname, "../fixtures/metrics", name), "utf8");
const MODEL = "meta-llama/Llama-3.1-8B-Instruct";

function snap(name: string) {
  const e = parseExposition(read(name));
  assert.equal(e.badLines, 0, e.firstBad.join("; "));
  const samples = samplesByName(e);
  const runtime = detectRuntime(samples.keys());
  assert.ok(runtime, `${name}: no runtime detected`);
  return { runtime, s: snapshot(samples, runtime, MODEL, 0), names: metricNames(e) };
}

test("vLLM V1: engines summed (counts) or averaged (KV-cache share), histograms merged by bound", () => {
  const { runtime, s } = snap("vllm.txt");
  assert.equal(runtime, "vllm");
  assert.deepEqual(s.gauges, { running: 8, waiting: 1, kv_cache_usage: 0.5 });
  assert.deepEqual(s.counters, {
    preemptions: 3,
    prefix_cache_hits: 1000,
    prefix_cache_queries: 4000,
  });
  const ttft = s.histograms.ttft;
  assert.ok(ttft);
  assert.equal(ttft.count, 20);
  assert.equal(ttft.sumS, 3.1);
  assert.equal(ttft.le.at(-1), Number.POSITIVE_INFINITY);
  // Engine 0: 8 at most 0.1 s, 10 at most 0.25 s; engine 1: 5 in (0.1, 0.25], 5 in (0.25, 0.5].
  assert.equal(ttft.counts[ttft.le.indexOf(0.1)], 8);
  assert.equal(ttft.counts[ttft.le.indexOf(0.25)], 15);
  assert.deepEqual(Object.keys(s.histograms).sort(), ["e2e", "itl", "queue_time", "ttft"]);
});

test("vLLM V0's older names map to the same series, and the name lists tell the two apart", () => {
  const old = snap("vllm-v0.txt");
  assert.equal(old.runtime, "vllm");
  assert.deepEqual(old.s.gauges, { running: 4, waiting: 2, kv_cache_usage: 0.5 });
  assert.equal(old.s.counters.prefix_cache_hits, 10);
  assert.ok(old.s.histograms.itl, "time_per_output_token_seconds is V0's ITL");
  const now = snap("vllm.txt");
  assert.ok(old.names.includes("vllm:gpu_cache_usage_perc"));
  assert.ok(!now.names.includes("vllm:gpu_cache_usage_perc"));
  assert.ok(now.names.includes("vllm:kv_cache_usage_perc"));
});

test("SGLang, TGI and llama.cpp's server: each its own names, absent series absent", () => {
  const sg = snap("sglang.txt");
  assert.equal(sg.runtime, "sglang");
  assert.deepEqual(sg.s.gauges, { running: 7, waiting: 3, kv_cache_usage: 0.28 });
  assert.deepEqual(sg.s.counters, {
    preemptions: 4,
    prefix_cache_hits: 2000,
    prefix_cache_queries: 8000,
  });
  assert.deepEqual(Object.keys(sg.s.histograms).sort(), ["e2e", "itl", "queue_time", "ttft"]);
  // SGLang's queue-time buckets start at le="0.0".
  assert.equal(sg.s.histograms.queue_time?.le[0], 0);

  const tgi = snap("tgi.txt");
  assert.equal(tgi.runtime, "tgi");
  assert.deepEqual(tgi.s.gauges, { running: 32, waiting: 6 });
  assert.deepEqual(tgi.s.counters, {});
  assert.deepEqual(Object.keys(tgi.s.histograms).sort(), ["e2e", "itl", "queue_time"]);
  assert.equal(tgi.s.histograms.queue_time?.count, 118);

  const ll = snap("llamacpp.txt");
  assert.equal(ll.runtime, "llamacpp");
  assert.deepEqual(ll.s.gauges, { running: 2, waiting: 1, kv_cache_usage: 0.125 });
  assert.deepEqual(ll.s.histograms, {});
});

test("OpenMetrics: counters named without _total, # EOF, exemplars, timestamps, escapes", () => {
  const text = [
    "# HELP vllm:num_preemptions Preemptions.",
    "# TYPE vllm:num_preemptions counter",
    'vllm:num_preemptions_total{model_name="m"} 5.0 1700000000.123',
    'vllm:num_preemptions_created{model_name="m"} 1.7e9',
    "# TYPE vllm:time_to_first_token_seconds histogram",
    "# UNIT vllm:time_to_first_token_seconds seconds",
    'vllm:time_to_first_token_seconds_bucket{le="0.1",model_name="m"} 1 # {trace_id="a\\"b"} 0.05 1700000000',
    'vllm:time_to_first_token_seconds_bucket{le="+Inf",model_name="m"} 2',
    'vllm:time_to_first_token_seconds_count{model_name="m"} 2',
    'vllm:time_to_first_token_seconds_sum{model_name="m"} 0.3',
    "# TYPE vllm:num_requests_running gauge",
    'vllm:num_requests_running{model_name="a \\"quoted\\" name\\\\",} NaN',
    "# EOF",
  ].join("\n");
  const e = parseExposition(text);
  assert.equal(e.badLines, 0, e.firstBad.join("; "));
  const family = e.families.get("vllm:num_preemptions");
  assert.equal(family?.type, "counter");
  assert.equal(family?.samples.length, 2, "_total and _created belong to the counter");
  assert.deepEqual(metricNames(e), [
    "vllm:num_preemptions_total",
    "vllm:num_requests_running",
    "vllm:time_to_first_token_seconds",
  ]);
  const running = e.families.get("vllm:num_requests_running")?.samples[0];
  assert.equal(running?.labels.model_name, 'a "quoted" name\\');
  assert.ok(Number.isNaN(running?.value));
  const s = snapshot(samplesByName(e), "vllm", "m", 0);
  assert.equal(s.counters.preemptions, 5);
  assert.deepEqual(s.histograms.ttft?.counts, [1, 2]);
  assert.equal(s.gauges.running, undefined, "a NaN gauge is not a reading");
});

test("bad lines are counted and shown, the rest still read", () => {
  const e = parseExposition(
    [
      "vllm:num_requests_running 3",
      "vllm:oops{le=0.1} 2",
      "not a sample line at all",
      "x 1 2 3",
    ].join("\n"),
  );
  assert.equal(e.badLines, 3);
  assert.match(e.firstBad[0] as string, /^line 2: vllm:oops/);
  assert.equal(e.families.get("vllm:num_requests_running")?.samples[0]?.value, 3);
});

test("a server that labels its series by model: only the arm's model's are read", () => {
  const e = parseExposition(
    [
      'vllm:num_requests_running{model_name="a"} 3',
      'vllm:num_requests_running{model_name="b"} 5',
    ].join("\n"),
  );
  const samples = samplesByName(e);
  assert.equal(snapshot(samples, "vllm", "b", 0).gauges.running, 5);
  assert.equal(
    snapshot(samples, "vllm", "other", 0).gauges.running,
    8,
    "no such model: all of them",
  );
});

test("bucket percentiles interpolate as histogram_quantile does; the end buckets give bounds", () => {
  const h = {
    le: [0.1, 0.2, 0.4, Number.POSITIVE_INFINITY],
    counts: [2, 10, 20, 20],
    sumS: 3,
    count: 20,
  };
  // rank 10 of 20 is the top of (0.1, 0.2]; rank 19 is 90 % into (0.2, 0.4].
  assert.deepEqual(bucketQuantile(h, 0.5), { ms: 200, bound: "exact" });
  assert.equal(Math.round((bucketQuantile(h, 0.95)?.ms as number) * 1000) / 1000, 380);
  // In the lowest bucket only "at most 100 ms" is known; in +Inf only "at least 100 ms".
  assert.deepEqual(bucketQuantile(h, 0.05), { ms: 100, bound: "at_most" });
  const tail = { le: [0.1, Number.POSITIVE_INFINITY], counts: [1, 20], sumS: 40, count: 20 };
  assert.deepEqual(bucketQuantile(tail, 0.95), { ms: 100, bound: "at_least" });
  assert.deepEqual(histogramStats(tail), {
    count: 20,
    mean_ms: 2000,
    p50_ms: 100,
    p95_ms: 100,
    lower_bounds: ["p50_ms", "p95_ms"],
    upper_bounds: [],
  });
  assert.equal(bucketQuantile({ ...h, counts: [0, 0, 0, 0], count: 0 }, 0.5), null);
});
