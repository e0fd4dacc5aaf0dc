// Cheap checks first (fail-fast, the default): the side-suites run before the
// pairs, and a regression they show ends the gate at the first look — the
// comment still shows the latencies of those pairs; never thirty. With
// fail-fast false the suites run after the pairs, which go on while a metric
// is open. Every verdict says what it cost; `trials` without `max-trials`
// says how far the design may go.

import assert from "node:assert/strict";
import { test } from "node:test";
import { renderMarkdown } from "../../src/report/markdown.ts";
import type { TrialOptions } from "../../src/trial/measure.ts";
import { FAKE_SETTINGS, fakeGateResults, mockPairGate } from "../helpers/gate.ts";
import { LOAD_TEST } from "../helpers/mock.ts";
import { fakeReport } from "../helpers/reports.ts";

/** Stand-in trials noisy enough to leave p95 TTFT open at the first look: the design would add pairs. */
function noisyTrials() {
  const factors = [1, 1.25, 0.85, 1.2, 0.9, 1.3, 0.8, 1.15];
  const next = { baseline: 0, candidate: 0 };
  return async (o: TrialOptions) => {
    const arm = o.workload.textSalt === 1 ? "candidate" : "baseline";
    const k = arm === "candidate" ? (factors[next.candidate++ % factors.length] ?? 1) : 1;
    if (arm === "baseline") next.baseline++;
    return fakeReport({ ttftMs: 100 * k, itlMs: 10 });
  };
}

async function brokenJsonGate(failFast: string) {
  return mockPairGate(
    { candidate: { breakJson: 0.1 } },
    {
      contract: "none",
      accuracy: "none",
      trials: "4",
      "max-trials": "10",
      "fail-fast": failFast,
    },
    { measureTrial: noisyTrials() },
  );
}

test(
  "a quality regression found before the pairs ends the gate at the first look",
  LOAD_TEST,
  async () => {
    const { run, results } = await brokenJsonGate("true");
    assert.equal(run.quality?.verdict, "fail");
    assert.equal(run.verdict, "fail");
    assert.equal(run.pairs, 4, "the first look's pairs, none added");
    const md = renderMarkdown(results, "default");
    assert.match(md, /\| p95 TTFT \(ms\) \|/, "the latencies of those pairs are shown");
    assert.match(
      md,
      /\*\*Cost\*\* — 4 pairs \(8 trials measured; 400 requests on the baseline, 400 on the candidate\)/,
    );
    assert.deepEqual(Object.keys(run.cost?.suites_s ?? {}), ["quality"]);
  },
);

test(
  "fail-fast false: the suites after the pairs, which go on while a metric is open",
  LOAD_TEST,
  async () => {
    const { run } = await brokenJsonGate("false");
    assert.equal(run.quality?.verdict, "fail");
    assert.equal(run.verdict, "fail");
    assert.ok(run.pairs > 4, `${run.pairs} pairs: the design added pairs as before`);
  },
);

test("trials without max-trials: the comment says the design may add pairs up to 30, and how to fix the count", async () => {
  const same = [{ ttftMs: 100, itlMs: 10 }];
  const results = await fakeGateResults(same, same, { trials: "2", "max-trials": "" });
  assert.ok(
    results.warnings.some((w) =>
      /^trials is 2 and max-trials is not set: the design adds pairs while a metric is open, up to 30 — set max-trials: 2 to run exactly 2 pairs/.test(
        w,
      ),
    ),
    results.warnings.join("\n"),
  );
  assert.match(
    renderMarkdown(results, "default"),
    /> ⚠️ \*\*Warning:\*\* trials is 2 and max-trials is not set/,
  );
  // Set, no warning; not given at all, no warning (the default plan).
  const set = await fakeGateResults(same, same, { trials: "2", "max-trials": "2" });
  assert.ok(!set.warnings.some((w) => w.includes("max-trials is not set")));
  const { trials: _t, "max-trials": _m, ...defaults } = FAKE_SETTINGS;
  const plain = await fakeGateResults(same, same, { ...defaults, trials: "", "max-trials": "" });
  assert.ok(!plain.warnings.some((w) => w.includes("max-trials is not set")));
});

test(
  "a regression a cheap suite confirmed skips the costly ones (accuracy), saying why; fail-fast false runs them",
  LOAD_TEST,
  async () => {
    let asked = 0;
    const runItems = async () => {
      asked++;
      return { replies: [], seconds: 0, logprobs: false, startUnixMs: 0 };
    };
    const settings = {
      contract: "none",
      accuracy: "builtin",
      "accuracy-items": "50",
      trials: "2",
      "max-trials": "2",
    };
    const logs: string[] = [];
    const { run } = await mockPairGate(
      { candidate: { breakJson: 0.1 } },
      { ...settings, "fail-fast": "true" },
      { measureTrial: noisyTrials(), runItems, log: (l) => logs.push(l) },
    );
    assert.equal(run.quality?.verdict, "fail");
    assert.equal(run.accuracy, null);
    assert.equal(run.accuracy_skipped, "not run: quality regressed before it (fail-fast)");
    assert.ok(logs.includes("accuracy: not run: quality regressed before it (fail-fast)"));
    assert.equal(asked, 0, "no accuracy item was sent");
    assert.deepEqual(Object.keys(run.cost?.suites_s ?? {}), ["quality"]);
    const after = await mockPairGate(
      { candidate: { breakJson: 0.1 } },
      { ...settings, "fail-fast": "false" },
      { measureTrial: noisyTrials(), runItems },
    );
    assert.equal(after.run.accuracy_skipped, null);
    assert.ok(asked > 0, "without fail-fast the accuracy suite runs");
  },
);
