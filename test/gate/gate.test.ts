import assert from "node:assert/strict";
import { test } from "node:test";
import { parseConfig } from "../../src/config/config.ts";
import type { RawSettings } from "../../src/config/settings.ts";
import { runGate } from "../../src/gate/gate.ts";
import type { MeasureOptions, MeasureReport } from "../../src/measure/measure.ts";
import { headlineFor } from "../../src/report/headline.ts";
import { type FakeTrial, fakeReport } from "../helpers/reports.ts";

const BASE = {
  "baseline-url": "http://127.0.0.1:8001/v1",
  "candidate-url": "http://127.0.0.1:8002/v1",
  model: "m",
  rate: "10",
  "quality-suite": "none",
};

/** A measure stand-in: each arm's trials in turn, from a list. */
function scripted(trials: { baseline: FakeTrial[]; candidate: FakeTrial[] }) {
  const next = { baseline: 0, candidate: 0 };
  const calls: string[] = [];
  const measure = async (c: MeasureOptions): Promise<MeasureReport> => {
    const arm = c.target.baseUrl.includes("8001") ? "baseline" : "candidate";
    calls.push(arm);
    const list = trials[arm];
    return fakeReport(list[next[arm]++ % list.length] as FakeTrial);
  };
  return { measure, calls };
}

const same = (ttftMs: number, itlMs = 10): FakeTrial => ({ ttftMs, itlMs });

const gateOf = (settings: RawSettings) => parseConfig(settings).gate;

test("pairs run counterbalanced, one arm at a time, and identical arms pass", async () => {
  const s = scripted({
    baseline: [same(100), same(102), same(99)],
    candidate: [same(101), same(100), same(100)],
  });
  const out = await runGate(gateOf(BASE), { measure: s.measure });
  assert.deepEqual(s.calls, [
    "baseline",
    "candidate",
    "candidate",
    "baseline",
    "baseline",
    "candidate",
  ]);
  assert.equal(out.verdict, "pass");
  assert.deepEqual(out.guards, []);
  assert.deepEqual(
    out.comparisons.map((c) => c.id),
    ["goodput", "ttft", "itl"],
  );
  assert.equal(out.trials.length, 6);
});

test("a regressed metric fails the gate and is named in the headline", async () => {
  const s = scripted({
    baseline: [same(100), same(101), same(99)],
    candidate: [same(130), same(132), same(129)],
  });
  const out = await runGate(gateOf(BASE), { measure: s.measure });
  assert.equal(out.verdict, "fail");
  assert.match(headlineFor(out), /regressed: p95 TTFT \+30\.\d % \(limit \+10\.0 %\)/);
});

test("beyond the tolerance but noisy: inconclusive; max-trials adds pairs with the α split over looks", async () => {
  const trials = {
    baseline: [same(100), same(100), same(100)],
    candidate: [same(150), same(95), same(110)],
  };
  const out = await runGate(gateOf(BASE), { measure: scripted(trials).measure });
  assert.equal(out.verdict, "inconclusive");
  const adaptive = await runGate(gateOf({ ...BASE, "max-trials": "5" }), {
    measure: scripted(trials).measure,
  });
  assert.equal(adaptive.looks, 3);
  assert.ok(Math.abs(adaptive.confidence_per_look - (1 - 0.05 / 3)) < 1e-12);
  assert.ok(adaptive.pairs > 3 && adaptive.pairs <= 5, `${adaptive.pairs} pairs`);
});

test("guards: an invalid trial, too many errors, too few ok requests, different workloads → error", async () => {
  const cases: [{ baseline: FakeTrial[]; candidate: FakeTrial[] }, RegExp][] = [
    [
      { baseline: [same(100)], candidate: [{ ...same(100), valid: false }] },
      /pair 1 candidate: invalid measurement: the trial ran into its hard deadline/,
    ],
    [
      {
        baseline: [same(100)],
        candidate: [{ ...same(100), failed: { http_5xx: 3, censored: 1 } }],
      },
      /candidate: 3\.8 % of requests failed \(limit 1\.0 %\): http_5xx 9, censored 3/,
    ],
    [
      { baseline: [{ ...same(100), ok: 5 }], candidate: [same(100)] },
      /pair 1 baseline: only 5 ok requests \(at least 10 needed\)/,
    ],
    [
      { baseline: [same(100)], candidate: [{ ...same(100), fingerprint: "ffff0000" }] },
      /pair 1: the arms ran different workloads/,
    ],
  ];
  for (const [trials, reason] of cases) {
    const out = await runGate(gateOf(BASE), { measure: scripted(trials).measure });
    assert.equal(out.verdict, "error");
    assert.match(out.guards.map((g) => g.message).join("\n"), reason);
    assert.match(headlineFor(out), /^no performance verdict: /);
  }
});

test("optional metrics join the gate when their tolerance is set", async () => {
  const s = scripted({ baseline: [same(100)], candidate: [same(100)] });
  const out = await runGate(
    gateOf({
      ...BASE,
      "max-tpot-regression": "15%",
      "max-e2el-regression": "0.2",
      "max-success-rate-drop": "1%",
    }),
    { measure: s.measure },
  );
  assert.deepEqual(
    out.comparisons.map((c) => [c.id, c.tolerance]),
    [
      ["goodput", 0.05],
      ["ttft", 0.1],
      ["itl", 0.1],
      ["tpot", 0.15],
      ["e2el", 0.2],
      ["success_rate", 0.01],
    ],
  );
});
