// Answers cut short by load, end to end against the mock: a candidate that
// cuts a plain answer to half its tokens, ending stop, whenever two or more
// sequences run fails the truncation replay (its idle answers are longer);
// the same server on both arms passes, with no floor (greedy answers are the
// same at idle every time).

import assert from "node:assert/strict";
import { test } from "node:test";
import { REAL_CHECKS } from "../../src/gate/options.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { headlineFor } from "../../src/report/headline.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { trustResults } from "../../src/results/trust.ts";
import { gate } from "../helpers/gate.ts";
import { LOAD_TEST, quickProfile } from "../helpers/mock.ts";

const SETTINGS = {
  model: "mock-llm",
  rate: "40",
  duration: "2s",
  warmup: "0.2s",
  "input-len": "32",
  // Room for every natural answer (at most 256 tokens): they end stop.
  "output-len": "512",
  timeout: "10s",
  trials: "2",
  "max-trials": "2",
  "quality-suite": "none",
  accuracy: "none",
  contract: "none",
  "truncation-replay": "20",
  "max-skew-effect": "50%",
  "max-late-sends": "50%",
  "max-offered-drift": "50%",
  "max-event-loop-delay-ms": "200",
};

async function truncationGate(candidateKnobs: Record<string, unknown>) {
  const baseline = await startMockServer({ profile: quickProfile() });
  const candidate = await startMockServer({ profile: quickProfile(candidateKnobs) });
  try {
    return await gate(
      { ...SETTINGS, "baseline-url": `${baseline.url}/v1`, "candidate-url": `${candidate.url}/v1` },
      { checks: REAL_CHECKS },
    );
  } finally {
    await Promise.all([baseline.close(), candidate.close()]);
  }
}

test(
  "a candidate that cuts answers short under load, ending stop, fails the idle replay",
  LOAD_TEST,
  async () => {
    const { run, results } = await truncationGate({ truncateAboveRunning: 2, truncateShare: 0.5 });
    const t = run.truncation;
    assert.ok(t, run.truncation_skipped ?? "no truncation report");
    assert.equal(t.arms.baseline.truncated, 0);
    assert.equal(t.arms.baseline.replayed, 20);
    assert.ok(t.arms.candidate.truncated >= 5, JSON.stringify(t.arms.candidate));
    assert.equal(t.arms.candidate.floor, 0, "greedy idle answers are the same twice");
    assert.equal(t.verdict, "fail", t.reason);
    assert.ok(t.records.candidate.some((r) => r.class === "truncated_under_load"));
    assert.equal(run.verdict, "fail");
    assert.match(
      results.headline,
      /the candidate cut \d+ of 20 answers short under load .* vs 0 of 20 on the baseline/,
    );
    assert.match(renderMarkdown(results, "k"), /### Answers cut short by load — \*\*fail\*\*/);
    const again = trustResults(JSON.parse(JSON.stringify(results)), "r.json", headlineFor);
    assert.equal(again.truncation?.verdict, "fail");
    assert.deepEqual(again.truncation?.arms, t.arms);
  },
);

test("the same server on both arms: nothing cut short, the replay passes", LOAD_TEST, async () => {
  const { run } = await truncationGate({ seed: 7 });
  const t = run.truncation;
  assert.ok(t, run.truncation_skipped ?? "no truncation report");
  assert.equal(t.verdict, "pass", t.reason);
  assert.equal(t.arms.baseline.truncated + t.arms.candidate.truncated, 0);
});
