// One line of the requests file: what happened to one scheduled request of
// one trial, flat (the same columns in JSONL and CSV), times in ms from the
// trial's start (its schedule's zero), null for what did not happen.
// schemas/requests.schema.json describes it.

import type { Arm } from "../common/arms.ts";
import type { Outcome } from "../common/outcomes.ts";
import type { Slo } from "../common/slo.ts";
import { outputTokens, type RequestRecord } from "../load/record.ts";
import { meetsSlo, tpotMs } from "../metrics/recorder.ts";

export const REQUESTS_SCHEMA = "llm-perf-gate/requests@1";

/** Which trial a request belongs to, as the run names it. */
export interface TrialTag {
  /** 1-based, in the order the run measured its trials (re-runs and sweep points included). */
  trial: number;
  /** "pair 2", "sweep 4 req/s", "measure". */
  label: string;
  arm: Arm | null;
  /** 1-based; null outside the pairs (sweep points, measure). */
  pair: number | null;
  /** 0 for a pair's first run, 1… for its re-runs; null outside the pairs. */
  attempt: number | null;
}

/** What the trial knows of a request beyond its record. */
export interface TrialContext {
  /** The trial's start on the monotonic clock, and the same instant as Unix time (ms). */
  startMs: number;
  startUnixMs: number;
  slo: Slo;
  session: number;
  turn: number;
  /** max_tokens sent (null: none). */
  requestedOutputTokens: number | null;
  /** Prompt tokens the workload meant to send; null when it cannot know (a later turn's history). */
  intendedPromptTokens: number | null;
}

export const ERROR_EXCERPT_CHARS = 200;
const FINISH_REASON_CHARS = 40;

/** The columns, in order: the CSV header and the JSON keys. */
export const REQUEST_COLUMNS = [
  "trial",
  "label",
  "arm",
  "pair",
  "attempt",
  "index",
  "session",
  "turn",
  "trial_start_unix_ms",
  "scheduled_ms",
  "sent_ms",
  "first_byte_ms",
  "first_token_ms",
  "first_answer_ms",
  "last_token_ms",
  "end_ms",
  "send_lag_ms",
  "ttft_ms",
  "e2el_ms",
  "tpot_ms",
  "itl_count",
  "itl_mean_ms",
  "itl_p50_ms",
  "itl_max_ms",
  "output_chunks",
  "reasoning_chunks",
  "output_tokens",
  "output_tokens_server",
  "output_tokens_counted",
  "output_tokens_requested",
  "output_tokens_reasoning",
  "prompt_tokens_intended",
  "prompt_tokens_server",
  "prompt_tokens_cached",
  "finish_reason",
  "outcome",
  "status",
  "good",
  "reconnects",
  "queued",
  "error",
] as const;

export type RequestLine = Record<
  (typeof REQUEST_COLUMNS)[number],
  string | number | boolean | null
>;

/** µs precision; null for a time that did not happen. */
const ms = (value: number): number | null =>
  Number.isFinite(value) ? Math.round(value * 1000) / 1000 : null;

const excerpt = (text: string | undefined, chars: number): string | null =>
  text === undefined ? null : text.length <= chars ? text : `${text.slice(0, chars - 1)}…`;

function itlSummary(gapsMs: readonly number[]) {
  if (gapsMs.length === 0) return { count: 0, mean: null, p50: null, max: null };
  const sorted = [...gapsMs].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  const p50 = sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
  return { count: sorted.length, mean: ms(mean), p50: ms(p50), max: ms(sorted.at(-1) ?? 0) };
}

const redactOptional = (text: string | undefined, redact: (t: string) => string) =>
  text === undefined ? undefined : redact(text);

/** The error the request ended with, if any: in-stream, protocol, transport, or a non-2xx body. */
function errorOf(r: RequestRecord): string | undefined {
  return (
    r.streamError ?? r.protocolError ?? r.transportError ?? (r.status >= 300 ? r.body : undefined)
  );
}

/** The line of a request; `redact` runs on the server's texts before they are cut, so no part of a secret survives the cut. */
export function requestLine(
  tag: TrialTag,
  r: RequestRecord,
  at: TrialContext,
  redact: (text: string) => string = (t) => t,
): RequestLine {
  const outcome: Outcome | undefined = r.outcome;
  const from = (t: number) => ms(t - at.startMs);
  const since = (t: number) => ms(t - r.scheduledMs);
  const tokens = outputTokens(r);
  const tpot = outcome === "ok" ? tpotMs(r, tokens) : undefined;
  const itl = itlSummary(r.gapsMs);
  return {
    ...tag,
    index: r.index,
    session: at.session,
    turn: at.turn,
    trial_start_unix_ms: Math.round(at.startUnixMs),
    scheduled_ms: from(r.scheduledMs),
    sent_ms: from(r.dispatchMs),
    first_byte_ms: from(r.firstByteMs),
    first_token_ms: from(r.firstOutputMs),
    first_answer_ms: from(r.firstAnswerMs),
    last_token_ms: from(r.lastOutputMs),
    end_ms: from(r.endMs),
    send_lag_ms: ms(r.dispatchMs - r.slotMs),
    ttft_ms: since(r.firstOutputMs),
    e2el_ms: since(r.endMs),
    tpot_ms: tpot === undefined ? null : ms(tpot),
    itl_count: itl.count,
    itl_mean_ms: itl.mean,
    itl_p50_ms: itl.p50,
    itl_max_ms: itl.max,
    output_chunks: r.outputChunks,
    reasoning_chunks: r.reasoningChunks,
    output_tokens: tokens,
    output_tokens_server: r.usageCompletionTokens ?? null,
    output_tokens_counted: r.countedCompletionTokens ?? null,
    output_tokens_requested: at.requestedOutputTokens,
    output_tokens_reasoning: r.usageReasoningTokens ?? null,
    prompt_tokens_intended: at.intendedPromptTokens,
    prompt_tokens_server: r.usagePromptTokens ?? null,
    prompt_tokens_cached: r.usageCachedTokens ?? null,
    finish_reason: excerpt(r.finishReason && redact(r.finishReason), FINISH_REASON_CHARS),
    outcome: outcome ?? null,
    status: r.status,
    good: outcome === "ok" ? meetsSlo(at.slo, r, tpot, 0) : null,
    reconnects: r.reconnects,
    queued: r.queued,
    error: excerpt(redactOptional(errorOf(r), redact), ERROR_EXCERPT_CHARS),
  };
}

/** A request sent apart from a trial's schedule (an accuracy item): what its line records. */
export interface ApartRequest {
  /** Its place in what was sent (an accuracy item's place in its suite). */
  index: number;
  /** ms from the run's start; null: did not happen. */
  sentMs: number;
  headersMs: number | null;
  endMs: number | null;
  status: number;
  outcome: Outcome;
  finishReason: string | null;
  error: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  requestedTokens: number;
  /** Sends beyond the first (a retry after a failure). */
  resends: number;
}

/**
 * The line of a request sent apart from a schedule: no schedule, so it was
 * due when it was sent; not streamed, so no token times; its end-to-end time
 * from the send.
 */
export function apartLine(
  tag: TrialTag,
  r: ApartRequest,
  startUnixMs: number,
  redact: (text: string) => string = (t) => t,
): RequestLine {
  const e2el = r.endMs === null ? null : ms(r.endMs - r.sentMs);
  return {
    ...tag,
    index: r.index,
    session: r.index,
    turn: 0,
    trial_start_unix_ms: Math.round(startUnixMs),
    scheduled_ms: ms(r.sentMs),
    sent_ms: ms(r.sentMs),
    first_byte_ms: r.headersMs === null ? null : ms(r.headersMs),
    first_token_ms: null,
    first_answer_ms: null,
    last_token_ms: null,
    end_ms: r.endMs === null ? null : ms(r.endMs),
    send_lag_ms: 0,
    ttft_ms: null,
    e2el_ms: e2el,
    tpot_ms: null,
    itl_count: 0,
    itl_mean_ms: null,
    itl_p50_ms: null,
    itl_max_ms: null,
    output_chunks: 0,
    reasoning_chunks: 0,
    output_tokens: r.completionTokens ?? 0,
    output_tokens_server: r.completionTokens,
    output_tokens_counted: null,
    output_tokens_requested: r.requestedTokens,
    output_tokens_reasoning: null,
    prompt_tokens_intended: null,
    prompt_tokens_server: r.promptTokens,
    prompt_tokens_cached: null,
    finish_reason: excerpt(
      r.finishReason === null ? undefined : redact(r.finishReason),
      FINISH_REASON_CHARS,
    ),
    outcome: r.outcome,
    status: r.status,
    good: null,
    reconnects: r.resends,
    queued: false,
    error: excerpt(r.error === null ? undefined : redact(r.error), ERROR_EXCERPT_CHARS),
  };
}
