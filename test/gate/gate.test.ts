import assert from "node:assert/strict";
import { test } from "node:test";
import { parseConfig } from "../../src/config/config.ts";
import type { RawSettings } from "../../src/config/settings.ts";
import { runGate } from "../../src/gate/gate.ts";
import { headlineFor } from "../../src/report/headline.ts";
import type { TrialOptions, TrialReport } from "../../src/trial/measure.ts";
import { buildWorkload } from "../../src/workload/plan.ts";
import { messagesFor } from "../../src/workload/prompts.ts";
import { NO_CHECKS } from "../helpers/gate.ts";
import { type FakeTrial, fakeReport } from "../helpers/reports.ts";

const BASE = {
  "baseline-url": "http://127.0.0.1:8001/v1",
  "candidate-url": "http://127.0.0.1:8002/v1",
  model: "m",
  rate: "10",
  "quality-suite": "none",
  accuracy: "none",
  contract: "none",
  // Three pairs, one look: the mechanics below, not the default design (test/compare has that).
  trials: "3",
  "max-trials": "3",
  // About 100 requests a trial: too few to show a failure rate within half a point
  // (300 requests per arm without a failure bound it at +0.7 points), enough for two.
  "max-failure-increase": "2%",
};

/** A measure stand-in: each arm's trials in turn, from a list. */
function scripted(trials: { baseline: FakeTrial[]; candidate: FakeTrial[] }) {
  const next = { baseline: 0, candidate: 0 };
  const calls: string[] = [];
  const measureTrial = async (c: TrialOptions): Promise<TrialReport> => {
    const arm = c.target.baseUrl.includes("8001") ? "baseline" : "candidate";
    calls.push(arm);
    const list = trials[arm];
    return fakeReport(list[next[arm]++ % list.length] as FakeTrial);
  };
  return { measureTrial, calls };
}

const same = (ttftMs: number, itlMs = 10): FakeTrial => ({ ttftMs, itlMs });

const gateOf = (settings: RawSettings) => parseConfig(settings).gate;

test("pairs run counterbalanced, one arm at a time, and identical arms pass", async () => {
  const s = scripted({
    baseline: [same(100), same(102), same(99)],
    candidate: [same(101), same(100), same(100)],
  });
  const out = await runGate(gateOf(BASE), { measureTrial: s.measureTrial, checks: NO_CHECKS });
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
  const out = await runGate(gateOf(BASE), { measureTrial: s.measureTrial, checks: NO_CHECKS });
  assert.equal(out.verdict, "fail");
  assert.match(headlineFor(out), /regressed: p95 TTFT \+30\.\d % \(limit \+10\.0 %\)/);
});

test("beyond the tolerance but noisy: inconclusive; max-trials adds pairs, look by look", async () => {
  const trials = {
    baseline: [same(100), same(100), same(100)],
    candidate: [same(150), same(95), same(110)],
  };
  const out = await runGate(gateOf({ ...BASE, trials: "3", "max-trials": "3" }), {
    measureTrial: scripted(trials).measureTrial,
    checks: NO_CHECKS,
  });
  assert.equal(out.verdict, "inconclusive");
  const adaptive = await runGate(gateOf({ ...BASE, trials: "3", "max-trials": "5" }), {
    measureTrial: scripted(trials).measureTrial,
    checks: NO_CHECKS,
  });
  // Looks after 3 pairs and after an AB + BA block; α spent over both.
  assert.deepEqual(adaptive.design?.looks, [3, 5]);
  assert.ok((adaptive.design?.critical[0] ?? 0) > (adaptive.design?.critical[1] ?? Infinity));
  assert.ok(adaptive.pairs > 3 && adaptive.pairs <= 5, `${adaptive.pairs} pairs`);
});

test("guards: an invalid trial, a broken baseline, quota limits, too few ok requests, different workloads → error", async () => {
  const cases: [{ baseline: FakeTrial[]; candidate: FakeTrial[] }, RegExp][] = [
    [
      { baseline: [same(100)], candidate: [{ ...same(100), valid: false }] },
      /pair 1 candidate: invalid measurement: the trial ran into its hard deadline/,
    ],
    [
      {
        baseline: [{ ...same(100), failed: { http_5xx: 3, censored: 1 } }],
        candidate: [same(100)],
      },
      /the baseline itself failed 3\.8 % of its requests; it answered 2\.9 % of requests with HTTP 500 \(limit max-error-rate 1\.0 %; http_5xx 9, censored 3\): the reference is broken/,
    ],
    [
      {
        baseline: [{ ...same(100), failed: { rate_limited_quota: 5 } }],
        candidate: [{ ...same(100), failed: { rate_limited_quota: 5 } }],
      },
      /baseline: 4\.8 % of requests were refused by the API quota/,
    ],
    [
      { baseline: [{ ...same(100), ok: 5 }], candidate: [same(100)] },
      /pair 1 baseline: only 5 ok requests \(at least 10 needed, min-ok-requests\)/,
    ],
    [
      { baseline: [same(100)], candidate: [{ ...same(100), fingerprint: "ffff0000" }] },
      /pair 1: the arms ran different workloads/,
    ],
  ];
  for (const [trials, reason] of cases) {
    const out = await runGate(gateOf(BASE), {
      measureTrial: scripted(trials).measureTrial,
      checks: NO_CHECKS,
    });
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
    }),
    { measureTrial: s.measureTrial, checks: NO_CHECKS },
  );
  assert.deepEqual(
    out.comparisons.map((c) => [c.id, c.tolerance]),
    [
      ["goodput", 0.05],
      ["ttft", 0.1],
      ["itl", 0.1],
      ["tpot", 0.15],
      ["e2el", 0.2],
    ],
  );
});

test("reliability: a candidate that fails more often fails the gate, naming the class and both rates", async () => {
  const healthy = [same(100), same(100), same(100)];
  const cases: [Partial<Record<string, number>>, RegExp][] = [
    [
      { http_5xx: 6 },
      /regressed: the candidate answered 5\.7 % of requests with HTTP 500 vs 0\.0 % on the baseline/,
    ],
    [
      { empty: 6 },
      /regressed: the candidate silently dropped 5\.7 % of requests \(an empty 200 stream\) vs 0\.0 %/,
    ],
    [
      { truncated: 6 },
      /regressed: the candidate cut off 5\.7 % of requests \(the stream ended without/,
    ],
  ];
  for (const [failed, headline] of cases) {
    const sick = { ...same(100), failed };
    const out = await runGate(gateOf(BASE), {
      measureTrial: scripted({ baseline: healthy, candidate: [sick, sick, sick] }).measureTrial,
      checks: NO_CHECKS,
    });
    assert.equal(out.verdict, "fail", headlineFor(out));
    assert.equal(out.reliability?.verdict, "regressed");
    assert.ok(
      (out.reliability?.increase_lower ?? 0) > 0.01,
      `the increase's lower bound ${out.reliability?.increase_lower} is beyond half the tolerance`,
    );
    assert.deepEqual(out.guards, [], "a sick candidate is a regression, not a measurement error");
    assert.match(headlineFor(out), headline);
  }
  // The same failures on both arms: not the candidate's regression (here the baseline is broken too).
  const both = { ...same(100), failed: { http_5xx: 3 } };
  const out = await runGate(gateOf(BASE), {
    measureTrial: scripted({ baseline: [both], candidate: [both] }).measureTrial,
    checks: NO_CHECKS,
  });
  assert.notEqual(out.verdict, "fail");
  assert.notEqual(out.reliability?.verdict, "regressed");
  assert.equal(out.verdict, "error");
  assert.match(headlineFor(out), /the baseline itself answered 2\.9 % of requests with HTTP 500/);
  // Quota refusals are the caller's: excluded from the rates (reliability-exclude), reported.
  const quota = { ...same(100), failed: { rate_limited_quota: 1 } };
  const q = await runGate(gateOf(BASE), {
    measureTrial: scripted({ baseline: healthy, candidate: [quota] }).measureTrial,
    checks: NO_CHECKS,
  });
  assert.equal(q.reliability?.candidate.failed, 0);
  assert.equal(q.reliability?.candidate.excluded, 3);
  assert.equal(q.verdict, "pass");
});

test("a candidate that fails every request is a regression, not a measurement error", async () => {
  const dead = { ...same(100), ok: 0, failed: { connect_error: 100 } };
  const out = await runGate(gateOf(BASE), {
    measureTrial: scripted({ baseline: [same(100)], candidate: [dead] }).measureTrial,
    checks: NO_CHECKS,
  });
  assert.equal(out.verdict, "fail", headlineFor(out));
  assert.match(headlineFor(out), /could not connect for 100\.0 % of requests/);
  assert.ok(
    out.guards.every((g) => g.scope === "candidate"),
    JSON.stringify(out.guards),
  );
});

test("a trial that fails its self-checks is re-run with its pair; only re-runs that fail too make an error", async () => {
  const bad = { ...same(100), valid: false };
  // The first candidate trial is invalid, its re-run is not: the pair is run again, whole.
  const once = scripted({
    baseline: [same(100)],
    candidate: [bad, same(100), same(100), same(100)],
  });
  const out = await runGate(gateOf(BASE), { measureTrial: once.measureTrial, checks: NO_CHECKS });
  assert.equal(out.verdict, "pass", headlineFor(out));
  assert.deepEqual(
    out.reruns.map((r) => [r.pair, r.attempt, r.invalid.map((i) => i.arm)]),
    [[0, 1, ["candidate"]]],
  );
  assert.equal(out.trials.length, 6, "the invalid pair is replaced, not kept");
  assert.deepEqual(once.calls.slice(0, 4), ["baseline", "candidate", "baseline", "candidate"]);
  // Always invalid: max-reruns (2) re-runs, then error.
  const always = scripted({ baseline: [same(100)], candidate: [bad] });
  const stuck = await runGate(gateOf({ ...BASE, trials: "1" }), {
    measureTrial: always.measureTrial,
    checks: NO_CHECKS,
  });
  assert.equal(stuck.verdict, "error");
  assert.equal(stuck.reruns.length, 2);
  assert.equal(always.calls.length, 6);
  assert.match(headlineFor(stuck), /pair 1 candidate: invalid measurement/);
});

test("each arm passes its preflight before the first trial, and every trial starts on an idle server", async () => {
  const s = scripted({ baseline: [same(100)], candidate: [same(100)] });
  const seen: string[] = [];
  const out = await runGate(gateOf({ ...BASE, trials: "2" }), {
    measureTrial: async (m) => {
      seen.push(`measure ${m.target.baseUrl.includes("8001") ? "baseline" : "candidate"}`);
      return s.measureTrial(m);
    },
    checks: {
      preflight: async (arm, target, timeoutS) => {
        seen.push(`preflight ${arm}`);
        return NO_CHECKS.preflight(arm, target, timeoutS);
      },
      waitIdle: async (target, idleTtftMs, timeoutS, metrics) => {
        seen.push("idle");
        const check = await NO_CHECKS.waitIdle(target, idleTtftMs, timeoutS, metrics);
        return seen.filter((x) => x === "idle").length === 2 ? { ...check, busy: true } : check;
      },
    },
  });
  assert.deepEqual(seen.slice(0, 4), [
    "preflight baseline",
    "preflight candidate",
    "idle",
    "measure baseline",
  ]);
  assert.equal(out.preflight.length, 2);
  assert.equal(out.idle_checks.length, 4);
  assert.deepEqual(
    out.idle_checks.map((c) => c.busy),
    [false, true, false, false],
  );
});

test("finding 11: a late trial is re-run only when its lateness could change a verdict", async () => {
  // 50 % slower, and late sends moved the candidate's TTFT by 12 %: still beyond every margin.
  const slow = scripted({
    baseline: [same(100)],
    candidate: [{ ...same(150), late: 0.12 }, same(151), same(149)],
  });
  const kept = await runGate(gateOf(BASE), { measureTrial: slow.measureTrial, checks: NO_CHECKS });
  assert.deepEqual(kept.reruns, [], "nothing to re-run: the lateness cannot change the verdict");
  assert.equal(kept.verdict, "fail", headlineFor(kept));
  const first = kept.trials.find((t) => t.arm === "candidate" && t.pair === 0);
  assert.equal(first?.report.validity.valid, true);
  assert.match(first?.report.validity.warnings.join() ?? "", /kept: late sends moved p95 TTFT/);
  // 12 % slower, and 8 % of it may be the client's: that straddles the fail floor — re-run.
  const close = scripted({
    baseline: [same(100)],
    candidate: [{ ...same(112), late: 0.08 }, same(112), same(112), same(112)],
  });
  const rerun = await runGate(gateOf(BASE), {
    measureTrial: close.measureTrial,
    checks: NO_CHECKS,
  });
  assert.deepEqual(
    rerun.reruns.map((r) => [r.pair, r.invalid.map((x) => x.arm)]),
    [[0, ["candidate"]]],
  );
});

test("findings 7, 8: every trial sends its own prompt texts — per pair, per re-run, per arm — of the same lengths", async () => {
  const seen: { arm: string; texts: string[]; fingerprint: string }[] = [];
  let calls = 0;
  const measureTrial = async (c: TrialOptions): Promise<TrialReport> => {
    const workload = buildWorkload(c.workload);
    const texts = [0, 1, 2].map((i) => messagesFor(workload, i)[0]?.content ?? "");
    seen.push({
      arm: c.target.baseUrl.includes("8001") ? "b" : "c",
      texts,
      fingerprint: workload.fingerprint,
    });
    // The first candidate trial is invalid: its pair is run again.
    return fakeReport({ ...same(100), valid: calls++ !== 1 });
  };
  await runGate(gateOf({ ...BASE, trials: "2", "max-trials": "2", "prefix-groups": "2" }), {
    measureTrial,
    checks: NO_CHECKS,
  });
  // Pair 1 (invalid), pair 1 again, pair 2: abba, so b c b c c b.
  assert.deepEqual(
    seen.map((s) => s.arm),
    ["b", "c", "b", "c", "c", "b"],
  );
  const all = seen.flatMap((s) => s.texts);
  assert.equal(
    new Set(all).size,
    all.length,
    "no text is sent twice: not across arms, pairs or re-runs",
  );
  // Distinct texts, identical lengths and schedule: the arms still run one workload.
  for (let i = 0; i < 3; i++) assert.equal(new Set(seen.map((s) => s.texts[i]?.length)).size, 1);
  assert.equal(new Set(seen.map((s) => s.fingerprint)).size, 1);
  // Shared prefixes: the same within an arm (a cache should hold them), never across arms.
  const prefix = (s: (typeof seen)[number]) => s.texts[0]?.slice(0, 2048);
  const [b1, c1, b2] = [seen[0], seen[1], seen[2]].map((s) => (s ? prefix(s) : ""));
  assert.notEqual(b1, c1);
  assert.equal(b1, b2);
});
