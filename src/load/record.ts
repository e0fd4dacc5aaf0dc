// What the client learns about one request. Times are from the injected
// monotonic clock (ms); NaN means "did not happen".

import type { Outcome } from "../common/outcomes.ts";

export interface RequestRecord {
  index: number;
  warmup: boolean;
  scheduledMs: number;
  /** When a concurrency slot became free (= scheduledMs when none was waited for). */
  slotMs: number;
  dispatchMs: number;
  headersMs: number;
  firstByteMs: number;
  /** First chunk carrying content, reasoning or a tool call (role-only chunks do not count). */
  firstOutputMs: number;
  /** First chunk carrying answer content or a tool call (= firstOutputMs unless the model reasons first). */
  firstAnswerMs: number;
  lastOutputMs: number;
  endMs: number;
  /** scheduledMs + request timeout: not finished by then = censored. */
  deadlineMs: number;
  status: number;
  /** Output-bearing chunks, and the gaps between consecutive ones (ITL samples). */
  outputChunks: number;
  /** Output chunks that carried reasoning (a reasoning model's thinking). */
  reasoningChunks: number;
  gapsMs: number[];
  usagePromptTokens: number | undefined;
  usageCompletionTokens: number | undefined;
  /** usage's reasoning tokens and cached prompt tokens, when the server reports them. */
  usageReasoningTokens: number | undefined;
  usageCachedTokens: number | undefined;
  /** Output tokens the workload's tokenizer counted in the streamed text, when the server sent no usage. */
  countedCompletionTokens: number | undefined;
  finishReason: string | undefined;
  /** The model refused: a `refusal` delta or message (OpenAI's structured refusals). */
  refusal: boolean;
  sawDone: boolean;
  /** Excerpt of an in-stream error object. */
  streamError: string | undefined;
  /** What was malformed: non-JSON data, a non-SSE body, events after [DONE]… */
  protocolError: string | undefined;
  /** The connection failed or closed (before or after the headers). */
  transportError: string | undefined;
  /** The stream stopped inside an event. */
  incompleteEvent: boolean;
  timedOut: boolean;
  /** Waited for a max-concurrency slot: a deadline passed while waiting is the server's, not the client's. */
  queued: boolean;
  /** Not sent: the client already held its limit of open requests (OPEN_LIMIT). */
  openLimited: boolean;
  /** Times the request was sent again on a fresh connection (a reused socket the server had closed). */
  reconnects: number;
  /** Expected output tokens when the workload fixes them (ignore_eos + max_tokens). */
  fixedTokens: number | undefined;
  /** Prompt and max_tokens tokens the request asks for (0: unknown): a quota is spent on both. */
  tokensAsked: number;
  /** Bounded excerpts, kept for non-2xx responses and errors; a stream keeps its rate-limit headers. */
  headers: Record<string, string> | undefined;
  /** The replica that answered: the replica header's value (the target's replicaHeader), when it names one. */
  replica: string | undefined;
  body: string | undefined;
  /** The streamed answer's text, kept only where it is needed (a session's next turn). */
  text: string | undefined;
  outcome: Outcome | undefined;
}

/**
 * What one process holds open at once: requests (each about 25 kB: its
 * socket, parser and record) and their bodies (a million-token prompt is
 * 4 MB, kept for a resend). These keep the CLI within its memory budget
 * (bench/memory.ts). A request due beyond either is not sent — the client,
 * not the server, could not keep up — and the trial is invalid
 * (metrics/validity.ts), never a server's failure.
 */
export const OPEN_LIMIT = { requests: 10_000, bodyBytes: 256 * 2 ** 20 } as const;
export type OpenLimit = { requests: number; bodyBytes: number };

/** A worker thread's share of the process's open limit: rounded up, as its slice of the plan is. */
export function openLimitShare(count: number): OpenLimit {
  return {
    requests: Math.ceil(OPEN_LIMIT.requests / count),
    bodyBytes: Math.ceil(OPEN_LIMIT.bodyBytes / count),
  };
}

export function newRecord(
  index: number,
  warmup: boolean,
  scheduledMs: number,
  deadlineMs: number,
  fixedTokens: number | undefined,
): RequestRecord {
  return {
    index,
    warmup,
    scheduledMs,
    slotMs: scheduledMs,
    dispatchMs: Number.NaN,
    headersMs: Number.NaN,
    firstByteMs: Number.NaN,
    firstOutputMs: Number.NaN,
    firstAnswerMs: Number.NaN,
    lastOutputMs: Number.NaN,
    endMs: Number.NaN,
    deadlineMs,
    status: 0,
    outputChunks: 0,
    reasoningChunks: 0,
    gapsMs: [],
    usagePromptTokens: undefined,
    usageCompletionTokens: undefined,
    usageReasoningTokens: undefined,
    usageCachedTokens: undefined,
    countedCompletionTokens: undefined,
    finishReason: undefined,
    refusal: false,
    sawDone: false,
    streamError: undefined,
    protocolError: undefined,
    transportError: undefined,
    incompleteEvent: false,
    timedOut: false,
    queued: false,
    openLimited: false,
    reconnects: 0,
    fixedTokens,
    tokensAsked: 0,
    headers: undefined,
    replica: undefined,
    body: undefined,
    text: undefined,
    outcome: undefined,
  };
}

/** Output tokens: from usage when the server sent it, else the tokenizer's count, else output-bearing chunks. */
export function outputTokens(r: RequestRecord): number {
  return r.usageCompletionTokens ?? r.countedCompletionTokens ?? r.outputChunks;
}
