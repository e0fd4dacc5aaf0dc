// The outcome classes (DESIGN.md: exactly one per scheduled request) and what
// each failure class means in words: the guards, the headline and the
// comment say "answered 3.0 % of requests with HTTP 500", not "http_5xx".

import { recordOf } from "./arrays.ts";
import { percent } from "./format.ts";

export const OUTCOMES = [
  "ok",
  "empty",
  "refused",
  "truncated",
  "short",
  "stream_error",
  "finish_error",
  "protocol_error",
  "rate_limited_quota",
  "rate_limited",
  "overloaded",
  "http_4xx",
  "http_5xx",
  "connect_error",
  "censored",
  "unsent",
] as const;
export type Outcome = (typeof OUTCOMES)[number];
export type Failure = Exclude<Outcome, "ok">;

/**
 * The finish reasons a request may end with: the OpenAI contract's, and the
 * end-of-sequence names long-lived servers send for `stop` (TGI before 2.2:
 * `eos_token`; some hosted APIs: `eos`). Any other — `error`, `abort`, an
 * invented word — ends the request as finish_error.
 */
export const DOCUMENTED_FINISH_REASONS: readonly string[] = [
  "stop",
  "length",
  "tool_calls",
  "function_call",
  "content_filter",
  "eos_token",
  "eos",
];

/** A count per outcome class, each at 0. */
export const zeroOutcomes = (): Record<Outcome, number> => recordOf(OUTCOMES, () => 0);

/** [what the server did with them, why we call it so]. */
const FAILURE_WORDS: Record<Failure, [string, string]> = {
  empty: ["silently dropped", "an empty 200 stream"],
  refused: ["refused to answer", "a refusal, or finish_reason content_filter"],
  truncated: ["cut off", "the stream ended without finish_reason or [DONE]"],
  short: ["cut short", "fewer tokens than the fixed output length"],
  stream_error: ["failed mid-stream", "an error inside the 200 stream"],
  finish_error: ["gave a bad finish_reason on", "none of stop, length, tool_calls, content_filter"],
  protocol_error: ["garbled", "malformed SSE or JSON"],
  rate_limited_quota: ["refused by the API quota", "429 with quota evidence"],
  rate_limited: ["rate-limited", "HTTP 429"],
  overloaded: ["refused as overloaded", "HTTP 503, 529 or 429 with capacity evidence"],
  http_4xx: ["rejected", "HTTP 4xx"],
  http_5xx: ["failed", "HTTP 5xx"],
  connect_error: ["could not connect for", "the connection was refused or reset"],
  censored: ["timed out on", "no end of stream within the timeout"],
  unsent: ["never sent", "the client could not send them in time"],
};

/** "silently dropped 3.2 % of requests (an empty 200 stream)"; HTTP errors name their status. */
export function failureWords(outcome: Failure, rate: number, example?: { status: number }): string {
  const [verb, why] = FAILURE_WORDS[outcome];
  const status = example?.status;
  if ((outcome === "http_5xx" || outcome === "http_4xx") && status)
    return `answered ${percent(rate)} of requests with HTTP ${status}`;
  return `${verb} ${percent(rate)} of requests (${why})`;
}
