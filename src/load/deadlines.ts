// Every request ends by its deadline (scheduled + timeout): one still in
// flight then is censored (its connection aborted); one still waiting for a
// concurrency slot is never sent. A periodic check enforces them; whether a
// request was censored is decided by its deadline, not by when the check ran.

import type { RequestRecord } from "./record.ts";

/** How often deadlines are enforced. */
export const DEADLINE_CHECK_MS = 10;

/** The requests past their deadline at `nowMs`: in flight (any order) and waiting (deadline order). */
export function pastDeadline(
  inFlight: Iterable<RequestRecord>,
  waiting: readonly RequestRecord[],
  nowMs: number,
): { inFlight: RequestRecord[]; waiting: number } {
  const late: RequestRecord[] = [];
  for (const r of inFlight) if (r.deadlineMs <= nowMs) late.push(r);
  let n = 0;
  while (n < waiting.length && (waiting[n]?.deadlineMs ?? Infinity) <= nowMs) n++;
  return { inFlight: late, waiting: n };
}

/**
 * The trial's hard stop: no request may run past the last deadline any request
 * can have — a session's last turn after every turn before it took its
 * timeout and its think time — plus a grace period.
 */
export function hardStopMs(
  startMs: number,
  lastOffsetMs: number,
  turns: number,
  timeoutMs: number,
  thinkMs: number,
  graceMs: number,
): number {
  return startMs + lastOffsetMs + turns * timeoutMs + (turns - 1) * thinkMs + graceMs;
}
