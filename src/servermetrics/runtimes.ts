// What each serving runtime calls the series the server view shows. Names are
// from each project's metrics docs and source (late 2026); where a runtime
// renamed a series the newer name comes first and the older one still maps.
// A series a runtime does not expose is simply absent from its view.

import { RUNTIMES, type Runtime } from "../common/runtimes.ts";

/** A runtime is recognised by its metric names' prefix. */
const PREFIXES: Record<Runtime, string> = {
  vllm: "vllm:",
  sglang: "sglang:",
  tgi: "tgi_",
  llamacpp: "llamacpp:",
};

/** Gauges sampled during the window. `ratio`: a 0–1 share, averaged (not summed) over engines. */
export const GAUGES = {
  running: {
    ratio: false,
    names: {
      vllm: ["vllm:num_requests_running"],
      sglang: ["sglang:num_running_reqs"],
      tgi: ["tgi_batch_current_size"],
      llamacpp: ["llamacpp:requests_processing"],
    },
  },
  waiting: {
    ratio: false,
    names: {
      vllm: ["vllm:num_requests_waiting"],
      sglang: ["sglang:num_queue_reqs"],
      tgi: ["tgi_queue_size"],
      llamacpp: ["llamacpp:requests_deferred"],
    },
  },
  kv_cache_usage: {
    ratio: true,
    names: {
      vllm: ["vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"],
      sglang: ["sglang:token_usage"],
      tgi: [],
      llamacpp: ["llamacpp:kv_cache_usage_ratio"],
    },
  },
} as const satisfies Record<string, { ratio: boolean; names: Record<Runtime, readonly string[]> }>;
export type GaugeSeries = keyof typeof GAUGES;

/** Counters, as deltas over the trial (sample names, with `_total`). */
export const COUNTERS = {
  preemptions: {
    vllm: ["vllm:num_preemptions_total"],
    sglang: ["sglang:num_retracted_requests_total"],
    tgi: [],
    llamacpp: [],
  },
  // Prefix-cache hit rate = hits ÷ queries, both in prompt tokens.
  prefix_cache_hits: {
    vllm: ["vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"],
    sglang: ["sglang:cached_tokens_total"],
    tgi: [],
    llamacpp: [],
  },
  prefix_cache_queries: {
    vllm: ["vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"],
    sglang: ["sglang:prompt_tokens_total"],
    tgi: [],
    llamacpp: [],
  },
  // Speculative decoding (vLLM V1): acceptance = accepted ÷ draft tokens;
  // tokens per step = 1 + accepted ÷ drafts (the verified token included).
  spec_decode_drafts: {
    vllm: ["vllm:spec_decode_num_drafts_total"],
    sglang: [],
    tgi: [],
    llamacpp: [],
  },
  spec_decode_draft_tokens: {
    vllm: ["vllm:spec_decode_num_draft_tokens_total"],
    sglang: [],
    tgi: [],
    llamacpp: [],
  },
  spec_decode_accepted_tokens: {
    vllm: ["vllm:spec_decode_num_accepted_tokens_total"],
    sglang: [],
    tgi: [],
    llamacpp: [],
  },
} as const satisfies Record<string, Record<Runtime, readonly string[]>>;
export type CounterSeries = keyof typeof COUNTERS;

/** Histograms in seconds, as bucket deltas over the trial. */
export const HISTOGRAMS = {
  ttft: {
    vllm: ["vllm:time_to_first_token_seconds"],
    sglang: ["sglang:time_to_first_token_seconds"],
    tgi: [],
    llamacpp: [],
  },
  queue_time: {
    vllm: ["vllm:request_queue_time_seconds"],
    sglang: ["sglang:queue_time_seconds"],
    tgi: ["tgi_request_queue_duration"],
    llamacpp: [],
  },
  itl: {
    vllm: ["vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds"],
    sglang: ["sglang:inter_token_latency_seconds", "sglang:time_per_output_token_seconds"],
    // TGI's is each request's mean time per token: a TPOT, the nearest it has.
    tgi: ["tgi_request_mean_time_per_token_duration"],
    llamacpp: [],
  },
  e2e: {
    vllm: ["vllm:e2e_request_latency_seconds"],
    sglang: ["sglang:e2e_request_latency_seconds"],
    tgi: ["tgi_request_duration"],
    llamacpp: [],
  },
} as const satisfies Record<string, Record<Runtime, readonly string[]>>;
export type HistogramSeries = keyof typeof HISTOGRAMS;

/** The runtime whose prefix most sample names carry; null when none does. */
export function detectRuntime(sampleNames: Iterable<string>): Runtime | null {
  const counts = new Map<Runtime, number>();
  for (const name of sampleNames) {
    for (const r of RUNTIMES)
      if (name.startsWith(PREFIXES[r])) counts.set(r, (counts.get(r) ?? 0) + 1);
  }
  let best: Runtime | null = null;
  for (const [r, n] of counts) if (best === null || n > (counts.get(best) ?? 0)) best = r;
  return best;
}

/** The sample names of a runtime's gauges: all a scrape inside the window needs. */
export function gaugeSamples(runtime: Runtime): Set<string> {
  return new Set(Object.values(GAUGES).flatMap((g) => g.names[runtime]));
}
