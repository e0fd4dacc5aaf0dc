// What a reasoning model and a prefix cache add to a trial, from the stream
// and the usage object: time to the first *answer* token beside TTFT (the
// first token of any kind, reasoning included), the reasoning / answer split,
// and the prompt tokens the server says its cache held (hosted endpoints have
// no /metrics, but their usage says it).

import type { RequestRecord } from "../load/record.ts";
import { type HistogramState, LatencyHistogram, type LatencySummary } from "./histogram.ts";

export interface ReasoningSummary {
  /** ok requests that streamed reasoning before (or instead of) their answer. */
  requests: number;
  reasoning_chunks: number;
  answer_chunks: number;
  /** Σ usage.completion_tokens_details.reasoning_tokens, and its share of those requests' completion tokens; null: no server reported it. */
  reasoning_tokens: number | null;
  reasoning_token_share: number | null;
  /** Time to the first answer token, from the scheduled send: every ok request that answered (= TTFT for one that did not reason). */
  ttfa_ms: LatencySummary;
}

export interface CachedPromptSummary {
  /** Σ usage.prompt_tokens_details.cached_tokens over the ok requests. */
  tokens: number;
  /** Of the prompt tokens those requests' usage counted. */
  share: number;
}

export interface ReasoningState {
  ttfa: HistogramState;
  requests: number;
  reasoningChunks: number;
  answerChunks: number;
  usageRequests: number;
  reasoningTokens: number;
  reasoningCompletionTokens: number;
  cachedReported: boolean;
  cachedTokens: number;
  promptTokens: number;
}

const round = (v: number, digits = 4) => Math.round(v * 10 ** digits) / 10 ** digits;

export class ReasoningTally {
  readonly ttfa = new LatencyHistogram();
  private requests = 0;
  private reasoningChunks = 0;
  private answerChunks = 0;
  private usageRequests = 0;
  private reasoningTokens = 0;
  private reasoningCompletionTokens = 0;
  private cachedReported = false;
  private cachedTokens = 0;
  private promptTokens = 0;

  /** An ok request. */
  add(r: RequestRecord): void {
    if (r.reasoningChunks > 0) this.requests++;
    this.reasoningChunks += r.reasoningChunks;
    this.answerChunks += r.outputChunks - r.reasoningChunks;
    if (!Number.isNaN(r.firstAnswerMs)) this.ttfa.record(r.firstAnswerMs - r.scheduledMs);
    if (r.usageReasoningTokens !== undefined && r.usageCompletionTokens !== undefined) {
      this.usageRequests++;
      this.reasoningTokens += r.usageReasoningTokens;
      this.reasoningCompletionTokens += r.usageCompletionTokens;
    }
    if (r.usagePromptTokens !== undefined) {
      this.promptTokens += r.usagePromptTokens;
      this.cachedTokens += r.usageCachedTokens ?? 0;
      if (r.usageCachedTokens !== undefined) this.cachedReported = true;
    }
  }

  /** Its counts, as JSON: a shard's part of a trial. */
  state(): ReasoningState {
    return {
      ttfa: this.ttfa.state(),
      requests: this.requests,
      reasoningChunks: this.reasoningChunks,
      answerChunks: this.answerChunks,
      usageRequests: this.usageRequests,
      reasoningTokens: this.reasoningTokens,
      reasoningCompletionTokens: this.reasoningCompletionTokens,
      cachedReported: this.cachedReported,
      cachedTokens: this.cachedTokens,
      promptTokens: this.promptTokens,
    };
  }

  /** Adds another tally's counts (a shard's) to this one's. */
  merge(s: ReasoningState): void {
    this.ttfa.add(LatencyHistogram.fromState(s.ttfa));
    this.requests += s.requests;
    this.reasoningChunks += s.reasoningChunks;
    this.answerChunks += s.answerChunks;
    this.usageRequests += s.usageRequests;
    this.reasoningTokens += s.reasoningTokens;
    this.reasoningCompletionTokens += s.reasoningCompletionTokens;
    this.cachedReported ||= s.cachedReported;
    this.cachedTokens += s.cachedTokens;
    this.promptTokens += s.promptTokens;
  }

  /** null when no ok request reasoned (nor did its usage say so). */
  reasoning(): ReasoningSummary | null {
    if (this.requests === 0 && this.reasoningTokens === 0) return null;
    const usage = this.usageRequests > 0;
    return {
      requests: this.requests,
      reasoning_chunks: this.reasoningChunks,
      answer_chunks: this.answerChunks,
      reasoning_tokens: usage ? this.reasoningTokens : null,
      reasoning_token_share:
        usage && this.reasoningCompletionTokens > 0
          ? round(this.reasoningTokens / this.reasoningCompletionTokens)
          : null,
      ttfa_ms: this.ttfa.summary(),
    };
  }

  /** null when no response reported cached prompt tokens. */
  cached(): CachedPromptSummary | null {
    if (!this.cachedReported || this.promptTokens === 0) return null;
    return { tokens: this.cachedTokens, share: round(this.cachedTokens / this.promptTokens) };
  }
}
