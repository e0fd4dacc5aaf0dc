// A trial split over worker threads: worker w of N sends requests w, w + N,
// w + 2N… of the same seeded schedule at the same times as one thread would,
// on its own HTTP pool, recorder and self-check probes. The main thread starts
// them, gives one start on the clock every thread shares, scrapes the server's
// metrics, forwards the requests' lines and the summed progress, and merges
// the workers' parts exactly (shard-part.ts): the whole plan's checks on the
// merged trial, each worker's generator checks on its own, named by it.

import { Worker } from "node:worker_threads";
import type { LoadSlice, Progress } from "../load/run.ts";
import { MONOTONIC } from "../load/scheduler.ts";
import { hrtimeOffsetNanos } from "../load/waker.ts";
import type { Workload } from "../workload/plan.ts";
import { scrapeBeside, type TrialDeps, type TrialOptions, type TrialReport } from "./measure.ts";
import { mergedReport, type TrialPartState } from "./shard-part.ts";
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

export const workerName = (s: LoadSlice) => `worker ${s.index}/${s.count}`;

/** The worker's script: the source's beside this file, or the bundle's beside the bundle. */
function workerUrl(): URL {
  const fromSource = import.meta.url.endsWith(".ts");
  return new URL(fromSource ? "./trial-worker.ts" : "./trial-worker.js", import.meta.url);
}

interface RunningWorker {
  ready: Promise<void>;
  part: Promise<TrialPartState>;
  send(message: ToWorker): void;
  stop(): Promise<void>;
}

/** One worker: its readiness, its part, or the error that ended it, named by the worker. */
function startWorker(
  start: WorkerStart,
  onLines: (m: Extract<FromWorker, { type: "lines" }>) => void,
  onProgress: (p: Progress) => void,
): RunningWorker {
  const name = workerName(start.slice);
  const worker = new Worker(workerUrl(), { workerData: start });
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
  worker.on("message", (m: FromWorker) => {
    if (m.type === "ready") ready();
    else if (m.type === "lines") onLines(m);
    else if (m.type === "progress") onProgress(m.progress);
    else if (m.type === "part") done(m.state);
    else fail(new Error(`${name}: ${m.message}`));
  });
  worker.on("error", (error) => fail(new Error(`${name} failed: ${error.message}`)));
  worker.on("exit", (code) =>
    fail(new Error(`${name} stopped (exit code ${code}) before its part`)),
  );
  // A failure before readiness ends the wait for it too.
  const readyOrFail = Promise.race([readyP, part.then(() => undefined)]);
  return {
    ready: readyOrFail,
    part,
    send: (message) => worker.postMessage(message),
    stop: async () => {
      await worker.terminate();
    },
  };
}

/**
 * Every worker's progress summed into the trial's: once a round, when each
 * worker has reported since the last (each reports once a second).
 */
function progressSum(count: number, onProgress: ((p: Progress) => void) | undefined) {
  const latest = new Map<number, Progress>();
  const fresh = new Set<number>();
  return (w: number) => (p: Progress) => {
    latest.set(w, p);
    fresh.add(w);
    if (fresh.size < count || !onProgress) return;
    fresh.clear();
    const seen = [...latest.values()];
    const sum = (f: (x: Progress) => number) => seen.reduce((s, x) => s + f(x), 0);
    onProgress({
      elapsedS: Math.max(...seen.map((x) => x.elapsedS)),
      phase: latest.get(0)?.phase ?? p.phase,
      sent: sum((x) => x.sent),
      inFlight: sum((x) => x.inFlight),
      done: sum((x) => x.done),
      failed: sum((x) => x.failed),
      total: sum((x) => x.total),
    });
  };
}

/** Resolves after ms, or rejects with why: a bound on a wait that should not be long. */
function within<T>(ms: number, why: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(why)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Starts the workers, waits until each is ready, then starts them all at one time; their parts. */
async function runWorkers(
  options: TrialOptions,
  deps: TrialDeps,
  count: number,
  onStart: (startMs: number) => void,
): Promise<TrialPartState[]> {
  const portable = portableOptions(options);
  const progress = progressSum(count, deps.onProgress);
  const onLines = deps.onRequestLine
    ? (m: Extract<FromWorker, { type: "lines" }>) => {
        for (const [r, at] of m.lines) deps.onRequestLine?.(r, at);
      }
    : () => {};
  const workers = Array.from({ length: count }, (_, w) =>
    startWorker(
      {
        portable,
        slice: { index: w, count },
        lines: deps.onRequestLine !== undefined,
        progress: deps.onProgress !== undefined,
      },
      onLines,
      progress(w),
    ),
  );
  const cancel = () => {
    for (const w of workers) w.send({ type: "cancel" });
  };
  try {
    const why = `the trial's ${count} workers were not ready in ${READY_TIMEOUT_MS / 1000} s`;
    await within(READY_TIMEOUT_MS, why, Promise.all(workers.map((w) => w.ready)));
    const offsetNs = hrtimeOffsetNanos();
    const startMs = MONOTONIC.now() + START_LEAD_MS;
    onStart(startMs);
    const startAtNs = BigInt(Math.round(startMs * 1e6)) + offsetNs;
    for (const w of workers) w.send({ type: "start", startAtNs });
    deps.signal?.addEventListener("abort", cancel, { once: true });
    if (deps.signal?.aborted) cancel();
    return await Promise.all(workers.map((w) => w.part));
  } finally {
    deps.signal?.removeEventListener("abort", cancel);
    await Promise.all(workers.map((w) => w.stop()));
  }
}

/** The trial measured by `count` workers and merged: one report, each worker's checks named. */
export async function measureInWorkers(
  options: TrialOptions,
  deps: TrialDeps,
  count: number,
  workload: Workload,
): Promise<TrialReport> {
  let startMs = Number.NaN;
  const { result, serverMetrics, gauges } = await scrapeBeside(
    options,
    deps,
    MONOTONIC,
    () =>
      runWorkers(options, deps, count, (ms) => {
        startMs = ms;
      }),
    () => [startMs + workload.windowStartMs, startMs + workload.windowStartMs + workload.windowMs],
  );
  const now = deps.now?.() ?? new Date();
  const fromStart = gauges.map((g) => ({ ...g, atMs: g.atMs - startMs }));
  const report = mergedReport(
    options,
    result,
    { workload, serverMetrics, now, gauges: fromStart },
    workerName,
  );
  return { ...report, validity: { ...report.validity, workers: count } };
}
