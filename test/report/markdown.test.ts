// Golden files: the PR comment for fixed inputs. Regenerate after an intended
// change with UPDATE_GOLDEN=1 and read the diff before committing it.

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { COMMENT_LIMIT, renderMarkdown } from "../../src/report/markdown.ts";
import { errorResults, type GateResults } from "../../src/report/results.ts";
import { gate, NOW, TEST_ENVIRONMENT } from "../helpers/gate.ts";
import { type FakeTrial, fakeReport } from "../helpers/reports.ts";

const GOLDEN = join(import.meta.dirname, "../golden");

function golden(name: string, actual: string) {
  const path = join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN) writeFileSync(path, actual);
  assert.equal(actual, readFileSync(path, "utf8"), `${name} differs from the golden file`);
}

async function results(
  baseline: FakeTrial[],
  candidate: FakeTrial[],
  extra = {},
): Promise<GateResults> {
  const next = { baseline: 0, candidate: 0 };
  const { results } = await gate(
    {
      "baseline-url": "http://127.0.0.1:8001/v1",
      "candidate-url": "http://127.0.0.1:8002/v1",
      model: "llama-3-8b",
      rate: "10",
      slo: "ttft:800 tpot:50",
      "quality-suite": "none",
      ...extra,
    },
    {
      measure: async (c) => {
        const arm = c.target.baseUrl.includes("8001") ? "baseline" : "candidate";
        return fakeReport((arm === "baseline" ? baseline : candidate)[next[arm]++] as FakeTrial);
      },
    },
  );
  return results;
}

test("a failing gate: verdict first, the metric table, outcomes, self-checks, details", async () => {
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
  golden("fail.md", md);
  assert.ok(md.startsWith("<!-- llm-perf-gate:default -->\n### ❌ llm-perf-gate: **fail**"));
  assert.match(md, /\| ❌ \| p95 ITL \(ms\) \| ≤ \+10\.0 % \|/);
  assert.match(
    md,
    /\| candidate \| 301 \| 300 \| 1 \|/,
    "every failure class that occurred is a column",
  );
});

test("an error run says there is no performance verdict, and why", async () => {
  // The baseline itself fails: there is no reference to compare with.
  const r = await results(
    [{ ttftMs: 100, itlMs: 10, failed: { http_5xx: 20 } }],
    [{ ttftMs: 100, itlMs: 10 }],
    {
      trials: "1",
    },
  );
  golden("error.md", renderMarkdown(r, "nightly"));
  golden(
    "config-error.md",
    renderMarkdown(
      errorResults(
        { code: "configuration", message: 'invalid configuration: trials = "x" is not accepted' },
        TEST_ENVIRONMENT,
        NOW,
      ),
      "default",
    ),
  );
});

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
  assert.match(md, /90 % interval/);
});
