// What the mock's engine counts, as a serving runtime counts it, and GET
// /metrics in a real runtime's names: vLLM's V1 engine (gauges of its queue and
// batch, counters, histograms with vLLM's bucket bounds) or llama.cpp's server
// started with --metrics (gauges and counters, no histograms). Timings are the
// engine's: from a request's arrival at the engine, not the client's send.

import { at } from "../common/arrays.ts";
import type { MetricsFormat } from "./profile.ts";

/** vLLM's bucket bounds (seconds) for each histogram it exposes. */
const TTFT_BOUNDS = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80,
  160, 640, 2560,
];
const ITL_BOUNDS = [
  0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80,
];
const REQUEST_BOUNDS = [
  0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680,
];

class Histogram {
  readonly bounds: readonly number[];
  /** Observations at most each bound (not cumulative), then above the last. */
  readonly counts: number[];
  sumS = 0;
  count = 0;

  constructor(bounds: readonly number[]) {
    this.bounds = bounds;
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(seconds: number): void {
    let i = this.bounds.findIndex((b) => seconds <= b);
    if (i < 0) i = this.bounds.length;
    this.counts[i] = at(this.counts, i) + 1;
    this.sumS += seconds;
    this.count++;
  }
}

/** The engine's state when scraped. */
export interface EngineGauges {
  running: number;
  waiting: number;
  /** KV-cache tokens held by the running sequences ÷ the cache's size (0–1). */
  kvCacheUsage: number;
}

export class EngineMetrics {
  readonly ttft = new Histogram(TTFT_BOUNDS);
  readonly itl = new Histogram(ITL_BOUNDS);
  readonly queueTime = new Histogram(REQUEST_BOUNDS);
  readonly e2e = new Histogram(REQUEST_BOUNDS);
  promptTokens = 0;
  generationTokens = 0;
  /** Prompt tokens looked up in the prefix cache, and those it held. */
  prefixQueries = 0;
  prefixHits = 0;
  finished = 0;
  preemptions = 0;
  /** Speculative decoding: decode steps that proposed drafts, and the draft tokens proposed. */
  specDrafts = 0;
  specDraftTokens = 0;
  private readonly createdS = Date.now() / 1000;

  /**
   * `specAcceptance`: the share of draft tokens accepted when the server
   * drafts (vLLM exposes the spec-decode counters, from 0, only with a
   * drafter); undefined: no speculative decoding.
   */
  render(format: MetricsFormat, model: string, g: EngineGauges, specAcceptance?: number): string {
    return format === "llamacpp" ? this.llamacpp(g) : this.vllm(model, g, specAcceptance);
  }

  private vllm(model: string, g: EngineGauges, specAcceptance: number | undefined): string {
    const labels = `engine="0",model_name="${model.replace(/[\\"]/g, "\\$&")}"`;
    const out: string[] = [];
    const gauge = (name: string, help: string, v: number) =>
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name}{${labels}} ${float(v)}`);
    // prometheus_client's 0.0.4 text: a counter's family keeps _total, its _created is a gauge.
    const counter = (name: string, help: string, v: number) =>
      out.push(
        `# HELP ${name}_total ${help}`,
        `# TYPE ${name}_total counter`,
        `${name}_total{${labels}} ${float(v)}`,
        `# HELP ${name}_created ${help}`,
        `# TYPE ${name}_created gauge`,
        `${name}_created{${labels}} ${float(this.createdS)}`,
      );
    const histogram = (name: string, help: string, h: Histogram) => {
      out.push(
        `# HELP ${name} ${help}`,
        `# TYPE ${name} histogram`,
        `${name}_sum{${labels}} ${float(h.sumS)}`,
      );
      let cumulative = 0;
      for (const [i, b] of [...h.bounds, Number.POSITIVE_INFINITY].entries()) {
        cumulative += at(h.counts, i);
        const le = b === Number.POSITIVE_INFINITY ? "+Inf" : float(b);
        out.push(`${name}_bucket{le="${le}",${labels}} ${float(cumulative)}`);
      }
      out.push(`${name}_count{${labels}} ${float(h.count)}`);
    };
    gauge("vllm:num_requests_running", "Number of requests in model execution batches.", g.running);
    gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", g.waiting);
    gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", g.kvCacheUsage);
    counter(
      "vllm:num_preemptions",
      "Cumulative number of preemption from the engine.",
      this.preemptions,
    );
    counter("vllm:prompt_tokens", "Number of prefill tokens processed.", this.promptTokens);
    counter(
      "vllm:generation_tokens",
      "Number of generation tokens processed.",
      this.generationTokens,
    );
    counter(
      "vllm:prefix_cache_queries",
      "Prefix cache queries, in terms of number of queried tokens.",
      this.prefixQueries,
    );
    counter(
      "vllm:prefix_cache_hits",
      "Prefix cache hits, in terms of number of cached tokens.",
      this.prefixHits,
    );
    counter("vllm:request_success", "Count of successfully processed requests.", this.finished);
    if (specAcceptance !== undefined) {
      counter("vllm:spec_decode_num_drafts", "Number of spec decoding drafts.", this.specDrafts);
      counter("vllm:spec_decode_num_draft_tokens", "Number of draft tokens.", this.specDraftTokens);
      counter(
        "vllm:spec_decode_num_accepted_tokens",
        "Number of accepted tokens.",
        Math.round(this.specDraftTokens * specAcceptance),
      );
    }
    histogram(
      "vllm:time_to_first_token_seconds",
      "Histogram of time to first token in seconds.",
      this.ttft,
    );
    histogram(
      "vllm:inter_token_latency_seconds",
      "Histogram of inter-token latency in seconds.",
      this.itl,
    );
    histogram(
      "vllm:request_queue_time_seconds",
      "Histogram of time spent in WAITING phase for request.",
      this.queueTime,
    );
    histogram(
      "vllm:e2e_request_latency_seconds",
      "Histogram of e2e request latency in seconds.",
      this.e2e,
    );
    return `${out.join("\n")}\n`;
  }

  private llamacpp(g: EngineGauges): string {
    const rows: [string, string, "counter" | "gauge", number][] = [
      [
        "llamacpp:prompt_tokens_total",
        "Number of prompt tokens processed.",
        "counter",
        this.promptTokens,
      ],
      [
        "llamacpp:tokens_predicted_total",
        "Number of generation tokens processed.",
        "counter",
        this.generationTokens,
      ],
      [
        "llamacpp:kv_cache_usage_ratio",
        "KV-cache usage. 1 means 100 percent usage.",
        "gauge",
        g.kvCacheUsage,
      ],
      ["llamacpp:requests_processing", "Number of requests processing.", "gauge", g.running],
      ["llamacpp:requests_deferred", "Number of requests deferred.", "gauge", g.waiting],
    ];
    return rows.map(([n, h, t, v]) => `# HELP ${n} ${h}\n# TYPE ${n} ${t}\n${n} ${v}\n`).join("");
  }
}

/** As Python prints a float: 3.0, 0.25. */
const float = (v: number) => (Number.isInteger(v) ? v.toFixed(1) : String(v));
