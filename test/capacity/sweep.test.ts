// The sweep's search against simulated servers (no network): phases in order,
// arms interleaved on the same rates, escalation that stops at an overload,
// a bisection to the resolution, re-runs of invalid points, the budget.

import assert from "node:assert/strict";
import { test } from "node:test";
import { compareCapacity } from "../../src/capacity/compare.ts";
import { estimateCapacity, serverLabel } from "../../src/capacity/estimate.ts";
import { judge, rateGrid, type SweepPoint, type SweepSettings } from "../../src/capacity/points.ts";
import { newSweep, refusedEverything, runSweep } from "../../src/capacity/sweep.ts";
import { parseTrialOptions } from "../../src/config/trial.ts";
import type { TrialOptions, TrialReport } from "../../src/trial/measure.ts";
import { fakeReport } from "../helpers/reports.ts";

const BASE = parseTrialOptions({
  url: "http://127.0.0.1:1/v1",
  model: "m",
  rate: "1",
  slo: "ttft:500",
  duration: "10s",
});

const SETTINGS: SweepSettings = {
  arrival: "poisson",
  syncRequests: 16,
  offlineRequests: 256,
  points: 8,
  resolution: 0.02,
  minAttainment: 0.99,
  maxReruns: 2,
  maxDurationS: undefined,
};

interface Simulated {
  kneePerS: number;
  syncPerS?: number;
  offlinePerS?: number;
  /** Rates at which the first attempt is invalid. */
  invalidOnce?: (rate: number) => boolean;
}

/** A server that meets the SLO up to its knee and loses 5 % attainment per % beyond it. */
function simulate(s: Simulated) {
  const calls: { rate: number | null; phase: string }[] = [];
  const seen = new Set<number>();
  const run = async (o: TrialOptions, label: string): Promise<TrialReport> => {
    const a = o.workload.arrival;
    const rate = a.kind === "poisson" ? a.ratePerS : null;
    calls.push({ rate, phase: label });
    const r = fakeReport({ ttftMs: 100, itlMs: 10 });
    if (rate === null) {
      const perS = o.maxConcurrency === 1 ? (s.syncPerS ?? 5) : (s.offlinePerS ?? 50);
      return { ...r, throughput: { ...r.throughput, requests_per_s: perS } };
    }
    const over = Math.max(0, rate / s.kneePerS - 1);
    const attainment = Math.max(0, 1 - 5 * over);
    const invalid = s.invalidOnce?.(rate) && !seen.has(rate);
    seen.add(rate);
    const scheduled = Math.round(rate * 10);
    // An invalid attempt: on time, every request would have met the SLO (the client's fault).
    const onTime = invalid ? scheduled : Math.round(attainment * scheduled);
    return {
      ...r,
      scheduled,
      window_s: 10,
      goodput: { ...r.goodput, attainment, good_on_time: onTime },
      validity: invalid
        ? { ...r.validity, valid: false, reasons: ["simulated lateness"] }
        : r.validity,
    };
  };
  return { calls, run };
}

const noLog = () => {};

test("finding 10: a late point is judged by whether its lateness can explain the SLO miss", () => {
  const r = fakeReport({ ttftMs: 100, itlMs: 10 });
  const late = (good: number, goodOnTime: number): TrialReport => ({
    ...r,
    scheduled: 100,
    goodput: { ...r.goodput, good, good_on_time: goodOnTime, attainment: good / 100 },
    validity: { ...r.validity, valid: false, reasons: ["the offered load changed"] },
  });
  // Seconds over the SLO even counted from the actual sends: a few ms late changes nothing.
  assert.equal(judge(late(60, 60), 0.99), "fail");
  assert.equal(judge(late(20, 30), 0.99), "overload");
  // On time it would have met the SLO: the client, not the server — measured again.
  assert.equal(judge(late(90, 100), 0.99), "invalid");
  // Requests that never went out: the client's failure, whatever the attainment.
  const unsent = late(60, 60);
  assert.equal(judge({ ...unsent, outcomes: { ...unsent.outcomes, unsent: 3 } }, 0.99), "invalid");
  // A valid point is judged on its attainment, as before.
  assert.equal(judge({ ...r, goodput: { ...r.goodput, attainment: 0.995 } }, 0.99), "pass");
});

test("the grid: points evenly spaced above the synchronous rate, up to the offline one", () => {
  assert.deepEqual(rateGrid(5, 45, 4), [15, 25, 35, 45]);
  assert.deepEqual(rateGrid(0.5, 1, 2), [0.75, 1]);
  // An offline burst slower than one at a time still leaves a grid to climb.
  assert.deepEqual(rateGrid(10, 8, 2), [15, 20]);
});

test("one arm: synchronous, offline, ascending rates, then a bisection to the resolution", async () => {
  const sim = simulate({ kneePerS: 33 });
  const sweep = newSweep(["endpoint"] as const);
  await runSweep(sweep, { endpoint: BASE }, SETTINGS, {
    run: (_a, o, l) => sim.run(o, l),
    nowMs: () => 0,
    log: noLog,
  });
  assert.deepEqual(
    sim.calls.slice(0, 2).map((c) => c.phase),
    ["synchronous", "offline"],
  );
  const points = sweep.arms.endpoint.points;
  const rates = points.filter((p) => p.phase === "rate").map((p) => p.rate_per_s);
  // Escalation stops at the first rate below half the target attainment: 40 req/s (+21 % → 0).
  assert.deepEqual(rates, [10.6, 16.3, 21.9, 27.5, 33.1, 38.8]);
  assert.match(sweep.arms.endpoint.stopped ?? "", /stopped escalating at 38.8 req\/s/);
  const estimate = estimateCapacity(sweep.arms.endpoint, 0.99);
  assert.ok(estimate.pass_per_s !== null && estimate.fail_per_s !== null);
  assert.ok((estimate.fail_per_s - estimate.pass_per_s) / estimate.pass_per_s <= 0.02);
  assert.ok(estimate.pass_per_s <= 33 && estimate.fail_per_s > 33, JSON.stringify(estimate));
  const capacity = estimate.capacity_per_s as number;
  assert.ok(Math.abs(capacity / 33 - 1) < 0.02, `capacity ${capacity}`);
  assert.match(
    serverLabel(estimate, "poisson", "ttft:500"),
    /^Server \(Poisson, SLO ttft:500\): 3\d\.\d req\/s$/,
  );
});

test("two arms run the same rates back to back in alternating order, each bisected on its own", async () => {
  const order: string[] = [];
  const base = simulate({ kneePerS: 40 });
  const cand = simulate({ kneePerS: 30 });
  const sweep = newSweep(["baseline", "candidate"] as const);
  await runSweep(sweep, { baseline: BASE, candidate: BASE }, SETTINGS, {
    run: (arm, o, l) => {
      order.push(`${arm} ${l}`);
      return (arm === "baseline" ? base : cand).run(o, l);
    },
    nowMs: () => 0,
    log: noLog,
  });
  assert.deepEqual(order.slice(0, 6), [
    "baseline synchronous",
    "candidate synchronous",
    "candidate offline",
    "baseline offline",
    "baseline 10.6 req/s",
    "candidate 10.6 req/s",
  ]);
  const grid = (arm: "baseline" | "candidate") =>
    sweep.arms[arm].points.filter((p) => p.phase === "rate").map((p) => p.rate_per_s);
  // The candidate stops earlier; below that, both ran the same rates.
  assert.deepEqual(grid("candidate"), grid("baseline").slice(0, grid("candidate").length));
  const b = estimateCapacity(sweep.arms.baseline, 0.99);
  const c = estimateCapacity(sweep.arms.candidate, 0.99);
  const cmp = compareCapacity(b, c, 0.05, 0.02);
  assert.equal(cmp.verdict, "regressed");
  assert.ok(Math.abs((cmp.change as number) + 0.25) < 0.03, `change ${cmp.change}`);
  assert.ok((cmp.change_high as number) < -0.05);
});

test("an invalid point is measured again; the budget stops the sweep with what it learned", async () => {
  const sim = simulate({ kneePerS: 33, invalidOnce: (r) => r === 16.3 });
  const sweep = newSweep(["endpoint"] as const);
  await runSweep(sweep, { endpoint: BASE }, SETTINGS, {
    run: (_a, o, l) => sim.run(o, l),
    nowMs: () => 0,
    log: noLog,
  });
  const at = sweep.arms.endpoint.points.filter((p) => p.rate_per_s === 16.3);
  assert.deepEqual(
    at.map((p) => p.judgement),
    ["invalid", "pass"],
  );

  let now = 0;
  const budgeted = newSweep(["endpoint"] as const);
  const sim2 = simulate({ kneePerS: 33 });
  await runSweep(
    budgeted,
    { endpoint: BASE },
    { ...SETTINGS, maxDurationS: 35 },
    {
      run: (_a, o, l) => {
        now += 10_000;
        return sim2.run(o, l);
      },
      nowMs: () => now,
      log: noLog,
    },
  );
  assert.equal(budgeted.arms.endpoint.points.length, 4);
  assert.match(budgeted.stopped_by ?? "", /max-duration 35 s reached after 4 trials/);
});

test("a server that passes the whole grid is swept beyond the offline rate until it fails", async () => {
  const sim = simulate({ kneePerS: 62, offlinePerS: 50 });
  const sweep = newSweep(["endpoint"] as const);
  await runSweep(sweep, { endpoint: BASE }, SETTINGS, {
    run: (_a, o, l) => sim.run(o, l),
    nowMs: () => 0,
    log: noLog,
  });
  const e = estimateCapacity(sweep.arms.endpoint, 0.99);
  assert.ok((sweep.grid.at(-1) as number) > 50, `grid ${sweep.grid}`);
  assert.ok(e.fail_per_s !== null && e.pass_per_s !== null, JSON.stringify(e));
  assert.ok(Math.abs((e.capacity_per_s as number) / 62 - 1) < 0.02);
});

test("capacity comparison: a regression only beyond the tolerance and the brackets", () => {
  const est = (pass: number | null, fail: number | null) => ({
    capacity_per_s: pass,
    pass_per_s: pass,
    fail_per_s: fail,
    method: "",
    non_monotone: false,
    synchronous: null,
    offline: null,
  });
  // 3 % apart, brackets 2 % wide: within the 5 % tolerance.
  assert.equal(compareCapacity(est(50, 51), est(48.5, 49.5), 0.05, 0.02).verdict, "pass");
  // 20 % down: the candidate failed where the baseline passed.
  assert.equal(compareCapacity(est(50, 51), est(40, 40.8), 0.05, 0.02).verdict, "regressed");
  // 6 % down with wide brackets: allowed, not shown.
  assert.equal(compareCapacity(est(50, 55), est(47, 52), 0.05, 0.02).verdict, "inconclusive");
  // A drop below the resolution is never a regression, whatever the tolerance.
  assert.notEqual(
    compareCapacity(est(50, 50.5), est(49.4, 49.9), 0.001, 0.02).verdict,
    "regressed",
  );
  // No baseline capacity: nothing to compare with.
  assert.equal(compareCapacity(est(null, 10), est(20, 21), 0.05, 0.02).verdict, "inconclusive");
  // A candidate that met its SLO at no rate, where the baseline held 50.
  assert.equal(compareCapacity(est(50, 51), est(null, 10.6), 0.05, 0.02).verdict, "regressed");
});

test("an endpoint that fails every synchronous request stops the sweep, blamed on the endpoint, not the client", async () => {
  const calls: string[] = [];
  const refused = (scheduled: number): TrialReport => {
    const r = fakeReport({ ttftMs: 100, itlMs: 10 });
    return {
      ...r,
      scheduled,
      outcomes: { ...r.outcomes, ok: 0, http_4xx: scheduled },
      validity: { ...r.validity, valid: false, reasons: ["no ok request"] },
    };
  };
  const sweep = newSweep(["baseline", "candidate"] as const);
  await runSweep(sweep, { baseline: BASE, candidate: BASE }, SETTINGS, {
    run: async (arm, _o, label) => {
      calls.push(`${arm} ${label}`);
      return arm === "candidate" ? refused(16) : fakeReport({ ttftMs: 100, itlMs: 10 });
    },
    nowMs: () => 0,
    log: noLog,
  });
  // The baseline's synchronous phase, then the candidate's and its re-runs: nothing after them.
  assert.deepEqual(calls, [
    "baseline synchronous",
    "candidate synchronous",
    "candidate synchronous",
    "candidate synchronous",
  ]);
  assert.equal(sweep.refused_by, "candidate");
  assert.equal(
    sweep.stopped_by,
    "the candidate's endpoint failed every synchronous request (16 of 16: 16 http_4xx) — the endpoint's failure, not the client's: no rate was swept",
  );
  // A point where some came back ok is a measurement, whatever failed.
  const some = refused(16);
  assert.equal(
    refusedEverything("endpoint", { ...some, outcomes: { ...some.outcomes, ok: 1 } }),
    null,
  );
  // Nothing sent at all is the client's finding (its self-checks say why).
  assert.equal(
    refusedEverything("endpoint", {
      ...some,
      outcomes: { ...some.outcomes, http_4xx: 0, unsent: 16 },
    }),
    null,
  );
});

test("a knee the client may have set (its failing point failed the self-checks) never passes a capacity", () => {
  const est = (pass: number, fail: number, client: string | null = null) => ({
    capacity_per_s: pass,
    pass_per_s: pass,
    fail_per_s: fail,
    client_limited: client,
    method: "",
    non_monotone: false,
    synchronous: null,
    offline: null,
  });
  const starved = "at 51 req/s: the trial failed its self-checks (event-loop delay p99 80 ms)";
  // The field's case: both knees the client's, 4 % apart — no pass, said why.
  const both = compareCapacity(est(50, 51, starved), est(48.5, 49.5, starved), 0.05, 0.02);
  assert.equal(both.verdict, "inconclusive");
  assert.match(
    both.reason,
    /^the knee may be the client's, not the server's — the baseline's knee at 51 req\/s: .*; the candidate's knee at 51 req\/s/,
  );
  assert.match(both.reason, /run where the load generator has idle cores/);
  // The baseline's knee the client's: its capacity is known from below only, no pass.
  assert.equal(
    compareCapacity(est(50, 51, starved), est(49.5, 50.4), 0.05, 0.02).verdict,
    "inconclusive",
  );
  // The candidate failing at a server's knee below where the baseline passed: still a regression.
  assert.equal(
    compareCapacity(est(50, 51, starved), est(40, 40.8), 0.05, 0.02).verdict,
    "regressed",
  );
  // The candidate's knee the client's: no regression claimed from it.
  assert.equal(
    compareCapacity(est(50, 51), est(40, 40.8, starved), 0.05, 0.02).verdict,
    "inconclusive",
  );
  // A candidate already passing up to the baseline's (the server's) failing rate passes.
  assert.equal(compareCapacity(est(50, 51), est(49.5, 50.4, starved), 0.05, 0.02).verdict, "pass");
});

test("a failing point is the client's when its trial failed a self-check other than the hard deadline", () => {
  const r = fakeReport({ ttftMs: 100, itlMs: 10 });
  const point = (valid: boolean, reasons: string[]): SweepPoint => ({
    phase: "rate",
    rate_per_s: 20,
    judgement: "fail",
    report: { ...r, validity: { ...r.validity, valid, reasons } },
  });
  const arm = (fail: SweepPoint) => ({
    points: [{ ...point(true, []), judgement: "pass" as const, rate_per_s: 10 }, fail],
    stopped: null,
  });
  assert.equal(estimateCapacity(arm(point(true, [])), 0.99).client_limited, null);
  // Valid within the limits it was given, yet the machine was busy: the field's starved run.
  const busy = point(true, []);
  const v = busy.report.validity;
  busy.report = {
    ...busy.report,
    scheduled: 164,
    validity: {
      ...v,
      late_sends: 64,
      late_send_ms: 1.8,
      event_loop_delay_ms: { p50: 1.3, p99: 9.9, max: 10.6 },
    },
  };
  assert.equal(
    estimateCapacity(arm(busy), 0.99).client_limited,
    "at 20 req/s: the machine was busy (39 % of its sends were late by more than 1.8 ms; its event loop was held 9.9 ms at p99)",
  );
  assert.equal(
    estimateCapacity(
      arm(point(false, ["event-loop delay p99 80 ms exceeds max-event-loop-delay-ms 50"])),
      0.99,
    ).client_limited,
    "at 20 req/s: the trial failed its self-checks (event-loop delay p99 80 ms exceeds max-event-loop-delay-ms 50)",
  );
  assert.equal(
    estimateCapacity(
      arm(
        point(false, ["the trial ran into its hard deadline; outstanding requests were cut off"]),
      ),
      0.99,
    ).client_limited,
    null,
  );
});
