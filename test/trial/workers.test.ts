// A trial split over worker threads against the in-process mock: the same
// requests at the same schedule offsets as one thread, every outcome counted
// once, the requests' lines and the progress forwarded, a tokenizer rebuilt in
// each worker, a cancel that ends every worker, a worker's own fault named
// by the worker in the merged trial's self-checks, and the pool that keeps
// workers from one trial to the next.

import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { OUTCOMES } from "../../src/common/outcomes.ts";
import type { RawSettings } from "../../src/config/settings.ts";
import { parseTrialOptions } from "../../src/config/trial.ts";
import type { Progress } from "../../src/load/run.ts";
import { type MockServer, startMockServer } from "../../src/mock/server.ts";
import { measureParts, type TrialOptions, type TrialReport } from "../../src/trial/measure.ts";
import { mergedReport, partState } from "../../src/trial/parts.ts";
import { measureTrial } from "../../src/trial/trial.ts";
import { WorkerPool } from "../../src/trial/worker-pool.ts";
import { measureInWorkers, workerName, workerUrl } from "../../src/trial/workers.ts";
import { buildWorkload } from "../../src/workload/plan.ts";
import { LOAD_TEST, quickProfile } from "../helpers/mock.ts";

const TOKENIZER_DIR = join(import.meta.dirname, "../fixtures/tokenizer");

let mock: MockServer;
before(async () => {
  mock = await startMockServer({ profile: quickProfile({ naturalMinTokens: 6 }) });
});
after(async () => {
  await mock.close();
});

const settings = (extra: RawSettings = {}): TrialOptions =>
  parseTrialOptions({
    url: `${mock.url}/v1`,
    model: "mock-llm",
    rate: "60",
    duration: "1s",
    warmup: "0.2s",
    "input-len": "16",
    "output-len": "8",
    timeout: "5s",
    seed: "5",
    "metrics-url": "none",
    ...extra,
  });

interface Seen {
  report: TrialReport;
  /** Each measured request's index and its schedule offset from the trial's start (ms). */
  offsets: Map<number, number>;
  progress: Progress[];
}

async function measure(options: TrialOptions, signal?: AbortSignal): Promise<Seen> {
  const offsets = new Map<number, number>();
  const progress: Progress[] = [];
  const report = await measureTrial(options, {
    onRequestLine: (r, at) => {
      assert.ok(!offsets.has(r.index), `request ${r.index} reported once`);
      offsets.set(r.index, r.scheduledMs - at.startMs);
    },
    onProgress: (p) => progress.push(p),
    ...(signal ? { signal } : {}),
  });
  return { report, offsets, progress };
}

const accounted = (r: TrialReport) => OUTCOMES.reduce((s, o) => s + r.outcomes[o], 0);

describe("a trial split over worker threads", LOAD_TEST, () => {
  test(
    "sends the same requests at the same offsets as one thread, each counted once",
    LOAD_TEST,
    async () => {
      const one = await measure({ ...settings(), workers: { requested: 1, reservedCores: 0 } });
      const two = await measure({ ...settings(), workers: { requested: 2, reservedCores: 0 } });
      for (const s of [one, two]) {
        assert.equal(accounted(s.report), s.report.scheduled);
        assert.equal(s.report.outcomes.ok, s.report.scheduled, JSON.stringify(s.report.outcomes));
        assert.equal(s.offsets.size, s.report.scheduled, "one line per measured request");
      }
      assert.equal(two.report.scheduled, one.report.scheduled);
      assert.deepEqual(
        [...two.offsets.keys()].sort((a, b) => a - b),
        [...one.offsets.keys()].sort((a, b) => a - b),
      );
      for (const [i, offsetMs] of one.offsets) {
        assert.ok(
          Math.abs((two.offsets.get(i) ?? Number.NaN) - offsetMs) < 1e-6,
          `request ${i}'s offset`,
        );
      }
      // Sends near their times: a start converted wrongly between threads (ms for ns, another
      // thread's origin) would put every send far off, not a loaded machine's milliseconds.
      assert.ok((two.report.validity.send_skew_ms.p50 ?? Infinity) < 50, "sends near their times");
      // Progress is the workers' sum: its total is the whole trial's, warm-up included.
      const w = buildWorkload(settings().workload);
      assert.ok(two.progress.length > 0, "progress forwarded");
      const last = two.progress.at(-1);
      assert.equal(last?.total, w.offsetsMs.length);
      // Whatever the machine's load, a reason is named by the worker whose generator broke it.
      for (const reason of two.report.validity.reasons) {
        if (!/^worker [01]\/2: /.test(reason)) {
          assert.match(reason, /offered|late|unsent|skew/, `a merged check's reason: ${reason}`);
        }
      }
    },
  );

  test(
    "builds the tokenizer in each worker: the same prompts' token counts as one thread",
    LOAD_TEST,
    async () => {
      const withTokenizer = settings({ tokenizer: TOKENIZER_DIR, duration: "0.5s" });
      const one = await measure({ ...withTokenizer, workers: { requested: 1, reservedCores: 0 } });
      const two = await measure({ ...withTokenizer, workers: { requested: 2, reservedCores: 0 } });
      assert.ok((one.report.tokens.prompt.intended_mean ?? 0) > 0);
      assert.deepEqual(two.report.tokens.prompt, one.report.tokens.prompt);
      assert.match(two.report.tokens.prompt.counted_by, /tokenizer/);
    },
  );

  test(
    "a cancel ends every worker: the rest unsent, the stop named by each worker",
    LOAD_TEST,
    async () => {
      const cancel = new AbortController();
      const long = settings({ duration: "20s", rate: "20" });
      setTimeout(() => cancel.abort(), 1500);
      const started = performance.now();
      const { report } = await measure(
        { ...long, workers: { requested: 2, reservedCores: 0 } },
        cancel.signal,
      );
      assert.ok(performance.now() - started < 15_000, "ended well before the 20 s schedule");
      assert.equal(accounted(report), report.scheduled);
      assert.ok(report.outcomes.unsent > 0, JSON.stringify(report.outcomes));
      assert.equal(report.validity.valid, false);
      for (const w of ["worker 0/2", "worker 1/2"]) {
        assert.ok(
          report.validity.reasons.some((r) => r.startsWith(`${w}: `) && /hard/.test(r)),
          `${w} named: ${report.validity.reasons.join("; ")}`,
        );
      }
    },
  );
});

test(
  "one worker's late generator invalidates the merged trial, named by that worker alone",
  LOAD_TEST,
  async () => {
    const options = settings({ duration: "0.5s" });
    const workload = buildWorkload(options.workload);
    const states = [];
    for (const index of [0, 1]) {
      const slice = { index, count: 2 };
      const parts = await measureParts(
        options,
        {},
        { slice, startAtMs: performance.now() + 20 },
        workload,
      );
      states.push(partState(parts, slice));
    }
    const quiet = states.map((s) => ({
      ...s,
      readings: {
        ...s.readings,
        eventLoopDelayMs: { p50: 0, p99: 0, max: 0 },
        gc: { count: 0, totalMs: 0 },
      },
    }));
    const late = quiet.map((s, i) =>
      i === 1
        ? { ...s, readings: { ...s.readings, eventLoopDelayMs: { p50: 40, p99: 400, max: 900 } } }
        : s,
    );
    const at = { workload, serverMetrics: null, now: new Date() };
    const calm = mergedReport(options, quiet, at, workerName);
    const broken = mergedReport(options, late, at, workerName);
    const byWorker = (r: TrialReport) => r.validity.reasons.filter((x) => x.startsWith("worker "));
    const added = byWorker(broken).filter((r) => !byWorker(calm).includes(r));
    assert.equal(broken.validity.valid, false);
    assert.equal(added.length, 1, added.join("; "));
    assert.match(added[0] ?? "", /^worker 1\/2: event.loop/i);
    assert.equal(broken.scheduled, calm.scheduled);
  },
);

const standIn = (name: string) => new URL(`../fixtures/workers/${name}.mjs`, import.meta.url);

test(
  "a pool keeps a clean trial's workers for the next; a failed or cancelled trial's stop",
  LOAD_TEST,
  async () => {
    const pool = new WorkerPool(4);
    const options = settings({ duration: "0.5s" });
    const workload = buildWorkload(options.workload);
    const split = (count: number, deps = {}, script = workerUrl()) =>
      measureInWorkers(options, deps, { count, workload, pool, script });
    try {
      const first = await split(2);
      assert.equal(first.outcomes.ok, first.scheduled);
      const kept = pool.idleThreadIds(workerUrl());
      assert.equal(kept.length, 2, "both workers idle after a clean trial");
      const second = await split(2);
      assert.equal(second.outcomes.ok, second.scheduled);
      assert.deepEqual(pool.idleThreadIds(workerUrl()), kept, "the same two served the next");
      await split(3);
      const three = pool.idleThreadIds(workerUrl());
      assert.equal(three.length, 3, "one more started for a trial of three");
      assert.deepEqual(three.slice(0, 2).sort(), [...kept].sort());
      // Cancelled once its first lines arrive: surely started, however busy the machine.
      const cancel = new AbortController();
      await split(2, { signal: cancel.signal, onRequestLine: () => cancel.abort() });
      assert.deepEqual(
        pool.idleThreadIds(workerUrl()),
        three.slice(2),
        "the cancelled two stopped",
      );
      await assert.rejects(split(2, {}, standIn("failing")), /the stand-in failed/);
      assert.deepEqual(pool.idleThreadIds(standIn("failing")), [], "a failed trial's stopped");
    } finally {
      await pool.close();
    }
    assert.deepEqual(pool.idleThreadIds(workerUrl()), []);
  },
);

describe("a split trial's workers that fail", LOAD_TEST, () => {
  const run = (name: string, signal?: AbortSignal) => {
    const options = settings({ duration: "0.5s" });
    const workload = buildWorkload(options.workload);
    const deps = signal ? { signal } : {};
    return measureInWorkers(options, deps, { count: 2, workload, script: standIn(name) });
  };

  test("a worker's error fails the trial, named by the worker", LOAD_TEST, async () => {
    await assert.rejects(run("failing"), /^Error: worker [01]\/2: the stand-in failed$/);
  });

  test(
    "a worker that exits without its part fails the trial, named with its exit code",
    LOAD_TEST,
    async () => {
      await assert.rejects(
        run("exiting"),
        /worker [01]\/2 stopped \(exit code 7\) before its part/,
      );
    },
  );

  test("a cancel while the workers start ends the wait, and stops them", LOAD_TEST, async () => {
    const cancel = new AbortController();
    setTimeout(() => cancel.abort(), 300);
    const started = performance.now();
    await assert.rejects(
      run("stuck", cancel.signal),
      /cancelled before the trial's workers started/,
    );
    assert.ok(performance.now() - started < 60_000, "not the 120 s ready timeout");
  });
});
