// Absolute budgets: the setting, the operating characteristic of a latency
// budget on simulated trials, the failure-rate budget's bound, and gates in
// which a candidate within the relative tolerance misses a budget.

import assert from "node:assert/strict";
import { test } from "node:test";
import { countsTrial, Simulator } from "../../bench/simulate.ts";
import { checkBudgets } from "../../src/compare/budgets.ts";
import { designOf, sharesOf } from "../../src/compare/decide-run.ts";
import { parseBudgets } from "../../src/config/budget.ts";
import { parseDecision } from "../../src/config/decision.ts";
import { headlineFor } from "../../src/report/headline.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { trustResults } from "../../src/results/trust.ts";
import { fakeGateResults } from "../helpers/gate.ts";
import { fakeReport } from "../helpers/reports.ts";

test("the budget setting: the SLO syntax, a failure rate as a percentage, each refused value named", () => {
  assert.deepEqual(parseBudgets("budget", "ttft:800 itl:50 errors:0.1% goodput:9.5"), {
    ttft: 800,
    itl: 50,
    errors: 0.001,
    goodput: 9.5,
  });
  assert.deepEqual(parseBudgets("budget", "none"), {});
  assert.throws(
    () => parseBudgets("budget", "ttfb:800"),
    /budget: unknown budget "ttfb"; accepted: ttft, itl, tpot, e2el, goodput, errors/,
  );
  assert.throws(() => parseBudgets("budget", "ttft:800 ttft:700"), /"ttft" is given twice/);
  assert.throws(() => parseBudgets("budget", "ttft:-1"), /budget ttft/);
  assert.throws(() => parseBudgets("budget", "errors:0"), /budget errors/);
  assert.throws(() => parseBudgets("budget", "800"), /key:value pairs/);
});

test("each budget is one more share of the fail α: the latencies' or the rates'", () => {
  const plain = parseDecision({});
  assert.deepEqual(sharesOf(plain), { latencies: 2, rates: 2 });
  const budgeted = parseDecision({ budget: "ttft:800 itl:50 errors:1% goodput:9" });
  assert.deepEqual(sharesOf(budgeted), { latencies: 4, rates: 4 });
  const design = designOf({ trials: 4, maxTrials: 30 }, 0.95, 4, 4);
  assert.ok(Math.abs(design.fail_alpha - 0.05 / 5) < 1e-12);
  assert.ok(Math.abs(design.rates_fail_alpha - 0.05 / 5 / 4) < 1e-12);
});

function share(gates: number, run: () => string, verdict: string): number {
  let n = 0;
  for (let g = 0; g < gates; g++) if (run() === verdict) n++;
  return n / gates;
}

test("a latency budget: no miss at the budget, no met just above it, a clear miss found", () => {
  const sim = new Simulator(31);
  const at = (ratio: number, sd: number) => () => sim.budgetGate(ratio, sd).verdict;
  // Exactly at the limit the fail boundary's share of α (1.25 %) bounds a false miss.
  assert.ok(share(400, at(1, 0.05), "missed") <= 0.03);
  assert.ok(
    share(400, at(1.02, 0.05), "met") <= 0.06,
    "a candidate over its budget is not shown within it",
  );
  assert.ok(share(200, at(1.3, 0.05), "missed") >= 0.95);
  assert.ok(share(200, at(0.75, 0.05), "met") >= 0.95);
});

test("the failure-rate budget: none failed in 400 requests does not show 0.1 %, it shows 5 %; 10 % failed misses 1 %", () => {
  const trials = (failed: number) =>
    [0, 1, 2, 3].flatMap((p) => [
      countsTrial(p, "baseline", 100, 0),
      countsTrial(p, "candidate", 100, failed),
    ]);
  const design = designOf({ trials: 4, maxTrials: 4 }, 0.95, 3, 3);
  const options = (errors: number) => ({
    budgets: { errors },
    percentile: "p95" as const,
    rule: "margin" as const,
    maxTrialCv: 0.1,
    exclude: [],
  });
  const [strict] = checkBudgets(options(0.001), trials(0), design);
  assert.equal(strict?.verdict, "unclear");
  assert.match(strict?.reason ?? "", /showing 0\.10 % takes about 2,7\d\d requests/);
  assert.equal(checkBudgets(options(0.05), trials(0), design)[0]?.verdict, "met");
  const [missed] = checkBudgets(options(0.01), trials(10), design);
  assert.equal(missed?.verdict, "missed");
  assert.equal(missed?.baseline_misses, false);
  // 12 pairs send 1,200 requests, fewer than the ≈ 2,706 that show 0.1 % without a failure:
  // given up, saying why; 40 pairs (4,000) stay open.
  const [futile] = checkBudgets(
    options(0.001),
    trials(0),
    designOf({ trials: 4, maxTrials: 12 }, 0.95, 3, 3),
  );
  assert.equal(futile?.status, "futile");
  assert.match(
    futile?.reason ?? "",
    /more than 12 pairs send: raise rate × duration or max-trials/,
  );
  const [open] = checkBudgets(
    options(0.001),
    trials(0),
    designOf({ trials: 4, maxTrials: 40 }, 0.95, 3, 3),
  );
  assert.equal(open?.status, "open");
});

test("a candidate within 10 % of its baseline but over the budget fails naming it; the baseline over it is reported", async () => {
  // Both arms at p95 TTFT ≈ 900 ms: no relative regression, both over ttft:800.
  const slow = [
    { ttftMs: 880, itlMs: 10 },
    { ttftMs: 900, itlMs: 10 },
    { ttftMs: 890, itlMs: 10 },
    { ttftMs: 905, itlMs: 10 },
  ];
  const r = await fakeGateResults(slow, slow, { budget: "ttft:800" });
  assert.equal(r.verdict, "fail", r.headline);
  assert.match(r.headline, /^over budget: p95 TTFT \d+(\.\d+)? ms \(.* … .*, budget ≤ 800 ms\)$/);
  assert.ok(
    r.comparisons.every((c) => c.verdict !== "regressed"),
    "the relative rule passes",
  );
  // Report mode reads the file as untrusted and decides it again: the budget with it.
  const forged = JSON.parse(JSON.stringify({ ...r, verdict: "pass", budgets: [] }));
  const trusted = trustResults(forged, "results.json", headlineFor);
  assert.equal(trusted.verdict, "fail");
  assert.equal(trusted.budgets[0]?.verdict, "missed");
  const md = renderMarkdown(r, "default");
  assert.match(
    md,
    /\| ❌ \| p95 TTFT \(ms\) \| ≤ 800 ms \| \d+(\.\d+)? ms \| \d+(\.\d+)? ms \| .* \| missed \|/,
  );
  assert.match(md, /- the baseline already misses p95 TTFT ≤ 800 ms/);

  // Well within the budget: the gate passes and says so.
  const fast = slow.map((t) => ({ ...t, ttftMs: t.ttftMs / 3 }));
  const ok = await fakeGateResults(fast, fast, { budget: "ttft:800" });
  assert.equal(ok.verdict, "pass", ok.headline);
  assert.match(ok.headline, /and the candidate within every budget/);
  assert.equal(ok.budgets[0]?.verdict, "met");
});

test("a budget no pair can be read for is unclear and says why, never silently dropped", () => {
  const trials = [0, 1, 2, 3].flatMap((pair) =>
    (["baseline", "candidate"] as const).map((arm) => {
      const report = fakeReport({ ttftMs: 100, itlMs: 10 });
      // One-token answers: no TPOT.
      report.metrics.tpot_ms = { ...report.metrics.tpot_ms, p95: null };
      return { pair, arm, position: 0, seed: 1, report };
    }),
  );
  const design = designOf({ trials: 4, maxTrials: 4 }, 0.95, 3, 2);
  const [tpot] = checkBudgets(
    { budgets: { tpot: 40 }, percentile: "p95", rule: "margin", maxTrialCv: 0.1, exclude: [] },
    trials,
    design,
  );
  assert.equal(tpot?.verdict, "unclear");
  assert.match(tpot?.reason ?? "", /no pair has a reading of it on both arms/);
});
