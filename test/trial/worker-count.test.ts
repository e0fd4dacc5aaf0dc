import assert from "node:assert/strict";
import { test } from "node:test";
import type { RawSettings } from "../../src/config/settings.ts";
import { parseTrialOptions } from "../../src/config/trial.ts";
import { clientCoreShare, workerCount } from "../../src/trial/worker-count.ts";
import { buildWorkload } from "../../src/workload/plan.ts";

const workloadOf = (raw: RawSettings) =>
  buildWorkload(
    parseTrialOptions({
      url: "http://127.0.0.1:8000/v1",
      model: "m",
      duration: "2s",
      warmup: "0s",
      "output-len": "64",
      ...raw,
    }).workload,
  );

test("auto: half a core a worker, from the rate and the streamed events, within the cores the servers leave", () => {
  const auto = { requested: "auto", reservedCores: 0 } as const;
  const fast = workloadOf({ rate: "2000", arrival: "constant" });
  // 2,000 req/s × (400 µs + 66 events × 3 µs) ≈ 1.2 cores: three workers where there are cores.
  assert.ok(Math.abs(clientCoreShare(fast) - 1.196) < 0.01, String(clientCoreShare(fast)));
  assert.equal(workerCount(auto, fast, undefined, 8), 3);
  assert.equal(workerCount(auto, fast, undefined, 2), 2);
  assert.equal(workerCount({ requested: "auto", reservedCores: 2 }, fast, undefined, 2), 1);
  assert.equal(workerCount({ requested: "auto", reservedCores: 2 }, fast, undefined, 4), 2);
  assert.equal(workerCount(auto, workloadOf({ rate: "10" }), undefined, 8), 1);
  // Longer answers cost more events: the same rate needs more workers.
  const long = workloadOf({ rate: "2000", arrival: "constant", "output-len": "1024" });
  // 2,000 × (400 + 1,026 × 3 µs) ≈ 7 cores: 14 workers.
  assert.equal(workerCount(auto, long, undefined, 64), 14);
});

test("a count is kept; a closed loop or multi-turn sessions stay in one thread", () => {
  const fast = workloadOf({ rate: "2000", arrival: "constant" });
  assert.equal(workerCount({ requested: 3, reservedCores: 0 }, fast, undefined, 2), 3);
  assert.equal(workerCount({ requested: "auto", reservedCores: 0 }, fast, 16, 8), 1);
  const sessions = workloadOf({ rate: "500", turns: "3" });
  assert.equal(workerCount({ requested: "auto", reservedCores: 0 }, sessions, undefined, 8), 1);
});
