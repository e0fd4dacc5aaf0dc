// One trial's numbers as they go into the JSON report: outcome counts that
// add up to the scheduled count, latency summaries, tokens, throughput,
// goodput, validity and the encoded histograms.

import type { Outcome } from "../common/outcomes.ts";
import { PERCENTILE_VALUES } from "../common/percentiles.ts";
import { type Slo, type SloRecord, sloRecord } from "../common/slo.ts";
import type { ProbeReadings } from "../load/probes.ts";
import type { LatencyHistogram, LatencySummary } from "./histogram.ts";
import type { RateLimitSummary } from "./rate-limits.ts";
import type { CachedPromptSummary, ReasoningSummary } from "./reasoning.ts";
import { type FailureExample, MULTI_TOKEN_CHUNK, type TrialRecorder } from "./recorder.ts";
import {
  evaluateValidity,
  type OfferedDrift,
  type SelfCheckLimits,
  type SkewPair,
  skewEffect,
  type Validity,
  worstDrift,
} from "./validity.ts";

/** The latency metrics of a trial, by their key in reports (ms). */
export const LATENCY_METRICS = [
  "ttft_ms",
  "ttft_service_ms",
  "e2el_ms",
  "e2el_service_ms",
  "tpot_ms",
  "itl_ms",
  "first_byte_ms",
] as const;
export type LatencyMetric = (typeof LATENCY_METRICS)[number];

/** HdrHistogram compressed base64 (V2 encoding), values in microseconds. */
export interface EncodedHistograms {
  ttft_us: string;
  ttft_service_us: string;
  e2el_us: string;
  e2el_service_us: string;
  tpot_us: string;
  itl_us: string;
  send_skew_us: string;
}

/** Self-check limits as reports write them. */
export interface LimitsReport {
  percentile: string;
  max_skew_effect: number;
  max_offered_drift: number;
  max_late_sends: number | null;
  max_unsent: number;
  max_event_loop_delay_p99_ms: number;
  max_client_cpu: number;
  max_send_skew_p99_ms: number | null;
  max_gc_share: number | null;
}

export function limitsReport(l: SelfCheckLimits): LimitsReport {
  return {
    percentile: l.percentile,
    max_skew_effect: l.maxSkewEffect,
    max_offered_drift: l.maxOfferedDrift,
    max_late_sends: l.maxLateSends ?? null,
    max_unsent: l.maxUnsent,
    max_event_loop_delay_p99_ms: l.maxEventLoopDelayP99Ms,
    max_client_cpu: l.maxClientCpu,
    max_send_skew_p99_ms: l.maxSendSkewP99Ms ?? null,
    max_gc_share: l.maxGcShare ?? null,
  };
}

export interface TrialSummary {
  scheduled: number;
  window_s: number;
  outcomes: Record<Outcome, number>;
  metrics: Record<LatencyMetric, LatencySummary>;
  tokens: {
    output_total: number;
    output_chunks: number;
    /** From requests whose server reported usage (an unstreamed EOS token not counted); null without usage. */
    tokens_per_chunk: number | null;
    /** True when chunks carry several tokens, so each ITL sample spans several tokens. */
    itl_per_multi_token_chunk: boolean;
    /** Then: each gap ÷ its request's tokens per chunk (ms); null otherwise (absent in older files). */
    itl_per_token_ms?: LatencySummary | null;
    requests_with_usage: number;
    /** True when usage counts one token more than was streamed (llama.cpp counts the EOS token). */
    usage_counts_eos: boolean;
    /**
     * Prompt tokens per request: what the workload meant to send (counted at 4
     * characters per token), and what the server counted (usage.prompt_tokens:
     * its tokenizer and its chat template), over the requests that reported it.
     */
    prompt: {
      /** "estimate (4 characters per token)", or "tokenizer PATH". */
      counted_by: string;
      intended_mean: number | null;
      server_mean: number | null;
      requests_with_usage: number;
      /** Prompt tokens the server's usage says its cache held; null: not reported (absent in older files). */
      cached?: CachedPromptSummary | null;
    };
  };
  /** A reasoning model's thinking before its answer; null: no request reasoned (absent in older files). */
  reasoning?: ReasoningSummary | null;
  /** The ok requests by finish_reason (absent in older files). */
  finish_reasons?: Record<string, number>;
  /** The rate limits the server announced on its answers; null: none (absent in older files). */
  rate_limits?: RateLimitSummary | null;
  /** Requests sent again on a fresh connection after the server had closed a kept-alive one. */
  reconnects: number;
  throughput: { output_tokens_per_s: number; requests_per_s: number };
  goodput: {
    requests_per_s: number;
    attainment: number;
    good: number;
    /** Requests that met every SLO counted from their actual send: late sends made the difference. */
    good_on_time: number;
    slo: SloRecord;
  };
  validity: Validity & {
    limits: LimitsReport;
    send_skew_ms: { p50: number | null; p99: number | null; max: number | null };
    /** How much late sends moved TTFT and E2EL at the checked percentile (relative; null: unknown). */
    skew_effect: { ttft: number | null; e2el: number | null };
    /** Sends later than late_send_ms (null: not checked, for bursts). */
    late_sends: number;
    late_send_ms: number | null;
    /** The window where the offered load strayed most from the schedule; null: not checked. */
    offered_drift: OfferedDrift | null;
    unsent: number;
    event_loop_delay_ms: { p50: number; p99: number; max: number };
    gc: { count: number; total_ms: number; share_of_window: number };
    client_cpu: { share_of_core: number; user_ms: number; system_ms: number };
    /**
     * The worker threads the trial was split over (absent: one, the process's
     * own). With several, event-loop delay, GC and CPU are the busiest worker's.
     */
    workers?: number;
    capped: boolean;
    slot_wait_ms: LatencySummary;
  };
  errors: Partial<Record<Outcome, FailureExample[]>>;
  histograms: EncodedHistograms;
}

export interface TrialFacts {
  windowS: number;
  readings: ProbeReadings;
  hardStopped: boolean;
  maxConcurrency: number | undefined;
  limits: SelfCheckLimits;
  slo: Slo;
  /** Prompt tokens summed over the measured requests whose server reported usage.prompt_tokens. */
  promptTokens?: { intended: number; server: number; requests: number; countedBy: string };
}

const round = (v: number, digits = 3) => Math.round(v * 10 ** digits) / 10 ** digits;
const rounded = (v: number | null) => (v === null ? null : round(v, 4));

function promptTokens(p: TrialFacts["promptTokens"]): TrialSummary["tokens"]["prompt"] {
  const n = p?.requests ?? 0;
  return {
    counted_by: p?.countedBy ?? "estimate (4 characters per token)",
    intended_mean: p && n > 0 ? round(p.intended / n, 1) : null,
    server_mean: p && n > 0 ? round(p.server / n, 1) : null,
    requests_with_usage: n,
  };
}

/** How far late sends moved a latency percentile: measured vs on time. */
function skewPair(scheduled: LatencyHistogram, onTime: LatencyHistogram, p: number): SkewPair {
  const s = scheduled.percentile(p);
  const o = onTime.percentile(p);
  return {
    scheduled: s?.value ?? null,
    onTime: o?.value ?? null,
    censored: s?.lowerBound ?? false,
    resolutionMs: onTime.rankResolution(p) ?? null,
  };
}

/** Tokens: output, chunks, usage, and the prompt tokens meant and counted. */
function tokensOf(rec: TrialRecorder, facts: TrialFacts): TrialSummary["tokens"] {
  // One token more than was streamed, request after request, is the EOS token
  // a server counts but does not send (llama.cpp), not several tokens per chunk.
  const countsEos = rec.usageRequests > 0 && rec.usageWithEos * 2 > rec.usageRequests;
  const streamedTokens = rec.usageTokens - (countsEos ? rec.usageWithEos : 0);
  const tokensPerChunk = rec.usageChunks > 0 ? streamedTokens / rec.usageChunks : null;
  return {
    output_total: rec.outputTokens,
    output_chunks: rec.outputChunks,
    tokens_per_chunk: tokensPerChunk === null ? null : round(tokensPerChunk),
    itl_per_multi_token_chunk: tokensPerChunk !== null && tokensPerChunk > MULTI_TOKEN_CHUNK,
    itl_per_token_ms:
      tokensPerChunk !== null && tokensPerChunk > MULTI_TOKEN_CHUNK
        ? rec.itlPerToken.summary()
        : null,
    requests_with_usage: rec.usageRequests,
    usage_counts_eos: countsEos,
    prompt: { ...promptTokens(facts.promptTokens), cached: rec.reasoning.cached() },
  };
}

/** The self-checks' verdict and every reading it was judged on. */
function validityOf(rec: TrialRecorder, facts: TrialFacts): TrialSummary["validity"] {
  const windowS = facts.windowS;
  const skew = rec.sendSkew.summary();
  const slotWait = rec.slotWait.summary();
  const p = PERCENTILE_VALUES[facts.limits.percentile];
  const ttftPair = skewPair(rec.ttft, rec.ttftOnTime, p);
  const offeredDrift =
    rec.offeredWindowMs === undefined ? null : worstDrift(rec.offered, rec.offeredWindowMs);
  const e2elPair = skewPair(rec.e2el, rec.e2elOnTime, p);
  const validity = evaluateValidity(
    {
      sendSkewP99Ms: skew.p99 ?? 0,
      ttft: ttftPair,
      e2el: e2elPair,
      lateSends: rec.lateSends,
      lateSendMs: rec.lateSendMs,
      offeredDrift,
      scheduled: rec.scheduled,
      unsent: rec.outcomes.unsent,
      openLimited: rec.openLimited,
      windowMs: windowS * 1000,
      readings: facts.readings,
      slotWaits: slotWait.count,
      slotWaitP99Ms: slotWait.p99 ?? 0,
      maxConcurrency: facts.maxConcurrency,
      hardStopped: facts.hardStopped,
    },
    facts.limits,
  );
  const r = facts.readings;
  return {
    ...validity,
    limits: limitsReport(facts.limits),
    send_skew_ms: { p50: skew.p50, p99: skew.p99, max: skew.max },
    skew_effect: {
      ttft: rounded(skewEffect(ttftPair)),
      e2el: rounded(skewEffect(e2elPair)),
    },
    late_sends: rec.lateSends,
    late_send_ms: rec.lateSendMs === undefined ? null : round(rec.lateSendMs),
    offered_drift: offeredDrift,
    unsent: rec.outcomes.unsent,
    event_loop_delay_ms: {
      p50: round(r.eventLoopDelayMs.p50),
      p99: round(r.eventLoopDelayMs.p99),
      max: round(r.eventLoopDelayMs.max),
    },
    gc: {
      count: r.gc.count,
      total_ms: round(r.gc.totalMs),
      share_of_window: round(windowS > 0 ? r.gc.totalMs / (windowS * 1000) : 0, 5),
    },
    client_cpu: {
      share_of_core: round(r.cpu.shareOfCore, 4),
      user_ms: round(r.cpu.userMs, 1),
      system_ms: round(r.cpu.systemMs, 1),
    },
    capped: facts.maxConcurrency !== undefined,
    slot_wait_ms: slotWait,
  };
}

export function summarizeTrial(rec: TrialRecorder, facts: TrialFacts): TrialSummary {
  const scheduled = rec.scheduled;
  const windowS = facts.windowS;
  const perS = (n: number) => round(windowS > 0 ? n / windowS : 0);
  return {
    scheduled,
    window_s: round(windowS),
    outcomes: { ...rec.outcomes },
    metrics: {
      ttft_ms: rec.ttft.summary(),
      ttft_service_ms: rec.ttftService.summary(),
      e2el_ms: rec.e2el.summary(),
      e2el_service_ms: rec.e2elService.summary(),
      tpot_ms: rec.tpot.summary(),
      itl_ms: rec.itl.summary(),
      first_byte_ms: rec.firstByte.summary(),
    },
    tokens: tokensOf(rec, facts),
    reasoning: rec.reasoning.reasoning(),
    finish_reasons: { ...rec.finishReasons },
    rate_limits: rec.rateLimits.summary(),
    reconnects: rec.reconnects,
    throughput: {
      output_tokens_per_s: perS(rec.outputTokens),
      requests_per_s: perS(rec.outcomes.ok),
    },
    goodput: {
      requests_per_s: perS(rec.good),
      attainment: round(scheduled > 0 ? rec.good / scheduled : 0, 4),
      good: rec.good,
      good_on_time: rec.goodOnTime,
      slo: sloRecord(facts.slo),
    },
    validity: validityOf(rec, facts),
    errors: rec.examples,
    histograms: {
      ttft_us: rec.ttft.encode(),
      ttft_service_us: rec.ttftService.encode(),
      e2el_us: rec.e2el.encode(),
      e2el_service_us: rec.e2elService.encode(),
      tpot_us: rec.tpot.encode(),
      itl_us: rec.itl.encode(),
      send_skew_us: rec.sendSkew.encode(),
    },
  };
}
