// The open-loop load of one trial. Each request is sent at its precomputed
// time whatever the others are doing; latency counts from that scheduled
// time. An optional max-concurrency cap makes it closed-loop: the wait for a
// slot is latency too. Every request ends in exactly one outcome: not
// finished by scheduled + timeout is censored, not sent by then is unsent.
// The trial never runs past its hard deadline. The pieces: the send scheduler
// (scheduler.ts), the deadlines (deadlines.ts), the sessions (sessions.ts).

import { type Dispatcher, Pool } from "undici";
import { errorMessage } from "../common/errors.ts";
import {
  completionPath,
  loadRequestBody,
  origin as originOf,
  requestHeaders,
  type Target,
} from "../openai/target.ts";
import { fixedOutputTokens, isWarmup, type Workload } from "../workload/plan.ts";
import { messagesFor } from "../workload/prompts.ts";
import { type InFlight, type Route, sendCompletion } from "./client.ts";
import { DEADLINE_CHECK_MS, hardStopMs, pastDeadline } from "./deadlines.ts";
import { OpenRequests } from "./open.ts";
import { classify } from "./outcome.ts";
import { collectGarbage, type ProbeReadings, type Probes, startProbes } from "./probes.ts";
import { newRecord, OPEN_LIMIT, type OpenLimit, type RequestRecord } from "./record.ts";
import { type Clock, GLOBAL_TIMERS, MONOTONIC, SendScheduler, type Timers } from "./scheduler.ts";
import { SessionTracker } from "./sessions.ts";
import { startWaker, type Waker } from "./waker.ts";

export interface Progress {
  elapsedS: number;
  phase: "warm-up" | "window" | "drain";
  sent: number;
  inFlight: number;
  done: number;
  failed: number;
  total: number;
}

export interface LoadOptions {
  target: Target;
  workload: Workload;
  timeoutS: number;
  maxConcurrency: number | undefined;
  /** Called for every measured (non-warm-up) request once its outcome is known. */
  onRequest(record: RequestRecord): void;
  /** Called once, before the first send, with the trial's start on the clock (the schedule's zero). */
  onStart?: (startMs: number) => void;
  onProgress?: (p: Progress) => void;
  progressEveryMs?: number;
  clock?: Clock;
  timers?: Timers;
  /** Defaults to a pool to the target's origin with as many connections as needed. */
  dispatcher?: Dispatcher;
  /** Extra time past the last deadline before the hard stop. */
  hardStopGraceMs?: number;
  /** Aborting ends the trial at once, as its hard deadline would (the job was cancelled). */
  signal?: AbortSignal;
  /** Only the requests i with i % count = index (a shard's part of the plan); default all. */
  slice?: LoadSlice;
  /** The schedule's zero on the clock (a shard's plan time); default LEAD_MS from now. */
  startAtMs?: number;
  /** What the trial may hold open at once; default OPEN_LIMIT (a worker: its share). */
  openLimit?: OpenLimit;
}

/** A shard's part of a trial: every count-th request from index. */
export interface LoadSlice {
  index: number;
  count: number;
}

/** How many of n requests a slice holds. */
export function sliceSize(n: number, slice: LoadSlice | undefined): number {
  return slice ? Math.max(0, Math.ceil((n - slice.index) / slice.count)) : n;
}

export interface LoadRun {
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
/** Past the last deadline, the time before the hard stop ends the trial. */
export const HARD_STOP_GRACE_MS = 2000;

class TimeoutAbort extends Error {
  override name = "TimeoutAbort";
}

/** One trial's requests from the first send to the last outcome. */
class TrialLoad {
  readonly startMs: number;
  private readonly clock: Clock;
  private readonly timeoutMs: number;
  private readonly cap: number | undefined;
  private readonly total: number;
  private readonly inFlight: OpenRequests;
  private readonly waiting: RequestRecord[] = [];
  private readonly sessions: SessionTracker | undefined;
  private readonly scheduler: SendScheduler<RequestRecord>;
  private readonly hardStopAtMs: number;
  private readonly send: (
    body: string,
    r: RequestRecord,
    onDone: (r: RequestRecord) => void,
  ) => InFlight;
  /** The next request's body, built while the scheduler waits for its send time. */
  private prepared: { index: number; body: string } | undefined;
  private done = 0;
  private failed = 0;
  private sent = 0;
  neverDue = 0;
  hardStopped = false;
  readonly finished: Promise<void>;
  private resolveFinished: () => void = () => {};

  private readonly options: LoadOptions;
  private readonly planIndex: (k: number) => number;

  constructor(options: LoadOptions, dispatcher: Dispatcher, timers: Timers) {
    this.options = options;
    const { target, workload } = options;
    this.clock = options.clock ?? MONOTONIC;
    this.timeoutMs = options.timeoutS * 1000;
    this.cap = options.maxConcurrency;
    this.inFlight = new OpenRequests(options.openLimit ?? OPEN_LIMIT);
    const slice = options.slice;
    if (slice && workload.spec.sessions)
      throw new Error("internal error: a slice of a trial with sessions");
    // The scheduler counts the slice's requests; k is the slice's k-th, i the plan's.
    const planIndex = (k: number) => (slice ? slice.index + k * slice.count : k);
    this.planIndex = planIndex;
    this.total = sliceSize(workload.offsetsMs.length, slice);
    const sessions = workload.spec.sessions;
    const thinkMs = (sessions?.thinkS ?? 0) * 1000;
    this.sessions = sessions ? new SessionTracker(workload, thinkMs) : undefined;
    this.startMs = options.startAtMs ?? this.clock.now() + LEAD_MS;
    options.onStart?.(this.startMs);
    const scheduled = workload.scheduledCount;
    const offset = (i: number) => workload.offsetsMs[i] ?? 0;
    this.hardStopAtMs = hardStopMs(
      this.startMs,
      scheduled > 0 ? offset(scheduled - 1) : 0,
      sessions?.turns ?? 1, // at most: a ShareGPT conversation may have fewer
      this.timeoutMs,
      thinkMs,
      options.hardStopGraceMs ?? HARD_STOP_GRACE_MS,
    );
    const route: Route = {
      dispatcher,
      origin: originOf(target),
      path: completionPath(target),
      headers: requestHeaders(target),
      replicaHeader: target.replicaHeader,
    };
    this.send = (body, r, onDone) => sendCompletion(route, body, r, this.clock.now, onDone);
    this.scheduler = new SendScheduler<RequestRecord>(
      this.clock,
      {
        count: sliceSize(scheduled, slice),
        dueMs: (k) => this.startMs + offset(planIndex(k)),
        fire: (k) => this.admit(this.recordFor(planIndex(k))),
        prepare: (k) => this.prepare(planIndex(k)),
      },
      (r) => this.admit(r),
      timers,
    );
    this.finished = new Promise((resolve) => {
      this.resolveFinished = resolve;
    });
    if (this.total === 0) this.resolveFinished();
  }

  start(): void {
    this.scheduler.start();
  }

  progress(): Progress {
    const elapsedMs = this.clock.now() - this.startMs;
    const w = this.options.workload;
    return {
      elapsedS: elapsedMs / 1000,
      phase:
        elapsedMs < w.windowStartMs
          ? "warm-up"
          : elapsedMs < w.windowStartMs + w.windowMs
            ? "window"
            : "drain",
      sent: this.sent,
      inFlight: this.inFlight.size,
      done: this.done,
      failed: this.failed,
      total: this.total,
    };
  }

  private recordFor(i: number, dueMs = this.startMs + (this.options.workload.offsetsMs[i] ?? 0)) {
    const w = this.options.workload;
    const r = newRecord(i, isWarmup(w, i), dueMs, dueMs + this.timeoutMs, fixedOutputTokens(w, i));
    r.tokensAsked = (w.inputTokens[i] ?? 0) + (w.maxTokens[i] ?? 0);
    // A session's answers are its next turn's history; a tokenizer counts answers sent without usage.
    if (this.sessions || w.spec.tokenizer) r.text = "";
    return r;
  }

  private build(i: number): string {
    const w = this.options.workload;
    const messages = this.sessions ? this.sessions.messages(i) : messagesFor(w, i);
    return loadRequestBody(this.options.target, messages, w.maxTokens[i] ?? 0);
  }

  /** Builds a scheduled send's body while the scheduler waits for its time (a first turn's only). */
  private prepare(i: number): void {
    if (this.prepared?.index !== i) this.prepared = { index: i, body: this.build(i) };
  }

  private bodyOf(i: number): string {
    return this.prepared?.index === i ? this.prepared.body : this.build(i);
  }

  /** A due request: sent now, or queued for a concurrency slot. */
  private admit(r: RequestRecord): void {
    if (this.cap !== undefined && this.inFlight.size >= this.cap) {
      r.queued = true;
      this.waiting.push(r);
    } else this.dispatch(r);
  }

  private dispatch(r: RequestRecord): void {
    if (this.clock.now() >= r.deadlineMs) {
      this.finish(r); // too late to send at all: unsent
      return;
    }
    const body = this.bodyOf(r.index);
    const bytes = this.inFlight.roomFor(body);
    if (bytes === undefined) {
      r.openLimited = true; // the client holds its limit open: unsent, the client's
      this.finish(r);
      return;
    }
    this.sent++;
    try {
      const handle = this.send(body, r, this.onResponseDone);
      if (r.outcome === undefined) this.inFlight.open(r, handle, bytes);
    } catch (error) {
      r.transportError = `the request could not be dispatched: ${errorMessage(error)}`;
      r.endMs = this.clock.now();
      this.onResponseDone(r);
    }
  }

  private onResponseDone = (r: RequestRecord): void => {
    if (r.outcome !== undefined) return; // already censored
    this.inFlight.close(r);
    this.finish(r);
    if (this.cap !== undefined) this.admitWaiting();
  };

  private admitWaiting(): void {
    const cap = this.cap ?? Infinity;
    while (this.waiting.length > 0 && this.inFlight.size < cap) {
      const r = this.waiting.shift();
      if (!r) break;
      r.slotMs = this.clock.now();
      this.dispatch(r);
    }
  }

  private finish(r: RequestRecord): void {
    if (r.outcome !== undefined) return;
    r.outcome = classify(r);
    this.done++;
    if (r.outcome !== "ok") this.failed++;
    if (!r.warmup) this.options.onRequest(r);
    if (this.sessions) this.nextTurn(r);
    if (this.done === this.total) this.resolveFinished();
  }

  private nextTurn(r: RequestRecord): void {
    const after = this.sessions?.ended(r, this.hardStopped);
    if (!after) return;
    if ("neverDue" in after) {
      this.done += after.neverDue;
      if (!r.warmup) this.neverDue += after.neverDue;
      return;
    }
    this.scheduler.addLater(after.next.dueMs, this.recordFor(after.next.index, after.next.dueMs));
  }

  /** Ends an in-flight request at its deadline: censored, its connection aborted. */
  private censor(r: RequestRecord, why: string): void {
    r.timedOut = true;
    const handle = this.inFlight.close(r);
    handle?.abort(new TimeoutAbort(why));
    this.finish(r);
  }

  /** Censors what is in flight past its deadline (freeing slots), and never sends what waited past its. */
  enforceDeadlines = (): void => {
    const now = this.clock.now();
    const late = pastDeadline(this.inFlight.keys(), this.waiting, now);
    for (const r of late.inFlight) this.censor(r, "request timeout");
    for (const r of this.waiting.splice(0, late.waiting)) this.finish(r);
    if (this.cap !== undefined) this.admitWaiting();
    if (now >= this.hardStopAtMs) this.stopHard();
  };

  stopHard = (): void => {
    if (this.hardStopped) return;
    this.hardStopped = true;
    const never = this.scheduler.stop();
    for (const k of never.scheduled) this.finish(this.recordFor(this.planIndex(k)));
    for (const r of never.later) this.finish(r);
    for (const r of this.waiting.splice(0)) this.finish(r);
    for (const r of [...this.inFlight.keys()]) this.censor(r, "hard deadline");
  };

  stopScheduling(): void {
    this.scheduler.stop();
  }
}

export async function runLoad(options: LoadOptions): Promise<LoadRun> {
  const { target } = options;
  const timers = options.timers ?? GLOBAL_TIMERS;
  const dispatcher =
    options.dispatcher ??
    new Pool(originOf(target), {
      connections: options.maxConcurrency ?? null,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  // A precise waker on the real clock only: a test's clock or timers keep theirs.
  const waker =
    options.timers === undefined && options.clock === undefined ? await startWaker() : undefined;
  try {
    return await runTrialLoad(options, dispatcher, timers, waker);
  } finally {
    await waker?.close();
  }
}

/** The trial's load, its deadlines, progress and probes, from the first send to the last outcome. */
async function runTrialLoad(
  options: LoadOptions,
  dispatcher: Dispatcher,
  timers: Timers,
  waker: Waker | undefined,
): Promise<LoadRun> {
  const { workload } = options;
  const scheduling: Timers = waker
    ? { ...timers, wakeAt: waker.wakeAt, cancelWake: waker.cancel }
    : timers;
  collectGarbage();
  const load = new TrialLoad(options, dispatcher, scheduling);
  const clock = options.clock ?? MONOTONIC;
  // The self-check probes watch the measurement window and the drain, not the warm-up.
  let probes: Probes | undefined;
  const startProbesAt = timers.setTimeout(
    () => {
      probes = startProbes();
    },
    Math.max(0, load.startMs + workload.windowStartMs - clock.now()),
  );
  const deadlines = setInterval(load.enforceDeadlines, DEADLINE_CHECK_MS);
  const reporter = options.onProgress
    ? setInterval(() => options.onProgress?.(load.progress()), options.progressEveryMs ?? 1000)
    : undefined;
  options.signal?.addEventListener("abort", load.stopHard, { once: true });
  if (options.signal?.aborted) load.stopHard();
  load.start();
  await load.finished;
  options.signal?.removeEventListener("abort", load.stopHard);
  clearInterval(deadlines);
  clearInterval(reporter);
  load.stopScheduling();
  const endMs = clock.now();
  timers.clearTimeout(startProbesAt);
  const readings = (probes ?? startProbes()).stop();
  if (options.dispatcher === undefined) await dispatcher.close();
  return {
    startMs: load.startMs,
    endMs,
    readings,
    hardStopped: load.hardStopped,
    neverDue: load.neverDue,
  };
}
