// A worker thread of split trials (workers.ts), kept between them in a pool:
// for each trial it is given, it builds the trial's workload, says it is
// ready, sends its slice of the schedule from the start the main thread gives
// on the process's one monotonic clock, streams its requests' lines and
// progress back, and posts what it measured — its part, which the main thread
// merges exactly with the others'. Then it waits for the next trial.

import { type MessagePort, parentPort } from "node:worker_threads";
import { errorMessage } from "../common/errors.ts";
import { collectGarbage } from "../load/probes.ts";
import { openLimitShare, type RequestRecord } from "../load/record.ts";
import { hrtimeOffsetNanos } from "../load/waker.ts";
import type { TrialContext } from "../requests/line.ts";
import { buildWorkload } from "../workload/plan.ts";
import { measureParts, type TrialDeps } from "./measure.ts";
import { partState } from "./parts.ts";
import {
  type FromWorker,
  revivedOptions,
  type ToWorker,
  type WorkerStart,
} from "./worker-protocol.ts";

/** Lines are sent in batches: one message per request would cost the worker's loop more. */
const LINE_BATCH = 256;
const LINE_FLUSH_MS = 100;

function post(port: MessagePort, message: FromWorker): void {
  port.postMessage(message);
}

/** The requests' lines, batched to the main thread. */
function lineSender(port: MessagePort) {
  let batch: [RequestRecord, TrialContext][] = [];
  const flush = () => {
    if (batch.length === 0) return;
    post(port, { type: "lines", lines: batch });
    batch = [];
  };
  const timer = setInterval(flush, LINE_FLUSH_MS);
  timer.unref();
  return {
    add: (r: RequestRecord, at: TrialContext) => {
      batch.push([r, at]);
      if (batch.length >= LINE_BATCH) flush();
    },
    close: () => {
      clearInterval(timer);
      flush();
    },
  };
}

type StartMessage = Extract<ToWorker, { type: "start" }>;

/** One trial: built, ready, started at the given time, its part posted. */
async function serve(
  port: MessagePort,
  start: WorkerStart,
  started: Promise<StartMessage>,
  signal: AbortSignal,
): Promise<void> {
  const options = revivedOptions(start.portable);
  const workload = buildWorkload(options.workload);
  // Before saying ready: the full GC the trial runs first is then short, well within the lead.
  collectGarbage();
  post(port, { type: "ready" });
  const { startAtNs, startUnixMs } = await started;
  const startAtMs = Number(startAtNs - hrtimeOffsetNanos()) / 1e6;
  const lines = start.lines ? lineSender(port) : undefined;
  const deps: TrialDeps = {
    signal,
    // Unix time from the main thread's reading of the start: every worker's lines say one start.
    now: () => new Date(startUnixMs + (performance.now() - startAtMs)),
    ...(lines ? { onRequestLine: lines.add } : {}),
    ...(start.progress
      ? { onProgress: (progress) => post(port, { type: "progress", progress }) }
      : {}),
  };
  // The workers share one process's memory, so each holds its share of the open requests.
  const openLimit = openLimitShare(start.slice.count);
  const parts = await measureParts(
    options,
    deps,
    { slice: start.slice, startAtMs, openLimit },
    workload,
  );
  lines?.close();
  post(port, { type: "part", state: partState(parts, start.slice) });
}

if (!parentPort) throw new Error("internal error: trial-worker.ts runs as a worker thread");
const port = parentPort;
/** The trial under way: where its start and its cancel go. */
let current: { start: (m: StartMessage) => void; cancel: AbortController } | undefined;
port.on("message", (m: ToWorker) => {
  if (m.type === "trial") {
    const cancel = new AbortController();
    const started = new Promise<StartMessage>((start) => {
      current = { start, cancel };
    });
    serve(port, m.start, started, cancel.signal).catch((error: unknown) => {
      post(port, { type: "error", message: errorMessage(error) });
    });
  } else if (m.type === "start") current?.start(m);
  else current?.cancel.abort();
});
