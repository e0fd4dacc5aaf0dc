// Worker threads kept for the process's split trials. Starting a worker costs
// a fresh isolate, its modules and a cold JIT — 0.7–0.9 s of CPU for two from
// the source, every trial (bench/README.md) — so a trial takes its workers
// from here and gives them back when every part arrived. A trial that failed,
// was cancelled or had to be stopped past its hard deadline stops its own:
// their state is not known. An idle worker does not keep the process alive;
// past the machine's cores, idle ones are stopped (each holds its heap).

import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";

export class WorkerPool {
  readonly #idle = new Map<string, Worker[]>();
  /** Workers that ended: never given a trial again (an ended worker drops messages silently). */
  readonly #ended = new WeakSet<Worker>();

  readonly maxIdle: number;

  /** maxIdle: how many idle workers a script keeps; more are stopped when given back. */
  constructor(maxIdle = availableParallelism()) {
    this.maxIdle = maxIdle;
  }

  /** count workers running script: idle ones first, new ones for the rest (all stopped if one cannot start). */
  take(script: URL, count: number): Worker[] {
    // An ended worker is not here: its exit took it out, and give() does not put it back.
    const taken = (this.#idle.get(script.href) ?? []).splice(0, count);
    try {
      while (taken.length < count) taken.push(this.#started(script));
    } catch (error) {
      for (const w of taken) void w.terminate();
      throw error;
    }
    for (const w of taken) w.ref();
    return taken;
  }

  /** Workers whose trial ended cleanly: idle again, no longer holding the process; those past maxIdle stopped. */
  give(script: URL, workers: readonly Worker[]): void {
    const alive = workers.filter((w) => !this.#ended.has(w));
    const idle = [...(this.#idle.get(script.href) ?? []), ...alive];
    for (const w of idle.splice(this.maxIdle)) void w.terminate();
    for (const w of idle) w.unref();
    this.#idle.set(script.href, idle);
  }

  /** The idle workers' thread ids, by script: what the next trial would take. */
  idleThreadIds(script: URL): number[] {
    return (this.#idle.get(script.href) ?? []).map((w) => w.threadId);
  }

  /** Every idle worker stopped. */
  async close(): Promise<void> {
    const all = [...this.#idle.values()].flat();
    this.#idle.clear();
    await Promise.all(all.map((w) => w.terminate()));
  }

  #started(script: URL): Worker {
    // A smaller young generation than V8's default: a worker at a few thousand requests a
    // second held 100–200 MB more of short-lived garbage, at the same client ceiling
    // (bench/README.md, memory at the bounds).
    const worker = new Worker(script, { resourceLimits: { maxYoungGenerationSizeMb: 16 } });
    // A worker that ends while idle leaves the pool; its error is then no trial's.
    worker.on("error", () => {});
    worker.on("exit", () => {
      this.#ended.add(worker);
      const idle = this.#idle.get(script.href);
      if (idle?.includes(worker)) idle.splice(idle.indexOf(worker), 1);
    });
    return worker;
  }
}

/** The process's pool: every split trial's unless it brings its own. */
export const SHARED_POOL = new WorkerPool();
