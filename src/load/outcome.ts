// Exactly one outcome class per scheduled request (DESIGN.md, "Outcome classes").
// HTTP 200 is not success: an empty stream, a stream without finish_reason or
// [DONE], an in-band error, a malformed stream or a short fixed-length output
// each have their own class; so have a refusal and a finish_reason outside
// the documented set.

import { DOCUMENTED_FINISH_REASONS, type Outcome } from "../common/outcomes.ts";
import { outputTokens, type RequestRecord } from "./record.ts";

/**
 * Which quota a 429 ran into, from its own headers: a dimension with 0
 * remaining, or tokens remaining fewer than the request asks for (its prompt
 * and max_tokens); null when the headers do not tell.
 */
export function exhaustedQuota(
  headers: Record<string, string> | undefined,
  tokensAsked: number,
): { dimension: "requests" | "tokens"; remaining: number } | null {
  for (const dimension of ["requests", "tokens"] as const) {
    const text = headers?.[`x-ratelimit-remaining-${dimension}`]?.trim();
    const remaining = text === undefined || text === "" ? Number.NaN : Number(text);
    if (!(remaining >= 0)) continue;
    if (remaining === 0 || (dimension === "tokens" && tokensAsked > remaining))
      return { dimension, remaining };
  }
  return null;
}

/**
 * Evidence that a 429 is about the caller's quota rather than the server's
 * capacity: a quota its headers show spent (or with fewer tokens left than the
 * request asks for), or a quota error in its body.
 */
function quotaEvidence(r: RequestRecord): boolean {
  if (exhaustedQuota(r.headers, r.tokensAsked) !== null) return true;
  return /insufficient_quota|quota|rate_limit_exceeded|"type"\s*:\s*"(requests|tokens)"/i.test(
    r.body ?? "",
  );
}

function capacityEvidence(r: RequestRecord): boolean {
  return /overload|capacity|server_busy|too many requests in (the )?queue|slow_down/i.test(
    r.body ?? "",
  );
}

export function classify(r: RequestRecord): Outcome {
  // Never sent: the client's lateness or its open limit (unsent), unless it waited for a slot
  // the server held until its deadline (censored).
  if (Number.isNaN(r.dispatchMs)) return r.queued && !r.openLimited ? "censored" : "unsent";
  // Not finished by the deadline: censored, whatever came before.
  if (r.timedOut || !(r.endMs <= r.deadlineMs)) return "censored";
  if (r.status === 0) return "connect_error";
  if (r.status === 429) {
    if (quotaEvidence(r)) return "rate_limited_quota";
    return capacityEvidence(r) ? "overloaded" : "rate_limited";
  }
  if (r.status === 503 || r.status === 529 || r.status === 498) return "overloaded";
  if (r.status >= 500) return "http_5xx";
  if (r.status >= 400) return "http_4xx";
  if (r.status < 200 || r.status >= 300) return "protocol_error";
  if (r.streamError !== undefined) return "stream_error";
  if (r.protocolError !== undefined) return "protocol_error";
  if (r.transportError !== undefined || r.incompleteEvent || !r.sawDone || !r.finishReason) {
    return "truncated";
  }
  // A refusal is an answer of its own, apart from a silent drop.
  if (r.refusal || r.finishReason === "content_filter") return "refused";
  // An invented finish_reason ("error", "abort") makes SDK retry and truncation logic misfire.
  if (!DOCUMENTED_FINISH_REASONS.includes(r.finishReason)) return "finish_error";
  if (r.outputChunks === 0) return "empty";
  if (
    r.fixedTokens !== undefined &&
    r.finishReason !== "length" &&
    outputTokens(r) < r.fixedTokens
  ) {
    return "short";
  }
  return "ok";
}
