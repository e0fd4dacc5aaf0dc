// A precise wake-up for the send scheduler. libuv's timers are up to 1–2 ms
// late, so the scheduler used to poll the event loop for the last 2 ms before
// every send — at 800 req/s that is polling nearly all the time, most of a
// core. A worker thread instead sleeps in Atomics.wait (a futex with a
// sub-millisecond timeout) and posts a message at the wake time; the main
// loop, asleep in epoll, wakes on it within about 0.1 ms and polls only the
// little that is left (bench/README.md).

import { Worker } from "node:worker_threads";

export interface Waker {
  /** Calls fn at about atMs (performance.now() of this thread); replaces an armed wake. */
  wakeAt(atMs: number, fn: () => void): void;
  cancel(): void;
  close(): Promise<void>;
}

// Slot 0: the generation, bumped by every arm, cancel and close; the worker
// waits on it. Slot 1 (as a float): the wake time in process.hrtime's
// milliseconds, one monotonic clock for every thread (Infinity: none armed,
// -1: exit).
const GENERATION = 0;
/** The longest single wait: the thread can be stopped between two. */
const SLICE_MS = 50;

/** Plain script, modules by getBuiltinModule: it runs as CommonJS or ESM, from the source or the bundle. */
const WORKER_SOURCE = `
const { parentPort, workerData } = process.getBuiltinModule("node:worker_threads");
const generation = new Int32Array(workerData, 0, 1);
const wakeAt = new Float64Array(workerData, 8, 1);
const now = () => Number(process.hrtime.bigint()) / 1e6;
parentPort.postMessage(-1);
let posted = -1;
for (;;) {
  const seen = Atomics.load(generation, 0);
  const at = wakeAt[0];
  if (at < 0) break;
  // A timed wait that ends early is waited on again.
  const waitMs = posted === seen ? ${SLICE_MS} : at - now();
  if (waitMs > 0) {
    Atomics.wait(generation, 0, seen, Math.min(waitMs, ${SLICE_MS}));
    continue;
  }
  posted = seen;
  parentPort.postMessage(seen);
}
`;

/**
 * Starts the waker's thread and resolves once it runs (a worker takes tens of
 * milliseconds to start); undefined where a worker cannot start.
 */
export async function startWaker(): Promise<Waker | undefined> {
  const shared = new SharedArrayBuffer(16);
  const generation = new Int32Array(shared, 0, 1);
  const wakeAtMs = new Float64Array(shared, 8, 1);
  wakeAtMs[0] = Number.POSITIVE_INFINITY;
  let worker: Worker;
  try {
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: shared });
  } catch {
    return undefined;
  }
  let armed: { generation: number; fn: () => void } | undefined;
  // A thread that died (it should not) must not strand the scheduler: its
  // armed wake is called now and later ones are plain timers.
  let dead = false;
  let ready: (started: boolean) => void = () => {};
  const started = new Promise<boolean>((resolve) => {
    ready = resolve;
  });
  const die = () => {
    dead = true;
    ready(false);
    const fn = armed?.fn;
    armed = undefined;
    fn?.();
  };
  // Listeners first: one added after unref() would reference the thread again.
  worker.on("message", (seen: number) => {
    if (seen === -1) return ready(true);
    if (armed === undefined || armed.generation !== seen) return;
    const { fn } = armed;
    armed = undefined;
    worker.unref();
    fn();
  });
  worker.on("error", die);
  worker.on("exit", die);
  if (!(await started)) return undefined;
  // Referenced only while a wake is armed: an idle waker never keeps the process alive.
  worker.unref();
  const hrtimeOffsetMs = hrtimeOffset();
  const bump = (atMs: number) => {
    wakeAtMs[0] = atMs;
    const next = Atomics.add(generation, GENERATION, 1) + 1;
    Atomics.notify(generation, GENERATION);
    return next;
  };
  let fallback: NodeJS.Timeout | undefined;
  const cancel = () => {
    clearTimeout(fallback);
    if (armed === undefined) return;
    armed = undefined;
    bump(Number.POSITIVE_INFINITY);
    worker.unref();
  };
  return {
    wakeAt: (atMs, fn) => {
      if (dead) {
        clearTimeout(fallback);
        fallback = setTimeout(fn, Math.max(0, atMs - performance.now()));
        return;
      }
      armed = { generation: bump(atMs + hrtimeOffsetMs), fn };
      worker.ref();
    },
    cancel,
    close: async () => {
      cancel();
      bump(-1);
      await worker.terminate();
    },
  };
}

/**
 * process.hrtime's milliseconds minus performance.now(): one monotonic clock
 * from two origins. Read between two reads of the other, the tightest of a
 * few brackets (a first call may stall on compiling).
 */
function hrtimeOffset(): number {
  let best = { widthMs: Number.POSITIVE_INFINITY, offsetMs: 0 };
  for (let i = 0; i < 8; i++) {
    const before = performance.now();
    const hrMs = Number(process.hrtime.bigint()) / 1e6;
    const after = performance.now();
    if (after - before < best.widthMs)
      best = { widthMs: after - before, offsetMs: hrMs - (before + after) / 2 };
  }
  return best.offsetMs;
}
