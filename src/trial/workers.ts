// A trial split over worker threads: worker w of N sends requests w, w + N,
// w + 2N… of the same seeded schedule at the same times as one thread would,
// on its own HTTP pool, recorder and self-check probes. The main thread gives
// them the trial, then one start on the clock every thread shares, scrapes the server's
// metrics, forwards the requests' lines and the summed progress, and merges
// the workers' parts exactly (parts.ts): the whole plan's checks on the
// merged trial, each worker's generator checks on its own, named by it. The
// workers come from a pool kept across trials (worker-pool.ts).

import type { Worker } from "node:worker_threads";
import { HARD_STOP_GRACE_MS, type LoadSlice, type Progress } from "../load/run.ts";
import { MONOTONIC } from "../load/scheduler.ts";
import { hrtimeOffsetNanos } from "../load/waker.ts";
import type { Workload } from "../workload/plan.ts";
import {
  measuredWindowMs,
  scrapeBeside,
  type TrialDeps,
  type TrialOptions,
  type TrialReport,
} from "./measure.ts";
import { mergedReport, type TrialPartState, trialSpanMs } from "./parts.ts";
import { SHARED_POOL, type WorkerPool } from "./worker-pool.ts";
import {
  type FromWorker,
  portableOptions,
  type ToWorker,
  type WorkerStart,
} from "./worker-protocol.ts";

/** From the workers' readiness to the first send: time for each to start its waker and pool. */
const START_LEAD_MS = 500;
/** A worker that has not built its workload by then is stuck (a blocked thread), not slow. */
const READY_TIMEOUT_MS = 120_000;
/** Past the trial's hard deadline, the time its workers have to post their parts before they are stopped. */
const PART_GRACE_MS = 30_000;

export const workerName = (s: LoadSlice) => `worker ${s.index}/${s.count}`;

/** The worker's script: the source's beside this file, or the bundle's beside the bundle. */
export function workerUrl(): URL {
  const fromSource = import.meta.url.endsWith(".ts");
  return new URL(fromSource ? "./trial-worker.ts" : "./trial-worker.js", import.meta.url);
}

interface TrialWorker {
  ready: Promise<void>;
  part: Promise<TrialPartState>;
  send(message: ToWorker): void;
  /** This trial's listeners removed: the worker may serve the next. */
  detach(): void;
}

/** One worker given this trial: its readiness, its part, or the error that ended it, named by the worker. */
function trialOn(
  worker: Worker,
  start: WorkerStart,
  onLines: (m: Extract<FromWorker, { type: "lines" }>) => void,
  onProgress: (p: Progress) => void,
): TrialWorker {
  const name = workerName(start.slice);
  let ready: () => void = () => {};
  let done: (state: TrialPartState) => void = () => {};
  let fail: (error: Error) => void = () => {};
  const readyP = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const part = new Promise<TrialPartState>((resolve, reject) => {
    done = resolve;
    fail = reject;
  });
  const onMessage = (m: FromWorker) => {
    if (m.type === "ready") ready();
    else if (m.type === "lines") onLines(m);
    else if (m.type === "progress") onProgress(m.progress);
    else if (m.type === "part") done(m.state);
    else fail(new Error(`${name}: ${m.message}`));
  };
  const onError = (error: Error) => fail(new Error(`${name} failed: ${error.message}`));
  const onExit = (code: number) =>
    fail(new Error(`${name} stopped (exit code ${code}) before its part`));
  worker.on("message", onMessage);
  worker.on("error", onError);
  worker.on("exit", onExit);
  worker.postMessage({ type: "trial", start } satisfies ToWorker);
  // A failure before readiness ends the wait for it too.
  const readyOrFail = Promise.race([readyP, part.then(() => undefined)]);
  return {
    ready: readyOrFail,
    part,
    send: (message) => worker.postMessage(message),
    detach: () => {
      worker.off("message", onMessage);
      worker.off("error", onError);
      worker.off("exit", onExit);
    },
  };
}

/**
 * Every worker's progress summed into the trial's, at each worker's report:
 * the total is the whole trial's, whoever has reported.
 */
function progressSum(total: number, onProgress: ((p: Progress) => void) | undefined) {
  const latest = new Map<number, Progress>();
  return (w: number) => (p: Progress) => {
    latest.set(w, p);
    if (!onProgress) return;
    const seen = [...latest.values()];
    const sum = (f: (x: Progress) => number) => seen.reduce((s, x) => s + f(x), 0);
    const furthest = seen.reduce((a, b) => (b.elapsedS > a.elapsedS ? b : a), p);
    onProgress({
      elapsedS: furthest.elapsedS,
      phase: furthest.phase,
      sent: sum((x) => x.sent),
      inFlight: sum((x) => x.inFlight),
      done: sum((x) => x.done),
      failed: sum((x) => x.failed),
      total,
    });
  };
}

/** p, or a rejection with why after ms, or when the signal aborts: a bound on a wait. */
function bounded<T>(p: Promise<T>, ms: number, why: string, signal?: AbortSignal): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort = () => {};
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(why)), ms);
    onAbort = () => reject(new Error("cancelled before the trial's workers started"));
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) onAbort();
  });
  return Promise.race([p, stop]).finally(() => {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  });
}

/** A split trial: how many workers, the trial's workload, the worker's script (tests: a stand-in) and pool. */
export interface WorkerRun {
  count: number;
  workload: Workload;
  script?: URL;
  pool?: WorkerPool;
}

/**
 * Gives each worker the trial, waits until each is ready, then starts them
 * all at one time; their parts. The workers go back to the pool only when
 * every part arrived and nothing cancelled the trial; otherwise they stop.
 */
async function runWorkers(
  options: TrialOptions,
  deps: TrialDeps,
  run: WorkerRun,
): Promise<{ states: TrialPartState[]; startMs: number }> {
  const { count, workload } = run;
  const portable = portableOptions(options);
  const progress = progressSum(workload.offsetsMs.length, deps.onProgress);
  const onLines = (m: Extract<FromWorker, { type: "lines" }>) => {
    for (const [r, at] of m.lines) deps.onRequestLine?.(r, at);
  };
  const pool = run.pool ?? SHARED_POOL;
  const script = run.script ?? workerUrl();
  const threads = pool.take(script, count);
  const workers: TrialWorker[] = [];
  const cancel = () => {
    for (const w of workers) w.send({ type: "cancel" });
  };
  let clean = false;
  try {
    for (const [w, thread] of threads.entries()) {
      const slice = { index: w, count };
      const lines = deps.onRequestLine !== undefined;
      const start = { portable, slice, lines, progress: deps.onProgress !== undefined };
      workers.push(trialOn(thread, start, onLines, progress(w)));
    }
    const notReady = `the trial's ${count} workers were not ready in ${READY_TIMEOUT_MS / 1000} s`;
    const ready = Promise.all(workers.map((w) => w.ready));
    await bounded(ready, READY_TIMEOUT_MS, notReady, deps.signal);
    const startMs = MONOTONIC.now() + START_LEAD_MS;
    const startAtNs = BigInt(Math.round(startMs * 1e6)) + hrtimeOffsetNanos();
    // The trial's start in Unix time, once: every worker's lines carry the same.
    const startUnixMs = (deps.now?.() ?? new Date()).getTime() + (startMs - MONOTONIC.now());
    for (const w of workers) w.send({ type: "start", startAtNs, startUnixMs });
    deps.signal?.addEventListener("abort", cancel, { once: true });
    if (deps.signal?.aborted) cancel();
    const boundMs =
      START_LEAD_MS + trialSpanMs(options, workload) + HARD_STOP_GRACE_MS + PART_GRACE_MS;
    const late = `the trial's workers had not ended ${PART_GRACE_MS / 1000} s past its hard deadline: stopped`;
    const states = await bounded(Promise.all(workers.map((w) => w.part)), boundMs, late);
    clean = !deps.signal?.aborted;
    return { states, startMs };
  } finally {
    deps.signal?.removeEventListener("abort", cancel);
    for (const w of workers) w.detach();
    if (clean) pool.give(script, threads);
    else await Promise.all(threads.map((t) => t.terminate()));
  }
}

/** The trial measured by its workers and merged: one report, each worker's checks named. */
export async function measureInWorkers(
  options: TrialOptions,
  deps: TrialDeps,
  run: WorkerRun,
): Promise<TrialReport> {
  const { workload, count } = run;
  const { result, serverMetrics, gauges, replicas } = await scrapeBeside(
    options,
    deps,
    MONOTONIC,
    () => runWorkers(options, deps, run),
    (r) => measuredWindowMs(workload, r.startMs),
  );
  const { states, startMs } = result;
  const now = deps.now?.() ?? new Date();
  const fromStart = gauges.map((g) => ({ ...g, atMs: g.atMs - startMs }));
  const report = mergedReport(
    options,
    states,
    { workload, serverMetrics, now, gauges: fromStart, replicas },
    workerName,
  );
  return { ...report, validity: { ...report.validity, workers: count } };
}
