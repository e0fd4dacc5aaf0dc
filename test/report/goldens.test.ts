// Golden files: the PR comment for each kind of run a reviewer meets — pass,
// fail (latency, reliability, quality), inconclusive, error (a guard, a server
// that did not start), cancelled, capacity. Each is built by the real gate
// from stand-in measurements (real mock servers for quality, a real failing
// start command), then checked by a GFM renderer. Regenerate after an
// intended change with UPDATE_GOLDEN=1 and read the diff before committing.
// `node bench/render-comments.ts` draws them as GitHub would.

import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { resultsOf as gateResultsOf } from "../../src/commands/gate/run.ts";
import { parseConfig } from "../../src/config/config.ts";
import { runGate } from "../../src/gate/gate.ts";
import { COMMENT_LIMIT } from "../../src/github/publish.ts";
import { DEFAULT_PROFILE } from "../../src/mock/profile.ts";
import { mergeProfile } from "../../src/mock/profile-merge.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { gatePage } from "../../src/page/gate-page.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { errorRun } from "../../src/results/model.ts";
import { lifecycleFor } from "../../src/servers/lifecycle.ts";
import type { TrialOptions, TrialReport } from "../../src/trial/measure.ts";
import {
  armOf,
  FAKE_SETTINGS,
  fakeGateResults,
  gate,
  NO_CHECKS,
  NOW,
  resultsOf,
  TEST_ENVIRONMENT,
} from "../helpers/gate.ts";
import { tableProblems } from "../helpers/gfm.ts";
import { LOAD_TEST } from "../helpers/mock.ts";
import { type FakeTrial, fakeReport, fakeServerView } from "../helpers/reports.ts";

const GOLDEN = join(import.meta.dirname, "../golden");

function golden(name: string, actual: string) {
  const path = join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN) writeFileSync(path, actual);
  assert.equal(actual, readFileSync(path, "utf8"), `${name} differs from the golden file`);
  assert.deepEqual(
    tableProblems(actual),
    [],
    `${name}: every table parses, rows as wide as the header`,
  );
}

const SETTINGS = FAKE_SETTINGS;
const results = fakeGateResults;

const steady = (ttftMs: number, itlMs: number, extra: Partial<FakeTrial> = {}): FakeTrial[] =>
  [1, 1.02, 0.99].map((k) => ({ ttftMs: ttftMs * k, itlMs: itlMs * k, ...extra }));

test("golden: pass", LOAD_TEST, async () => {
  const candidate = [1.03, 0.99, 1.02].map((k) => ({ ttftMs: 101 * k, itlMs: 10.1 * k }));
  const md = renderMarkdown(await results(steady(100, 10), candidate), "default");
  golden("pass.md", md);
  assert.match(md, /^<!-- llm-perf-gate:default -->\n### ✅ llm-perf-gate: \*\*pass\*\*/);
});

test("golden: fail on latency — the chart shows the metric that decided", LOAD_TEST, async () => {
  const r = await results(
    [
      { ttftMs: 100, itlMs: 10 },
      { ttftMs: 102, itlMs: 10.2 },
      { ttftMs: 99, itlMs: 9.9 },
    ],
    [
      { ttftMs: 104, itlMs: 13 },
      { ttftMs: 103, itlMs: 13.4 },
      { ttftMs: 101, itlMs: 12.9, failed: { censored: 1 } },
    ],
    { "max-error-rate": "5%" },
  );
  const md = renderMarkdown(r, "default");
  golden("fail-latency.md", md);
  assert.match(md, /\| ❌ \| p95 ITL \(ms\) \| ≤ \+10\.0 % \|/);
  assert.match(md, /Chart: p95 ITL per pair \(blue bars: baseline, red line: candidate\)/);
  assert.doesNotMatch(md, /title "p95 TTFT/, "TTFT passed: it is not the chart");
  // The arms' values are the ones the change comes from: 13.3 ÷ 10.2 − 1 ≈ +30.4 %.
  assert.match(md, /\| p95 ITL \(ms\) \| ≤ \+10\.0 % \| 10\.2 \| 13\.3 \| \+30\.4 % \|/);
});

test(
  "golden: the servers' view explains a TTFT regression as queue time behind a smaller batch",
  LOAD_TEST,
  async () => {
    const base = { running: [12, 16], waiting: [0.2, 3], ttftMeanMs: 90, queueMeanMs: 4 } as const;
    const cand = { running: [7.6, 8], waiting: [6, 19], ttftMeanMs: 128, queueMeanMs: 41 } as const;
    const view = (s: typeof base | typeof cand, names: string[]) =>
      fakeServerView({
        running: [...s.running],
        waiting: [...s.waiting],
        ttftMeanMs: s.ttftMeanMs,
        queueMeanMs: s.queueMeanMs,
        names,
      });
    const r = await results(
      steady(100, 10, { serverMetrics: view(base, ["vllm:gpu_cache_usage_perc"]) }),
      steady(140, 10, { serverMetrics: view(cand, ["vllm:kv_cache_usage_perc"]) }),
    );
    const md = renderMarkdown(r, "default");
    golden("server-view.md", md);
    assert.match(
      md,
      /\*\*Where the TTFT went\*\* \(the servers' own metrics, means over 4 pairs\): \+\d+\.\d ms mean TTFT, of which \+37\.0 ms server queue time: the candidate runs fewer sequences at once \(at most 8 running vs 16/,
    );
    assert.match(md, /only the candidate exposes `vllm:kv_cache_usage_perc`/);
  },
);

test(
  "golden: fail on reliability — the first line says what happened to requests",
  LOAD_TEST,
  async () => {
    const md = renderMarkdown(
      await results(steady(100, 10), steady(100, 10, { failed: { http_5xx: 5 } }), {
        "max-error-rate": "10%",
      }),
      "default",
    );
    golden("fail-reliability.md", md);
    assert.match(
      md.split("\n")[1] ?? "",
      /the candidate answered 4\.8 % of requests with HTTP 500 vs 0\.0 % on the baseline/,
    );
  },
);

test(
  "golden: fail on quality — in words, each case once, what the candidate returned",
  LOAD_TEST,
  async () => {
    const fast = { prefillBaseMs: 0.5, prefillPerTokenMs: 0, decodeBaseMs: 0.5, decodePerSeqMs: 0 };
    const baseline = await startMockServer({
      profile: mergeProfile(DEFAULT_PROFILE, { ...fast, jitter: 0 }, "test"),
    });
    const candidate = await startMockServer({
      profile: mergeProfile(DEFAULT_PROFILE, { ...fast, jitter: 0, breakJson: 0.1 }, "test"),
    });
    try {
      const { results } = await gate(
        {
          ...SETTINGS,
          "baseline-url": `${baseline.url}/v1`,
          "candidate-url": `${candidate.url}/v1`,
          model: "mock-llm",
          "quality-suite": "builtin",
        },
        { measureTrial: async () => fakeReport({ ttftMs: 100, itlMs: 10 }) },
      );
      // The mock servers' ports change from run to run.
      const md = renderMarkdown(results, "default")
        .replaceAll(baseline.url, "http://127.0.0.1:8001")
        .replaceAll(candidate.url, "http://127.0.0.1:8002");
      golden("fail-quality.md", md);
      assert.match(
        md.split("\n")[1] ?? "",
        /\*\*fail\*\* — the candidate breaks JSON output: 3 cases that pass on the baseline fail on it/,
      );
      assert.doesNotMatch(md, /\b1 cases\b/);
    } finally {
      await Promise.all([baseline.close(), candidate.close()]);
    }
  },
);

test(
  "golden: inconclusive — the next step names the pairs that would decide",
  LOAD_TEST,
  async () => {
    const md = renderMarkdown(
      await results(steady(100, 10), [
        { ttftMs: 100, itlMs: 15 },
        { ttftMs: 102, itlMs: 9.5 },
        { ttftMs: 99, itlMs: 12.5 },
      ]),
      "default",
    );
    golden("inconclusive.md", md);
    assert.match(
      md,
      /\*\*Next step:\*\* add pairs: with the noise and the change this run saw, `max-trials` \d+–\d+ gives p95 ITL an even to a four-in-five chance to decide against \+10\.0 % \(this run had 4 pairs\)/,
    );
  },
);

test("golden: error from a guard, and from a bad setting", LOAD_TEST, async () => {
  // The baseline itself fails: there is no reference to compare with.
  const r = await results(
    [{ ttftMs: 100, itlMs: 10, failed: { http_5xx: 20 } }],
    [{ ttftMs: 100, itlMs: 10 }],
    { trials: "1" },
  );
  const md = renderMarkdown(r, "nightly");
  golden("error-guard.md", md);
  assert.match(
    md.split("\n")[1] ?? "",
    /the baseline itself answered 16\.7 % of requests with HTTP 500/,
  );
  assert.match(md, /\*\*Next step:\*\* fix the baseline first/);
  golden(
    "config-error.md",
    renderMarkdown(
      gateResultsOf(
        errorRun({
          code: "configuration",
          message: 'invalid configuration: trials = "x" is not accepted',
        }),
        null,
        TEST_ENVIRONMENT,
        NOW,
      ),
      "default",
      COMMENT_LIMIT,
    ),
  );
});

test(
  "golden: error when a server the gate starts dies before it is ready — its log tail, fenced",
  LOAD_TEST,
  async () => {
    const logDir = mkdtempSync(join(tmpdir(), "lpg-golden-"));
    const boot = [
      "INFO loading weights",
      "ERROR CUDA out of memory: tried to allocate 2.00 GiB",
      "RuntimeError: engine core initialization failed",
    ];
    const script = `${boot.map((l) => `console.error(${JSON.stringify(l)})`).join(";")};process.exit(1)`;
    const config = parseConfig({
      ...SETTINGS,
      "baseline-start": `"${process.execPath}" -e '${script}'`,
      "server-log-dir": logDir,
    });
    const targets = {
      baseline: config.gate.baseline.target,
      candidate: config.gate.candidate.target,
    };
    const servers = lifecycleFor(config.servers, targets, () => {});
    assert.ok(servers);
    const run = await runGate(config.gate, { servers, checks: NO_CHECKS, log: () => {} });
    const md = renderMarkdown(resultsOf(config, run), "default").replaceAll(
      logDir,
      "llm-perf-gate-logs",
    );
    golden("error-server-start.md", md);
    assert.match(md, /\n```text\n(?:.*\n)*?RuntimeError: engine core initialization failed\n```/);
    assert.match(md, /\*\*Next step:\*\* the server the gate started did not come up/);
  },
);

test("golden: cancelled — what was measured, no verdict", LOAD_TEST, async () => {
  const stop = new AbortController();
  let calls = 0;
  const { results } = await gate(SETTINGS, {
    measureTrial: async () => {
      // The cancel arrives during the third trial: the first pair stays, the cut trial does not.
      if (++calls === 3) stop.abort("SIGTERM");
      return fakeReport({ ttftMs: 100, itlMs: 10 });
    },
    signal: stop.signal,
  });
  const md = renderMarkdown(results, "default");
  golden("cancelled.md", md);
  assert.match(md, /\*\*cancelled\*\* — the job was cancelled \(SIGTERM\) after 1 pair/);
  assert.match(md, /not decided/);
});

/**
 * A server that meets the SLO up to its knee (req/s); beyond it, queueing: TTFT
 * grows 20 % and attainment falls 2 % per % of overload.
 */
function kneeAt(kneePerS: Record<"baseline" | "candidate", number>) {
  return async (o: TrialOptions): Promise<TrialReport> => {
    const arm = armOf(o);
    const a = o.workload.arrival;
    if (a.kind === "all-at-once") {
      const r = fakeReport({ ttftMs: 100, itlMs: 10 });
      const perS = o.maxConcurrency === 1 ? 5 : 2 * kneePerS[arm];
      return { ...r, throughput: { ...r.throughput, requests_per_s: perS } };
    }
    const rate = a.kind === "poisson" ? a.ratePerS : 0;
    const over = Math.max(0, rate / kneePerS[arm] - 1);
    const attainment = Math.max(0, 1 - 2 * over);
    const scheduled = Math.round(rate * 10);
    const r = fakeReport({ ttftMs: 100 * (1 + 20 * over), itlMs: 10, ok: scheduled });
    return {
      ...r,
      workload: { ...r.workload, arrival: `poisson ${rate} req/s` },
      window_s: 10,
      goodput: { ...r.goodput, attainment, requests_per_s: Math.max(0.05, rate * attainment) },
    };
  };
}

test("golden: capacity — both capacities and their curves first", LOAD_TEST, async () => {
  const { rate: _, ...withoutRate } = SETTINGS;
  const { results } = await gate(
    { ...withoutRate, capacity: "true", slo: "ttft:800", "sweep-points": "4" },
    { measureTrial: kneeAt({ baseline: 40, candidate: 32 }) },
  );
  const md = renderMarkdown(results, "default");
  golden("capacity.md", md);
  assert.match(
    md.split("\n")[1] ?? "",
    /\*\*fail\*\* — regressed: capacity −19\.9 % \(limit −5\.0 %\)/,
  );
  assert.ok(md.indexOf("**Capacity**") < md.indexOf("| | metric |"), "capacity before the pairs");
  // The page draws both arms' curves, their capacities dashed and in its table.
  const page = await gatePage(results, null);
  assert.match(page, /<figure id="capacity" class="chart"><div class="svg"><svg/);
  assert.match(page, /<td>baseline capacity<\/td>\s*<td>[\d.]+<\/td>/);
});

test("every golden file is a comment GitHub renders: tables parse", LOAD_TEST, () => {
  const files = readdirSync(GOLDEN).filter((f) => f.endsWith(".md"));
  assert.ok(files.length >= 10, files.join());
  for (const f of files)
    assert.deepEqual(tableProblems(readFileSync(join(GOLDEN, f), "utf8")), [], f);
  // The checker itself catches a row one cell short and a table without its delimiter row.
  assert.equal(tableProblems("| a | b |\n|---|---|\n| 1 |\n").length, 1);
  assert.equal(tableProblems("| a | b |\n| 1 | 2 |\n").length, 2, "both lines are in no table");
  assert.deepEqual(tableProblems("| a | b |\n|---|---|\n| `x \\| y` | 2 |\n"), []);
});
