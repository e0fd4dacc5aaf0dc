// The precise waker's thread: a wake calls back once, a re-arm replaces the
// armed wake, a cancel silences it, and an idle waker never keeps the process
// alive. (How precise it is, is measured in bench/, not here.)

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { startWaker } from "../../src/load/waker.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

test(
  "a wake calls back once, after its time; a re-arm replaces it; a cancel silences it; a closed one refuses",
  LOAD_TEST,
  async () => {
    const waker = await startWaker();
    assert.ok(waker, "a worker thread starts here");
    try {
      const calls: string[] = [];
      const woken = new Promise<number>((resolve) => {
        waker.wakeAt(performance.now() + 5, () => calls.push("replaced"));
        const atMs = performance.now() + 20;
        waker.wakeAt(atMs, () => {
          calls.push("armed");
          resolve(performance.now() - atMs);
        });
      });
      const lateMs = await woken;
      // The futex's timeout never ends early; 0.1 ms covers reading two clocks.
      assert.ok(lateMs > -0.1, `woken ${-lateMs} ms before its time`);
      waker.wakeAt(performance.now() + 10, () => calls.push("cancelled"));
      waker.cancel();
      await new Promise((resolve) =>
        waker.wakeAt(performance.now() + 60, () => resolve(calls.push("last"))),
      );
      assert.deepEqual(calls, ["armed", "last"]);
    } finally {
      await waker?.close();
    }
    assert.equal(
      waker.wakeAt(performance.now() + 1, () => {}),
      false,
      "a closed waker refuses",
    );
  },
);

test("an idle waker, and one whose wake was cancelled, let the process end", LOAD_TEST, () => {
  const module = join(import.meta.dirname, "../../src/load/waker.ts");
  const script = `const { startWaker } = await import(${JSON.stringify(module)});
const idle = await startWaker();
const cancelled = await startWaker();
cancelled.wakeAt(performance.now() + 600_000, () => {});
cancelled.cancel();
console.log(idle && cancelled ? "started" : "none");`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), "started");
});
