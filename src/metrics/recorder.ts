// Aggregates the measured requests of one trial as they finish: outcome
// counts, latency histograms, token counts, SLO-meeting requests and a few
// examples per failure class. Per-request memory ends here: nothing grows
// with the request count but the histograms.

import { OUTCOMES, type Outcome, zeroOutcomes } from "../common/outcomes.ts";
import type { Slo } from "../common/slo.ts";
import { exhaustedQuota } from "../load/outcome.ts";
import { outputTokens, type RequestRecord } from "../load/record.ts";
import { errorTypeCode } from "../openai/error-body.ts";
import { LatencyHistogram } from "./histogram.ts";
import { RateLimitTally } from "./rate-limits.ts";
import { ReasoningTally } from "./reasoning.ts";

/** TPOT of one request: (end − first output) / (output tokens − 1); undefined below 2 tokens. */
export function tpotMs(r: RequestRecord, tokens: number): number | undefined {
  return tokens > 1 ? (r.endMs - r.firstOutputMs) / (tokens - 1) : undefined;
}

/** Whether the request met every SLO, its latencies counted from its scheduled time plus `lateMs`. */
export function meetsSlo(
  slo: Slo,
  r: RequestRecord,
  tpot: number | undefined,
  lateMs: number,
): boolean {
  const from = r.scheduledMs + lateMs;
  if (slo.ttftMs !== undefined && r.firstOutputMs - from > slo.ttftMs) return false;
  if (slo.e2elMs !== undefined && r.endMs - from > slo.e2elMs) return false;
  if (slo.itlMs !== undefined && r.gapsMs.length > 0) {
    const meanGapMs = r.gapsMs.reduce((a, b) => a + b, 0) / r.gapsMs.length;
    if (meanGapMs > slo.itlMs) return false;
  }
  return slo.tpotMs === undefined || tpot === undefined || tpot <= slo.tpotMs;
}

export interface FailureExample {
  index: number;
  status: number;
  /** The error object's `type` and `code`, from the body or the in-stream error. */
  error_type: string | undefined;
  error_code: string | undefined;
  detail: string | undefined;
  headers: Record<string, string> | undefined;
  body: string | undefined;
}

export const EXAMPLES_PER_CLASS = 3;
export const MAX_FINISH_REASONS = 8;
/** More tokens than this per chunk: chunks carry several tokens. */
export const MULTI_TOKEN_CHUNK = 1.05;

export class TrialRecorder {
  readonly outcomes = zeroOutcomes();
  /** From the scheduled send time (primary). */
  readonly ttft = new LatencyHistogram();
  readonly e2el = new LatencyHistogram();
  /** From the actual send (service time). */
  readonly ttftService = new LatencyHistogram();
  readonly e2elService = new LatencyHistogram();
  readonly firstByte = new LatencyHistogram();
  readonly tpot = new LatencyHistogram();
  readonly itl = new LatencyHistogram();
  /**
   * Each gap divided by its request's tokens per chunk (usage ÷ chunks), for
   * requests whose chunks carry several tokens (speculative decoding, batched
   * streaming): the ITL a token saw, beside the ITL per chunk.
   */
  readonly itlPerToken = new LatencyHistogram();
  /** dispatch − (scheduled or slot-free time): the generator's own lag. */
  readonly sendSkew = new LatencyHistogram();
  /** TTFT and E2EL as they would be had every send been on time (the skew taken out). */
  readonly ttftOnTime = new LatencyHistogram();
  readonly e2elOnTime = new LatencyHistogram();
  /** Sends later than lateSendMs. */
  lateSends = 0;
  /** Requests not sent because the client already held its limit of open requests. */
  openLimited = 0;
  /** Time waited for a max-concurrency slot. */
  readonly slotWait = new LatencyHistogram();
  readonly examples: Partial<Record<Outcome, FailureExample[]>> = {};
  /** Reasoning before the answer, and cached prompt tokens, from the ok requests' streams and usage. */
  readonly reasoning = new ReasoningTally();
  /** The ok requests' finish reasons (at most MAX_FINISH_REASONS names, the rest as "other"). */
  readonly finishReasons: Record<string, number> = {};
  readonly rateLimits = new RateLimitTally();
  outputTokens = 0;
  outputChunks = 0;
  /** ok requests whose server reported usage, and their tokens and chunks. */
  usageRequests = 0;
  usageTokens = 0;
  usageChunks = 0;
  /** ok requests whose usage is exactly one more than their output chunks (an unstreamed EOS). */
  usageWithEos = 0;
  /** Requests sent again on a fresh connection. */
  reconnects = 0;
  good = 0;
  /** ok requests that met every SLO counted from when they were actually sent: what on-time sends would have given. */
  goodOnTime = 0;
  private readonly slo: Slo;
  private readonly timeoutMs: number;
  /** A send this late counts as late (max-late-sends); undefined: not checked (bursts). */
  readonly lateSendMs: number | undefined;
  /** The windows the offered rate is checked over (ms); undefined: not checked (bursts, closed loop). */
  readonly offeredWindowMs: number | undefined;
  /** Per window (by index on the clock): requests scheduled in it, and sent in it. */
  readonly offered = new Map<number, { scheduled: number; sent: number }>();
  /** Where the offered-rate windows start on the clock: the trial's start, once known. */
  offeredOriginMs = 0;

  constructor(slo: Slo, timeoutMs: number, lateSendMs?: number, offeredWindowMs?: number) {
    this.slo = slo;
    this.timeoutMs = timeoutMs;
    this.lateSendMs = lateSendMs;
    this.offeredWindowMs = offeredWindowMs;
  }

  /** Counts a request in the window it was due and the one it went out in. */
  private addOffered(r: RequestRecord, dispatched: boolean): void {
    const w = this.offeredWindowMs;
    if (w === undefined) return;
    const at = (ms: number) => {
      const k = Math.floor((ms - this.offeredOriginMs) / w);
      const window = this.offered.get(k) ?? { scheduled: 0, sent: 0 };
      this.offered.set(k, window);
      return window;
    };
    at(r.scheduledMs).scheduled++;
    if (dispatched) at(r.dispatchMs).sent++;
  }

  get scheduled(): number {
    return OUTCOMES.reduce((sum, o) => sum + this.outcomes[o], 0);
  }

  add(r: RequestRecord): void {
    const outcome = r.outcome;
    if (outcome === undefined)
      throw new Error("internal error: a request recorded before its outcome");
    this.outcomes[outcome]++;
    this.reconnects += r.reconnects;
    const dispatched = !Number.isNaN(r.dispatchMs);
    const skewMs = dispatched ? r.dispatchMs - r.slotMs : 0;
    this.addOffered(r, dispatched);
    if (dispatched) {
      this.sendSkew.record(skewMs);
      if (this.lateSendMs !== undefined && skewMs > this.lateSendMs) this.lateSends++;
      if (r.slotMs > r.scheduledMs) this.slotWait.record(r.slotMs - r.scheduledMs);
    }
    this.rateLimits.add(r.headers);
    if (r.openLimited) this.openLimited++;
    if (outcome === "ok") this.addOk(r, skewMs);
    else if (outcome === "censored" || outcome === "unsent")
      this.addCensored(r, outcome, dispatched, skewMs);
    else this.addExample(outcome, r);
  }

  private addOk(r: RequestRecord, skewMs: number): void {
    this.ttft.record(r.firstOutputMs - r.scheduledMs);
    this.ttftOnTime.record(r.firstOutputMs - r.scheduledMs - skewMs);
    this.ttftService.record(r.firstOutputMs - r.dispatchMs);
    this.e2el.record(r.endMs - r.scheduledMs);
    this.e2elOnTime.record(r.endMs - r.scheduledMs - skewMs);
    this.e2elService.record(r.endMs - r.dispatchMs);
    if (!Number.isNaN(r.firstByteMs)) this.firstByte.record(r.firstByteMs - r.scheduledMs);
    for (const gap of r.gapsMs) this.itl.record(gap);
    const tokens = outputTokens(r);
    const tpot = tpotMs(r, tokens);
    if (tpot !== undefined) this.tpot.record(tpot);
    this.outputTokens += tokens;
    this.outputChunks += r.outputChunks;
    this.reasoning.add(r);
    this.countFinish(r.finishReason ?? "none");
    if (r.usageCompletionTokens !== undefined) {
      this.usageRequests++;
      this.usageTokens += r.usageCompletionTokens;
      this.usageChunks += r.outputChunks;
      if (r.usageCompletionTokens === r.outputChunks + 1) this.usageWithEos++;
      const perChunk = r.usageCompletionTokens / Math.max(1, r.outputChunks);
      if (perChunk > MULTI_TOKEN_CHUNK)
        for (const gap of r.gapsMs) this.itlPerToken.record(gap / perChunk);
    }
    if (meetsSlo(this.slo, r, tpot, 0)) this.good++;
    if (meetsSlo(this.slo, r, tpot, skewMs)) this.goodOnTime++;
  }

  /** Timed out or never sent: latency is only known to be ≥ the timeout. */
  private addCensored(
    r: RequestRecord,
    outcome: Outcome,
    dispatched: boolean,
    skewMs: number,
  ): void {
    const serviceCensorMs = r.deadlineMs - r.dispatchMs;
    if (r.firstOutputMs <= r.deadlineMs) {
      this.ttft.record(r.firstOutputMs - r.scheduledMs);
      this.ttftOnTime.record(r.firstOutputMs - r.scheduledMs - skewMs);
      this.ttftService.record(r.firstOutputMs - r.dispatchMs);
      for (const gap of r.gapsMs) this.itl.record(gap);
    } else {
      this.ttft.recordCensored(this.timeoutMs);
      this.ttftOnTime.recordCensored(this.timeoutMs);
      if (dispatched) this.ttftService.recordCensored(serviceCensorMs);
    }
    this.e2el.recordCensored(this.timeoutMs);
    this.e2elOnTime.recordCensored(this.timeoutMs);
    if (dispatched) this.e2elService.recordCensored(serviceCensorMs);
    this.addExample(outcome, r);
  }

  /** Counts n requests that finished for this reason. */
  countFinish(reason: string, n = 1): void {
    const known = Object.hasOwn(this.finishReasons, reason);
    const name =
      known || Object.keys(this.finishReasons).length < MAX_FINISH_REASONS ? reason : "other";
    this.finishReasons[name] = (this.finishReasons[name] ?? 0) + n;
  }

  private addExample(outcome: Outcome, r: RequestRecord): void {
    const list = this.examples[outcome] ?? [];
    this.examples[outcome] = list;
    if (list.length >= EXAMPLES_PER_CLASS) return;
    const { type, code } = errorTypeCode(r.streamError ?? r.body);
    list.push({
      index: r.index,
      status: r.status,
      error_type: type,
      error_code: code,
      detail: r.streamError ?? r.protocolError ?? r.transportError ?? describeEnd(r),
      headers: r.headers,
      body: r.body,
    });
  }
}

function describeEnd(r: RequestRecord): string | undefined {
  switch (r.outcome) {
    case "censored":
      return `no end of stream within the timeout (${r.outputChunks} output chunks received)`;
    case "unsent":
      return r.openLimited
        ? "not sent: the client already held its limit of open requests"
        : "never dispatched before its deadline";
    case "truncated":
      return `stream ended without ${r.sawDone ? "a finish_reason" : "[DONE]"}${r.incompleteEvent ? " inside an event" : ""}`;
    case "empty":
      return `no content and no tool call; finish_reason ${r.finishReason}`;
    case "refused":
      return r.refusal ? "a refusal instead of an answer" : "finish_reason content_filter";
    case "finish_error":
      return `finish_reason ${JSON.stringify(r.finishReason?.slice(0, 40))} is none of stop, length, tool_calls, content_filter`;
    case "short":
      return `${outputTokens(r)} of ${r.fixedTokens} fixed output tokens; finish_reason ${r.finishReason}`;
    case "rate_limited_quota": {
      const spent = exhaustedQuota(r.headers, r.tokensAsked);
      if (!spent) return undefined;
      const per = spent.dimension === "tokens" ? "tokens" : "requests";
      return `the ${per}-per-minute quota: ${spent.remaining} ${per} left${spent.dimension === "tokens" && r.tokensAsked > 0 ? `, this request asks for ${r.tokensAsked}` : ""}`;
    }
    default:
      return undefined;
  }
}
