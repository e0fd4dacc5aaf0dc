// The PR comment's rules that hold across runs: the limit, the goodput note.
// The comment of each kind of run is a golden file: goldens.test.ts.

import assert from "node:assert/strict";
import { test } from "node:test";
import { COMMENT_LIMIT } from "../../src/github/publish.ts";
import { fenced } from "../../src/report/blocks.ts";
import { headlineFor } from "../../src/report/headline.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { trustResults } from "../../src/results/trust.ts";
import { armOf, FAKE_SETTINGS, fakeGateResults, gate } from "../helpers/gate.ts";
import { fakeReport } from "../helpers/reports.ts";

const results = fakeGateResults;

test("a comment over the limit drops detail sections first, with a visible note", async () => {
  const r = await results(
    [
      { ttftMs: 100, itlMs: 10 },
      { ttftMs: 100, itlMs: 10 },
      { ttftMs: 100, itlMs: 10 },
    ],
    [
      { ttftMs: 100, itlMs: 10 },
      { ttftMs: 100, itlMs: 10 },
      { ttftMs: 100, itlMs: 10 },
    ],
  );
  const full = renderMarkdown(r, "default");
  assert.ok(full.length < COMMENT_LIMIT);
  assert.match(full, /Configuration and method/);
  const limit = full.length - 200;
  const cut = renderMarkdown(r, "default", limit);
  assert.ok(cut.length <= limit);
  assert.doesNotMatch(cut, /Configuration and method/, "the least important section goes first");
  assert.match(cut, /Per-trial results/);
  assert.match(
    cut,
    /1 detail section omitted to fit GitHub's [\d,]+-character limit; the results file has everything/,
  );
  const tiny = renderMarkdown(r, "default", 1500);
  assert.ok(tiny.length <= 1500);
  assert.match(tiny, /^<!-- llm-perf-gate:default -->\n### ✅ llm-perf-gate: \*\*pass\*\*/);
  assert.match(tiny, /Truncated to fit|omitted to fit/);
});

test("goodput that is only the schedule says so, and points to the capacity gate", async () => {
  const same = [
    { ttftMs: 100, itlMs: 10 },
    { ttftMs: 101, itlMs: 10 },
    { ttftMs: 99, itlMs: 10 },
  ];
  const note =
    /goodput = the offered load on both arms: every request met the SLO, so it could not drop at this rate — `capacity: true` gates it at the knee/;
  assert.match(renderMarkdown(await results(same, same), "default"), note);
  const oneFailed = [...same.slice(0, 2), { ttftMs: 99, itlMs: 10, failed: { http_5xx: 1 } }];
  const md = renderMarkdown(await results(same, oneFailed, { "max-error-rate": "5%" }), "default");
  assert.doesNotMatch(md, /goodput = the offered load/);
  assert.match(md, /\| goodput \(req\/s\) \|[^\n]*\| [+−]\d+\.\d % … [+−]\d+\.\d % \| pass \|/);
});

test("a log tail is fenced and bounded: backticks inside cannot close the fence", () => {
  const tail = [
    "ok",
    "```",
    "x".repeat(1000),
    ...Array.from({ length: 30 }, (_, i) => `line ${i}`),
  ];
  const block = fenced(tail.join("\n"));
  assert.equal(block[0], "````text", "a fence longer than the backticks inside");
  assert.equal(block.at(-1), "````");
  assert.equal(block.length, 22, "the last 20 lines");
  assert.equal(block[1], "line 10");
  const long = fenced("y".repeat(1000));
  assert.equal(long[1]?.length, 301, "a long line is cut, marked …");
});

test("prompt tokens as each server counted them; arms that count the same prompts differently are flagged", async () => {
  const arm = (promptTokens: number) =>
    [100, 101, 99].map((ttftMs) => ({ ttftMs, itlMs: 10, promptTokens }));
  const same = renderMarkdown(await results(arm(262), arm(262)), "default");
  assert.match(
    same,
    /prompt tokens per request: ≈ 256 intended \(estimate \(4 characters per token\)\); the servers counted 262 \(baseline\), 262 \(candidate\)\n/,
  );
  const changed = renderMarkdown(await results(arm(262), arm(301)), "default");
  assert.match(
    changed,
    /262 \(baseline\), 301 \(candidate\) — ⚠️ the arms count the same prompts differently \(\+14\.9 %\): a tokenizer or chat-template change/,
  );
});

test("sessions: how many completed and TTFT by turn, per arm", async () => {
  const sessions = (later: number) => ({
    turns: 3,
    started: 6,
    completed: 5,
    failed: 1,
    ttft_p50_ms_by_turn: [55, later, later + 1],
  });
  const { results: r } = await gate(FAKE_SETTINGS, {
    measureTrial: async (o) => ({
      ...fakeReport({ ttftMs: 100, itlMs: 10 }),
      sessions: sessions(armOf(o) === "baseline" ? 12 : 70),
    }),
  });
  assert.match(
    renderMarkdown(r, "default"),
    /sessions completed: baseline 20 of 24, candidate 20 of 24 · TTFT p50 by turn \(ms\): baseline 55\.0, 12\.0, 13\.0; candidate 55\.0, 70\.0, 71\.0/,
  );
});

test("finding 8: a prefix-cache hit-rate gap between the arms is flagged next to the verdict", async () => {
  const same = [100, 101, 99].map((ttftMs) => ({ ttftMs, itlMs: 10 }));
  const r = await results(same, same);
  const view = (rate: number): NonNullable<typeof r.server_view>["baseline"] => ({
    url: null,
    runtime: "vllm",
    trials: 3,
    failed: 0,
    errors: [],
    gauges: {},
    preemptions_per_trial: null,
    prefix_cache_hit_rate: rate,
    histograms: {},
    names: [],
    notes: [],
  });
  const withRates = (b: number, c: number) => ({
    ...r,
    server_view: {
      baseline: view(b),
      candidate: view(c),
      only_in: { baseline: [], candidate: [] },
      ttft: null,
    },
  });
  // An A/A on one vLLM server: the candidate met the baseline's prompts in the cache.
  assert.match(
    renderMarkdown(withRates(0, 0.94), "default"),
    /⚠️ prefix-cache hit rate 0\.0 % \(baseline\) vs 94\.0 % \(candidate\): the arms did not meet the same cache/,
  );
  assert.doesNotMatch(renderMarkdown(withRates(0.5, 0.52), "default"), /⚠️ prefix-cache hit rate/);
});

test("the comment says in one line what pass and fail mean under the rule, and the pairs the design may add", async () => {
  const same = [100, 101, 99].map((ttftMs) => ({ ttftMs, itlMs: 10 }));
  const margin = renderMarkdown(await results(same, same, { "max-trials": "12" }), "default");
  assert.match(
    margin,
    /rule `margin`: a metric \*\*passes\*\* when its bound shows it within its tolerance \(95 % one-sided over all looks\), \*\*fails\*\* when its bound shows more than half the tolerance and its estimate more than all of it \(95 % for all the gate's metrics together\), else is inconclusive; while a metric is open and none has regressed, pairs are added up to looks at 6, 8, 10, 12 \(at most 8 pairs more than the first 4\)/,
  );
  const confirm = renderMarkdown(
    await results(same, same, { "decision-rule": "confirm", confidence: "0.99" }),
    "default",
  );
  assert.match(
    confirm,
    /rule `confirm`: .* \*\*fails\*\* when its bound shows more than the tolerance \(99 % for all the gate's metrics together\), else is inconclusive; no pairs are added \(max-trials = trials\)/,
  );
});

test("the requests file is named under the self-checks, with a link to the run only when the results name it plainly", async () => {
  const same = [{ ttftMs: 100, itlMs: 10 }];
  const gated = await results(same, same);
  const file = {
    schema: "llm-perf-gate/requests@1" as const,
    path: "/home/runner/work/x/llm-perf-gate-results.requests.jsonl.gz",
    format: "jsonl" as const,
    gzip: true,
    lines: 480,
    dropped: 0,
    error: null,
  };
  const github = {
    repository: "acme/serving",
    sha: undefined,
    ref: undefined,
    run_id: "123456",
    server_url: "https://github.com",
    event: "pull_request",
    pull_request: null,
  };
  const plain = renderMarkdown(
    { ...gated, requests_file: file, environment: { ...gated.environment, github } },
    "k",
  );
  assert.match(
    plain,
    /\*\*Every request:\*\* `llm-perf-gate-results\.requests\.jsonl\.gz` \(480 lines\) — in \[this run's artifacts\]\(https:\/\/github\.com\/acme\/serving\/actions\/runs\/123456\)/,
  );
  // A results file from another job is neutralized: its server URL no longer parses, no link.
  const neutralized = { ...github, server_url: "https:/\u200b/evil.example" };
  const untrusted = renderMarkdown(
    {
      ...gated,
      requests_file: file,
      environment: { ...gated.environment, github: neutralized },
    },
    "k",
  );
  assert.match(
    untrusted,
    /\*\*Every request:\*\* `llm-perf-gate-results\.requests\.jsonl\.gz` \(480 lines\)\./,
  );
  assert.doesNotMatch(untrusted, /evil|actions\/runs/);
  // Nor a file without a server URL: no link to a default host.
  const { server_url: _, ...bare } = github;
  const noServer = renderMarkdown(
    { ...gated, requests_file: file, environment: { ...gated.environment, github: bare } },
    "k",
  );
  assert.doesNotMatch(noServer, /actions\/runs/);
  assert.doesNotMatch(renderMarkdown(gated, "k"), /Every request/, "no file, no line");
});

test("a regression shows the deciding metric over time in its worst pair, both arms on one chart", async () => {
  const base = [100, 101, 99, 100].map((ttftMs) => ({ ttftMs, itlMs: 10 }));
  const slow = [130, 125, 160, 128].map((ttftMs) => ({ ttftMs, itlMs: 10 }));
  const r = await results(base, slow);
  assert.equal(r.verdict, "fail");
  const timeline = (p95: number) => ({
    bucket_s: 1,
    buckets: [0, 1, 2].map((t) => ({
      t_s: t,
      offered: 10,
      completed: 10,
      failed: {},
      ttft_p50_ms: p95 / 2,
      ttft_p95_ms: t === 1 ? p95 * 3 : p95,
      itl_p95_ms: 10,
    })),
  });
  for (const t of r.trials) t.report.timeline = timeline(t.report.metrics.ttft_ms.p95 ?? 0);
  const md = renderMarkdown(r, "default");
  // Pair 3 has the largest change (+60 %).
  assert.match(md, /<summary>Timeline: pair 3, the largest change of TTFT/);
  assert.match(md, /title "Pair 3, p95 TTFT \(ms\) per second: baseline vs candidate"/);
  assert.match(md, /x-axis "seconds from the trial's start" \["0", "1", "2"\]/);
  const section = md.slice(md.indexOf("Timeline: pair 3"));
  const block = section.slice(0, section.indexOf("</details>"));
  assert.equal((block.match(/^ {2}line \[/gm) ?? []).length, 2, "one line per arm");
  const same = await results(base, base);
  for (const t of same.trials) t.report.timeline = timeline(100);
  assert.doesNotMatch(
    renderMarkdown(same, "default"),
    /Timeline:/,
    "nothing regressed, no timeline",
  );
});

test("a results file from before the refused and finish_error classes reads as none of them", async () => {
  const same = [{ ttftMs: 100, itlMs: 10 }];
  const r = await results(same, same);
  const old = JSON.parse(JSON.stringify(r));
  for (const t of old.trials) {
    delete t.report.outcomes.refused;
    delete t.report.outcomes.finish_error;
  }
  const trusted = trustResults(old, "old.json", headlineFor);
  assert.equal(trusted.verdict, r.verdict);
  assert.equal(trusted.trials[0]?.report.outcomes.refused, 0);
  assert.equal(trusted.reliability?.candidate.failed, 0);
  assert.doesNotMatch(renderMarkdown(trusted, "k"), /NaN/);
});

test("a results@3 file reads in today's shape: the quality suite's strict tier was named contract", async () => {
  const same = [{ ttftMs: 100, itlMs: 10 }];
  const r = await results(same, same);
  const old = JSON.parse(JSON.stringify(r));
  old.schema = "llm-perf-gate/results@3";
  delete old.contract;
  delete old.contract_skipped;
  old.config.quality = {
    suite: "builtin",
    cases: 1,
    vllm_sampling: false,
    rule: { alpha: 0.05, min_effect: 0.02, large_effect: 0.1, confirm_reruns: 2 },
  };
  const broken = { id: "c1", codes: ["json.invalid"], candidate_failures: 3, runs: 3 };
  old.quality = {
    suite: "builtin",
    cases: 1,
    pre_existing: [],
    contract: [{ ...broken, confirmed: true, answer: '"{"' }],
    kinds: [],
    agreement: { n: 0, agreed: 0, gated: false, differing: [] },
    finish_reasons: { baseline: {}, candidate: {} },
    tool_codes: { baseline: {}, candidate: {} },
    irregular_deltas: { baseline: [], candidate: [] },
    reconnects: { baseline: 0, candidate: 0 },
    verdict: "fail",
    reasons: [{ check: "contract", cases: ["c1"], message: "contract: 1 case" }],
    raw: [],
  };
  old.quality_skipped = null;
  const trusted = trustResults(old, "old.json", headlineFor);
  assert.deepEqual(
    trusted.quality?.strict.map((x) => x.id),
    ["c1"],
  );
  assert.equal(trusted.quality?.reasons[0]?.check, "strict");
  assert.equal(trusted.contract, null);
  assert.equal(trusted.verdict, "fail", "a confirmed strict failure still fails, re-decided");
  assert.match(renderMarkdown(trusted, "k"), /the candidate breaks JSON output/);
});

test("a candidate whose answers are shorter in every pair is flagged next to the verdict, with ignore-eos suggested", async () => {
  const same = [100, 101, 99, 100].map((ttftMs) => ({ ttftMs, itlMs: 10 }));
  const r = await results(same, same);
  for (const t of r.trials) {
    const ok = t.report.outcomes.ok;
    const perRequest = t.arm === "candidate" ? 40 + t.pair : 64;
    t.report.tokens.output_total = ok * perRequest;
    t.report.finish_reasons = t.arm === "candidate" ? { stop: ok } : { length: ok - 10, stop: 10 };
  }
  const md = renderMarkdown(r, "default");
  assert.match(
    md,
    /⚠️ the candidate's answers are shorter: −3\d % output tokens per request in every pair \(finish_reason length on 90 % vs 0 % of the answers\) — shorter answers make E2EL and goodput look better for a reason that is not speed; a fixed output length \(`ignore-eos: true` with `output-len`\)/,
  );
  // One pair shorter, one longer: noise, no flag.
  for (const t of r.trials)
    if (t.arm === "candidate" && t.pair === 1)
      t.report.tokens.output_total = t.report.outcomes.ok * 70;
  assert.doesNotMatch(renderMarkdown(r, "default"), /answers are shorter/);
});
