// The open-loop trial runner. Each request is sent at its precomputed time
// whatever the others are doing; latency counts from that scheduled time.
// An optional max-concurrency cap makes it closed-loop: the wait for a slot is
// latency too. Every request ends in exactly one outcome: not finished by
// scheduled + timeout is censored, not sent by then is unsent. The trial never
// runs past its hard deadline. Multi-turn sessions: the first turns are on the
// schedule; each later turn is due think-time after the turn before it ended
// (its latency counts from then) and carries the session's history; a failed
// turn ends its session, and its later turns never fall due.

import { type Dispatcher, Pool } from "undici";
import { errorMessage } from "../common/errors.ts";
import type { ChatMessage } from "../openai/target.ts";
import {
  completionPath,
  loadRequestBody,
  origin as originOf,
  requestHeaders,
  type Target,
} from "../openai/target.ts";
import {
  fixedOutputTokens,
  isWarmup,
  messagesFor,
  sessionTurn,
  turnIndex,
  turnMessages,
  turnsIn,
  type Workload,
} from "../workload/plan.ts";
import { type InFlight, sendCompletion } from "./client.ts";
import { classify } from "./outcome.ts";
import { collectGarbage, type ProbeReadings, type Probes, startProbes } from "./probes.ts";
import { newRecord, type RequestRecord } from "./record.ts";

export interface Clock {
  now(): number;
}

export const MONOTONIC: Clock = { now: () => performance.now() };

export interface Progress {
  elapsedS: number;
  phase: "warm-up" | "window" | "drain";
  sent: number;
  inFlight: number;
  done: number;
  failed: number;
  total: number;
}

export interface TrialOptions {
  target: Target;
  workload: Workload;
  timeoutS: number;
  maxConcurrency: number | undefined;
  /** Called for every measured (non-warm-up) request once its outcome is known. */
  onRequest(record: RequestRecord): void;
  onProgress?: (p: Progress) => void;
  progressEveryMs?: number;
  clock?: Clock;
  /** Defaults to a pool to the target's origin with as many connections as needed. */
  dispatcher?: Dispatcher;
  /** Extra time past the last deadline before the hard stop. */
  hardStopGraceMs?: number;
  /** Aborting ends the trial at once, as its hard deadline would (the job was cancelled). */
  signal?: AbortSignal;
}

export interface TrialRun {
  /** Trial start on the clock; offsets are from here. */
  startMs: number;
  endMs: number;
  readings: ProbeReadings;
  hardStopped: boolean;
  /** Measured later turns that never fell due: their session had ended (a failed turn, the hard stop). */
  neverDue: number;
}

/** Lead time between planning and the first offset, so the first send is not late. */
const LEAD_MS = 20;
/** How often deadlines are enforced; censoring is decided by the deadline itself, not by this. */
const SWEEP_MS = 10;
/**
 * The scheduler sleeps on a timer until this close to a send, then polls the
 * event loop (I/O is still served between polls). libuv timers fire up to
 * 1–2 ms late; 2 ms of polling keeps the send-skew p99 under 1 ms at 1,000
 * req/s on 2 cores (bench/README.md), for more client CPU. (Polling 5 ms at
 * low rates did not help: on a busy machine the late sends are the OS's.)
 */
const SPIN_MS = 2;

class TimeoutAbort extends Error {
  override name = "TimeoutAbort";
}

export async function runTrial(options: TrialOptions): Promise<TrialRun> {
  const { target, workload, onRequest } = options;
  const clock = options.clock ?? MONOTONIC;
  const timeoutMs = options.timeoutS * 1000;
  const cap = options.maxConcurrency;
  const n = workload.offsetsMs.length;
  const ownPool = options.dispatcher === undefined;
  const dispatcher =
    options.dispatcher ??
    new Pool(originOf(target), {
      connections: cap ?? null,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  const origin = originOf(target);
  const path = completionPath(target);
  const headers = requestHeaders(target);

  collectGarbage();
  const startMs = clock.now() + LEAD_MS;
  // The self-check probes watch the measurement window and the drain, not the warm-up.
  let probes: Probes | undefined;
  const startProbesAt = setTimeout(
    () => {
      probes = startProbes();
    },
    Math.max(0, startMs + workload.windowStartMs - clock.now()),
  );
  const scheduled = workload.scheduledCount;
  const sessions = workload.spec.sessions;
  const turns = sessions?.turns ?? 1; // at most: a ShareGPT conversation may have fewer
  const thinkMs = (sessions?.thinkS ?? 0) * 1000;
  const lastOffsetMs = scheduled > 0 ? (workload.offsetsMs[scheduled - 1] as number) : 0;
  // A session's last turn may end as late as every turn taking its timeout after its think time.
  const hardStopMs =
    startMs +
    lastOffsetMs +
    turns * timeoutMs +
    (turns - 1) * thinkMs +
    (options.hardStopGraceMs ?? 2000);

  const inFlight = new Map<RequestRecord, InFlight>();
  const waiting: RequestRecord[] = [];
  let next = 0;
  let done = 0;
  let failed = 0;
  let sent = 0;
  let neverDue = 0;
  let hardStopped = false;
  /** Each live session's messages so far; later turns waiting for their due time. */
  const histories = new Map<number, ChatMessage[]>();
  const due = new Map<RequestRecord, NodeJS.Timeout>();
  let sleeping: NodeJS.Timeout | undefined;
  let polling: NodeJS.Immediate | undefined;
  let resolveAll: () => void = () => {};
  const allDone = new Promise<void>((resolve) => {
    resolveAll = resolve;
  });

  const finish = (r: RequestRecord) => {
    if (r.outcome !== undefined) return;
    r.outcome = classify(r);
    done++;
    if (r.outcome !== "ok") failed++;
    if (!r.warmup) onRequest(r);
    if (sessions) nextTurn(r);
    if (done === n) resolveAll();
  };

  /** After a session's turn: its next turn falls due think-time later, or the session ends. */
  const nextTurn = (r: RequestRecord) => {
    const { session, turn } = sessionTurn(workload, r.index);
    const own = turnsIn(workload, session);
    if (turn + 1 >= own) {
      histories.delete(session);
      return;
    }
    if (r.outcome !== "ok" || hardStopped) {
      // The session ends here: its later turns are never due, never scheduled.
      const left = own - turn - 1;
      histories.delete(session);
      sentUser.delete(r.index);
      done += left;
      if (!r.warmup) neverDue += left;
      return;
    }
    const history = histories.get(session) ?? [];
    history.push(...(turn === 0 ? messagesFor(workload, r.index) : [lastUser(r.index)]), {
      role: "assistant",
      content: r.text ?? "",
    });
    histories.set(session, history);
    const next = recordFor(turnIndex(workload, session, turn + 1), r.endMs + thinkMs);
    due.set(
      next,
      setTimeout(
        () => {
          due.delete(next);
          fireRecord(next);
        },
        Math.max(0, next.scheduledMs - clock.now()),
      ),
    );
  };

  /** A later turn's own user message, as it was sent (the history holds it once the answer is in). */
  const sentUser = new Map<number, ChatMessage>();
  const lastUser = (i: number): ChatMessage => {
    const m = sentUser.get(i) as ChatMessage;
    sentUser.delete(i);
    return m;
  };

  /** Ends an in-flight request at its deadline: censored, its connection aborted. */
  const censor = (r: RequestRecord, handle: InFlight, why: string) => {
    r.timedOut = true;
    inFlight.delete(r);
    handle.abort(new TimeoutAbort(why));
    finish(r);
  };

  // The next request's body is built while the scheduler waits for its send
  // time, so that building it (the prompt, JSON) is not part of the send skew.
  let prepared: { index: number; body: string } | undefined;
  const build = (i: number) => {
    let messages: ChatMessage[];
    if (workload.turnOf[i] === 0) messages = messagesFor(workload, i);
    else {
      messages = turnMessages(workload, i, histories.get(workload.sessionOf[i] as number) ?? []);
      sentUser.set(i, messages.at(-1) as ChatMessage);
    }
    return loadRequestBody(target, messages, workload.maxTokens[i] as number);
  };
  const bodyOf = (i: number) => (prepared?.index === i ? prepared.body : build(i));
  const prepare = (i: number) => {
    if (i < n && prepared?.index !== i) prepared = { index: i, body: build(i) };
  };

  const dispatch = (r: RequestRecord) => {
    if (clock.now() >= r.deadlineMs) {
      finish(r); // too late to send at all: unsent
      return;
    }
    const body = bodyOf(r.index);
    sent++;
    const onDone = (rec: RequestRecord) => {
      if (rec.outcome !== undefined) return; // already censored
      inFlight.delete(rec);
      finish(rec);
      if (cap !== undefined) admitWaiting();
    };
    try {
      const handle = sendCompletion(dispatcher, origin, path, headers, body, r, clock.now, onDone);
      if (r.outcome === undefined) inFlight.set(r, handle);
    } catch (error) {
      r.transportError = `the request could not be dispatched: ${errorMessage(error)}`;
      r.endMs = clock.now();
      onDone(r);
    }
  };

  const admitWaiting = () => {
    while (waiting.length > 0 && inFlight.size < (cap as number)) {
      const r = waiting.shift() as RequestRecord;
      r.slotMs = clock.now();
      dispatch(r);
    }
  };

  const recordFor = (i: number, dueMs = startMs + (workload.offsetsMs[i] as number)) => {
    const r = newRecord(
      i,
      isWarmup(workload, i),
      dueMs,
      dueMs + timeoutMs,
      fixedOutputTokens(workload, i),
    );
    // A session's answers are its next turn's history; a tokenizer counts answers sent without usage.
    if (sessions || workload.spec.tokenizer) r.text = "";
    return r;
  };

  const fireRecord = (r: RequestRecord) => {
    if (cap !== undefined && inFlight.size >= cap) waiting.push(r);
    else dispatch(r);
  };
  const fire = (i: number) => fireRecord(recordFor(i));

  const schedule = () => {
    sleeping = undefined;
    polling = undefined;
    const now = clock.now();
    while (next < scheduled && startMs + (workload.offsetsMs[next] as number) <= now) fire(next++);
    if (next >= scheduled || hardStopped) return;
    const waitMs = startMs + (workload.offsetsMs[next] as number) - now;
    if (waitMs > SPIN_MS) {
      prepare(next);
      sleeping = setTimeout(schedule, waitMs - SPIN_MS);
    } else polling = setImmediate(schedule);
  };

  const stopScheduling = () => {
    clearTimeout(sleeping);
    clearImmediate(polling);
  };

  // Enforce deadlines (both lists are in deadline order): in-flight requests
  // past theirs are censored, which frees their slots for the waiting head;
  // waiting requests past theirs are unsent.
  const sweep = () => {
    const now = clock.now();
    for (const [r, handle] of inFlight) {
      if (r.deadlineMs > now) break;
      censor(r, handle, "request timeout");
    }
    if (cap !== undefined) admitWaiting();
    while (waiting.length > 0 && (waiting[0] as RequestRecord).deadlineMs <= now) {
      finish(waiting.shift() as RequestRecord);
    }
    if (now >= hardStopMs) stopHard();
  };

  const stopHard = () => {
    if (hardStopped) return;
    hardStopped = true;
    stopScheduling();
    while (next < scheduled) finish(recordFor(next++));
    for (const [r, timer] of due) {
      clearTimeout(timer);
      due.delete(r);
      finish(r);
    }
    for (const r of waiting.splice(0)) finish(r);
    for (const [r, handle] of inFlight) censor(r, handle, "hard deadline");
  };

  const sweeper = setInterval(sweep, SWEEP_MS);
  const progressEveryMs = options.progressEveryMs ?? 1000;
  const reporter = options.onProgress
    ? setInterval(() => {
        const elapsedMs = clock.now() - startMs;
        options.onProgress?.({
          elapsedS: elapsedMs / 1000,
          phase:
            elapsedMs < workload.windowStartMs
              ? "warm-up"
              : elapsedMs < workload.windowStartMs + workload.windowMs
                ? "window"
                : "drain",
          sent,
          inFlight: inFlight.size,
          done,
          failed,
          total: n,
        });
      }, progressEveryMs)
    : undefined;

  const onAbort = () => stopHard();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) stopHard();
  if (n === 0) resolveAll();
  else sleeping = setTimeout(schedule, Math.max(0, startMs - clock.now() - SPIN_MS));
  await allDone;
  options.signal?.removeEventListener("abort", onAbort);
  clearInterval(sweeper);
  if (reporter) clearInterval(reporter);
  stopScheduling();
  const endMs = clock.now();
  clearTimeout(startProbesAt);
  const readings = (probes ?? startProbes()).stop();
  if (ownPool) await dispatcher.close();
  for (const timer of due.values()) clearTimeout(timer);
  return { startMs, endMs, readings, hardStopped, neverDue };
}
