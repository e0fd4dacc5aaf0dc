// Measurement reports built from synthetic request records through the real
// recorder and summary, for tests of the gate that need no network.

import type { Outcome } from "../../src/common/outcomes.ts";
import { newRecord } from "../../src/load/record.ts";
import { TrialRecorder } from "../../src/metrics/recorder.ts";
import { summarizeTrial } from "../../src/metrics/summary.ts";
import type { SelfCheckLimits } from "../../src/metrics/validity.ts";
import type { ServerMetrics } from "../../src/servermetrics/scraper.ts";
import type { ServerView } from "../../src/servermetrics/view.ts";
import type { TrialReport } from "../../src/trial/measure.ts";

export interface FakeTrial {
  ttftMs: number;
  itlMs: number;
  ok?: number;
  failed?: Partial<Record<Outcome, number>>;
  valid?: boolean;
  fingerprint?: string;
  /** Prompt tokens per request the server counted (usage), against 256 intended. */
  promptTokens?: number;
  /** The server's view of the trial, as its /metrics would give it. */
  serverMetrics?: ServerMetrics;
  /** Late sends moved p95 TTFT by this much (relative): the trial fails that self-check alone. */
  late?: number;
}

/** A quiet load generator's readings. */
export const QUIET_READINGS = {
  eventLoopDelayMs: { p50: 0.1, p99: 1, max: 2 },
  gc: { count: 0, totalMs: 0 },
  cpu: { userMs: 100, systemMs: 10, wallMs: 10_000, shareOfCore: 0.011 },
};

/** The self-check limits of the fake trials. */
export const TEST_LIMITS: SelfCheckLimits = {
  percentile: "p95",
  maxSkewEffect: 0.025,
  maxOfferedDrift: 0.1,
  maxLateSends: undefined,
  maxUnsent: 0,
  maxEventLoopDelayP99Ms: 20,
  maxClientCpu: 0.95,
  maxSendSkewP99Ms: undefined,
  maxGcShare: undefined,
};

export function fakeReport(t: FakeTrial): TrialReport {
  const rec = new TrialRecorder({}, 60_000);
  const ok = t.ok ?? 100;
  for (let i = 0; i < ok; i++) {
    const r = newRecord(i, false, 0, 60_000, undefined);
    // Spread values ±2 % around the asked figure so percentiles are not degenerate.
    const jitter = 1 + ((i % 5) - 2) / 100;
    Object.assign(r, {
      dispatchMs: 0,
      firstByteMs: 1,
      firstOutputMs: t.ttftMs * jitter,
      endMs: t.ttftMs * jitter + 10 * t.itlMs,
      gapsMs: Array.from({ length: 10 }, () => t.itlMs * jitter),
      outputChunks: 11,
      usageCompletionTokens: 11,
      outcome: "ok",
    });
    rec.add(r);
  }
  let i = ok;
  for (const [outcome, count] of Object.entries(t.failed ?? {})) {
    for (let k = 0; k < (count as number); k++) {
      const r = newRecord(i++, false, 0, 60_000, undefined);
      Object.assign(r, { dispatchMs: 0, endMs: 5, status: 500, outcome });
      rec.add(r);
    }
  }
  const summary = summarizeTrial(rec, {
    windowS: 10,
    readings: QUIET_READINGS,
    hardStopped: t.valid === false,
    maxConcurrency: undefined,
    limits: TEST_LIMITS,
    slo: {},
    ...(t.promptTokens === undefined
      ? {}
      : {
          promptTokens: {
            intended: 256 * ok,
            server: t.promptTokens * ok,
            requests: ok,
            countedBy: "estimate (4 characters per token)",
          },
        }),
  });
  return {
    schema: "llm-perf-gate/measure@2",
    created_at: "2026-11-30T00:00:00.000Z",
    target: { url: "http://127.0.0.1:1/v1", model: "m", endpoint: "chat" },
    workload: {
      arrival: "poisson 10 req/s",
      seed: 1,
      warmup_s: 2,
      duration_s: 10,
      input_len: "256",
      output_len: "128",
      max_tokens: null,
      ignore_eos: false,
      dataset: null,
      prefix: null,
      sessions: null,
      max_concurrency: null,
      timeout_s: 60,
      slo: "none",
      include_usage: true,
      fingerprint: t.fingerprint ?? "abcd1234",
      warmup_requests: 20,
    },
    sessions: null,
    server_metrics: t.serverMetrics ?? null,
    ...summary,
    ...(t.late === undefined ? {} : { validity: lateValidity(summary.validity, t.late) }),
  };
}

/** A trial that only its lateness made invalid: TTFT moved by `effect` at p95. */
function lateValidity(v: TrialReport["validity"], effect: number): TrialReport["validity"] {
  return {
    ...v,
    valid: false,
    lateness_only: true,
    reasons: [`late sends moved p95 TTFT by +${(effect * 100).toFixed(1)} %`],
    skew_effect: { ttft: effect, e2el: null },
  };
}

export interface FakeServer {
  running: [mean: number, max: number];
  waiting: [mean: number, max: number];
  ttftMeanMs?: number;
  queueMeanMs?: number;
  preemptions?: number;
  kvMax?: number;
  /** Metric names beyond the ones every vLLM view here has. */
  names?: string[];
}

/** A trial's server view as a vLLM server's /metrics would give it. */
export function fakeServerView(s: FakeServer): ServerView {
  const g = ([mean, max]: [number, number]) => ({ mean, p95: max, max });
  const h = (meanMs: number) => ({
    count: 100,
    mean_ms: meanMs,
    p50_ms: meanMs,
    p95_ms: 2 * meanMs,
    lower_bounds: [],
    upper_bounds: [],
  });
  return {
    url: "http://127.0.0.1:1/metrics",
    runtime: "vllm",
    scrapes: 12,
    window_scrapes: 10,
    failed_scrapes: 0,
    gauges: {
      running: g(s.running),
      waiting: g(s.waiting),
      kv_cache_usage: { mean: (s.kvMax ?? 0.4) / 2, p95: s.kvMax ?? 0.4, max: s.kvMax ?? 0.4 },
    },
    counters: { preemptions: s.preemptions ?? 0 },
    prefix_cache_hit_rate: null,
    histograms: {
      ...(s.ttftMeanMs === undefined ? {} : { ttft: h(s.ttftMeanMs) }),
      ...(s.queueMeanMs === undefined ? {} : { queue_time: h(s.queueMeanMs) }),
    },
    names: ["vllm:num_requests_running", "vllm:num_requests_waiting", ...(s.names ?? [])].sort(),
    notes: [],
  };
}
