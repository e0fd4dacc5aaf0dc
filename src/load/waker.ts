// A precise wake-up for the send scheduler. libuv's timers are up to 1–2 ms
// late, so the scheduler used to poll the event loop for the last 2 ms before
// every send — at 800 req/s that is polling nearly all the time, most of a
// core. A worker thread instead sleeps in Atomics.wait (a futex with a
// sub-millisecond timeout) and posts a message at the wake time; the main
// loop, asleep in epoll, wakes on it within about 0.1 ms and polls only the
// little that is left (bench/README.md).

import { Worker } from "node:worker_threads";

export interface Waker {
  /**
   * Calls fn at about atMs (performance.now() of this thread), replacing an
   * armed wake; false when the thread is gone and nothing was armed.
   */
  wakeAt(atMs: number, fn: () => void): boolean;
  cancel(): void;
  close(): Promise<void>;
}

// Int32 slots: the generation, bumped by every arm and cancel (the worker
// waits on it), and the exit flag. BigInt64 slot: the wake time in
// process.hrtime's nanoseconds — one monotonic clock for every thread — or
// NONE. Each read and written with Atomics: no torn value.
const GENERATION = 0;
const EXIT = 1;
const NONE = 2n ** 63n - 1n;
/** The longest single wait: the thread can be stopped between two. */
const SLICE_MS = 50;
/** A thread that has not started by then (a blocking preload it inherited) is not waited for. */
const START_TIMEOUT_MS = 5000;

/** Plain script, modules by getBuiltinModule: it runs as CommonJS or ESM, from the source or the bundle. */
const WORKER_SOURCE = `
const { parentPort, workerData } = process.getBuiltinModule("node:worker_threads");
const flags = new Int32Array(workerData, 0, 2);
const wakeAtNs = new BigInt64Array(workerData, 8, 1);
parentPort.postMessage("ready");
let posted;
while (Atomics.load(flags, ${EXIT}) === 0) {
  const seen = Atomics.load(flags, ${GENERATION});
  const at = Atomics.load(wakeAtNs, 0);
  // A timed wait that ends early is waited on again.
  const waitMs = posted === seen || at === ${NONE}n ? ${SLICE_MS} : Number(at - process.hrtime.bigint()) / 1e6;
  if (waitMs > 0) {
    Atomics.wait(flags, ${GENERATION}, seen, Math.min(waitMs, ${SLICE_MS}));
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
  const flags = new Int32Array(shared, 0, 2);
  const wakeAtNs = new BigInt64Array(shared, 8, 1);
  Atomics.store(wakeAtNs, 0, NONE);
  let worker: Worker;
  try {
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: shared });
  } catch {
    return undefined;
  }
  let armed: { generation: number; fn: () => void } | undefined;
  let dead = false;
  let ready: (started: boolean) => void = () => {};
  const started = new Promise<boolean>((resolve) => {
    ready = resolve;
    setTimeout(() => resolve(false), START_TIMEOUT_MS).unref();
  });
  // A thread that died (it should not) must not strand the scheduler: its
  // armed wake is called now, and later ones are refused (the scheduler then
  // sleeps on a timer and polls, as without a waker).
  const die = () => {
    dead = true;
    ready(false);
    const fn = armed?.fn;
    armed = undefined;
    fn?.();
  };
  // Listeners first: one added after unref() would reference the thread again.
  worker.on("message", (seen: number | "ready") => {
    if (seen === "ready") return ready(true);
    if (armed === undefined || armed.generation !== seen) return;
    const { fn } = armed;
    armed = undefined;
    worker.unref();
    fn();
  });
  worker.on("error", die);
  worker.on("exit", die);
  const stop = async () => {
    Atomics.store(flags, EXIT, 1);
    Atomics.notify(flags, GENERATION);
    await worker.terminate();
  };
  if (!(await started)) {
    await stop();
    return undefined;
  }
  // Referenced only while a wake is armed: an idle waker never keeps the process alive.
  worker.unref();
  const hrtimeOffsetNs = hrtimeOffsetNanos();
  const bump = (atNs: bigint) => {
    Atomics.store(wakeAtNs, 0, atNs);
    const next = (Atomics.add(flags, GENERATION, 1) + 1) | 0;
    Atomics.notify(flags, GENERATION);
    return next;
  };
  const cancel = () => {
    if (armed === undefined) return;
    armed = undefined;
    bump(NONE);
    worker.unref();
  };
  return {
    wakeAt: (atMs, fn) => {
      if (dead) return false;
      armed = { generation: bump(BigInt(Math.round(atMs * 1e6)) + hrtimeOffsetNs), fn };
      worker.ref();
      return true;
    },
    cancel,
    close: async () => {
      cancel();
      await stop();
    },
  };
}

/**
 * process.hrtime's nanoseconds minus performance.now()'s: one monotonic clock
 * from two origins. Read between two reads of the other, the tightest of a
 * few brackets (a first call may stall on compiling).
 */
export function hrtimeOffsetNanos(): bigint {
  let best = { widthMs: Number.POSITIVE_INFINITY, offsetNs: 0n };
  for (let i = 0; i < 8; i++) {
    const before = performance.now();
    const hrNs = process.hrtime.bigint();
    const after = performance.now();
    if (after - before < best.widthMs)
      best = {
        widthMs: after - before,
        offsetNs: hrNs - BigInt(Math.round(((before + after) / 2) * 1e6)),
      };
  }
  return best.offsetNs;
}
