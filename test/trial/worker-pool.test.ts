// The pool of trial workers: no more idle than it keeps, and a worker that
// ended is never given another trial (it would drop the trial's messages and
// leave the trial waiting for its readiness).

import assert from "node:assert/strict";
import { once } from "node:events";
import { test } from "node:test";
import type { Worker } from "node:worker_threads";
import { WorkerPool } from "../../src/trial/worker-pool.ts";

const IDLE = new URL("../fixtures/workers/idle.mjs", import.meta.url);

async function ended(worker: Worker): Promise<void> {
  const exited = once(worker, "exit");
  worker.postMessage({ type: "exit" });
  await exited;
}

test("keeps at most maxIdle idle workers, stopping the rest", async () => {
  const pool = new WorkerPool(2);
  try {
    const three = pool.take(IDLE, 3);
    const ids = three.map((w) => w.threadId);
    const third = three[2];
    assert.ok(third);
    const thirdExit = once(third, "exit");
    pool.give(IDLE, three);
    assert.deepEqual(pool.idleThreadIds(IDLE), ids.slice(0, 2));
    await thirdExit;
  } finally {
    await pool.close();
  }
});

test("a worker that ended, in a trial or idle, is not taken again", async () => {
  const pool = new WorkerPool(4);
  try {
    const [a, b] = pool.take(IDLE, 2);
    assert.ok(a && b);
    const bId = b.threadId;
    // a ends after its part: the trial was clean, yet a is not kept.
    await ended(a);
    pool.give(IDLE, [a, b]);
    assert.deepEqual(pool.idleThreadIds(IDLE), [bId]);
    // b ends while idle: it leaves the pool.
    await ended(b);
    assert.deepEqual(pool.idleThreadIds(IDLE), []);
    const [fresh] = pool.take(IDLE, 1);
    assert.ok(fresh && fresh.threadId !== bId && fresh.threadId > 0);
    pool.give(IDLE, [fresh]);
  } finally {
    await pool.close();
  }
});
