// The contract inside a gate, against two mocks on 127.0.0.1 that differ in
// one knob: a break fails the gate and the headline names it, with what both
// arms answered; a behaviour change is listed and fails nothing; the trials'
// own 429s are checked for retry-after. Latency trials are stand-ins here.

import assert from "node:assert/strict";
import { test } from "node:test";
import { startMockServer } from "../../src/mock/server.ts";
import { headlineFor } from "../../src/report/headline.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { trustResults } from "../../src/results/trust.ts";
import type { TrialReport } from "../../src/trial/measure.ts";
import { gate } from "../helpers/gate.ts";
import { LOAD_TEST, quickProfile } from "../helpers/mock.ts";
import { fakeReport } from "../helpers/reports.ts";

async function contractGate(
  candidateKnobs: Record<string, unknown>,
  reports: { baseline?: TrialReport; candidate?: TrialReport } = {},
) {
  const baseline = await startMockServer({
    profile: quickProfile({ runtimeName: "vllm", runtimeVersion: "0.10.0" }),
  });
  const candidate = await startMockServer({
    profile: quickProfile({ runtimeName: "vllm", runtimeVersion: "0.11.0", ...candidateKnobs }),
  });
  const plain = fakeReport({ ttftMs: 100, itlMs: 10 });
  try {
    const { run, results } = await gate(
      {
        "baseline-url": `${baseline.url}/v1`,
        "candidate-url": `${candidate.url}/v1`,
        model: "mock-llm",
        rate: "10",
        trials: "2",
        "max-trials": "2",
        "max-failure-increase": "5%",
        "quality-suite": "none",
        accuracy: "none",
      },
      {
        measureTrial: async (o) =>
          (o.target.baseUrl.startsWith(baseline.url) ? reports.baseline : reports.candidate) ??
          plain,
      },
    );
    return { run, results, markdown: renderMarkdown(results, "default") };
  } finally {
    await Promise.all([baseline.close(), candidate.close()]);
  }
}

test(
  "a candidate whose deltas repeat the text fails the gate, named in the headline, with both arms' evidence",
  LOAD_TEST,
  async () => {
    const { run, results, markdown } = await contractGate({ cumulativeDeltas: true });
    assert.equal(run.contract?.verdict, "fail");
    assert.deepEqual(
      run.contract?.regressions.map((f) => f.id),
      ["stream.incremental"],
    );
    assert.equal(run.verdict, "fail");
    assert.match(
      results.headline,
      /breaks the API contract: stream\.incremental \(deltas repeat the text so far\)/,
    );
    assert.match(markdown, /Serving: vllm 0\.10\.0 → vllm 0\.11\.0/);
    assert.match(
      markdown,
      /\| stream\.incremental \| `deltas hold the new text` \| `deltas repeat the text so far` \|/,
    );
    assert.match(markdown, /<summary>Contract evidence/);
    // A results file another job wrote is re-decided from its items: still a fail.
    const trusted = trustResults(JSON.parse(JSON.stringify(results)), "results.json", headlineFor);
    assert.equal(trusted.verdict, "fail");
    assert.equal(trusted.contract?.regressions[0]?.id, "stream.incremental");
  },
);

test("a behaviour change is listed for the reviewer and fails nothing", LOAD_TEST, async () => {
  const { run, markdown } = await contractGate({ roleChunk: false, usageInFinishChunk: true });
  assert.equal(run.contract?.verdict, "pass");
  assert.equal(run.verdict, "pass");
  assert.deepEqual(run.contract?.changes.map((f) => f.id).sort(), [
    "stream.role_chunk",
    "stream.usage_chunk",
  ]);
  assert.match(markdown, /Behaviour changes \(nothing the API documents broke/);
  assert.match(markdown, /\| stream\.role_chunk \| `a chunk of its own` \| `absent` \|/);
});

test("two identical mocks: no regression, no change", LOAD_TEST, async () => {
  const { run } = await contractGate({ runtimeVersion: "0.10.0" });
  const c = run.contract;
  assert.deepEqual([c?.regressions, c?.changes, c?.flaky, c?.preexisting], [[], [], [], []]);
  assert.ok((c?.seconds.baseline ?? 99) < 30);
});

/** A trial whose failures include a quota 429 with these headers. */
function quota429(headers: Record<string, string>): TrialReport {
  const report = fakeReport({ ttftMs: 100, itlMs: 10 });
  const example = {
    index: 1,
    status: 429,
    error_type: "requests",
    error_code: "rate_limit_exceeded",
  };
  report.errors = { rate_limited_quota: [{ ...example, detail: undefined, headers, body: "{}" }] };
  return report;
}

test(
  "429s without retry-after in the candidate's trials are a contract regression",
  LOAD_TEST,
  async () => {
    const withHeader = quota429({ "retry-after": "1" });
    const without = quota429({});
    const { run } = await contractGate(
      { runtimeVersion: "0.10.0" },
      { baseline: withHeader, candidate: without },
    );
    assert.deepEqual(
      run.contract?.regressions.map((f) => [f.id, f.candidate.value]),
      [["ratelimit.retry_after_429", "without retry-after"]],
    );
    assert.equal(run.verdict, "fail");
  },
);
