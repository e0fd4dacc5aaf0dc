// Why the shape of the load matters: a candidate that lost prefix caching,
// gated between two mocks on 127.0.0.1. With shared prefixes (a system
// prompt, a RAG template) it fails on p95 TTFT; with random prompts of the
// same length — what most benchmarks send — the gate cannot see it.

import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_PROFILE } from "../../src/mock/profile.ts";
import { mergeProfile } from "../../src/mock/profile-merge.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { gate } from "../helpers/gate.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

async function prefixGate(workload: Record<string, string>) {
  const baseline = await startMockServer({
    profile: mergeProfile(DEFAULT_PROFILE, { prefixCache: true }, "test"),
  });
  const candidate = await startMockServer({
    profile: mergeProfile(DEFAULT_PROFILE, { prefixCache: false }, "test"),
  });
  try {
    const { run, results } = await gate(
      {
        "baseline-url": `${baseline.url}/v1`,
        "candidate-url": `${candidate.url}/v1`,
        model: "mock-llm",
        rate: "20",
        duration: "1s",
        warmup: "0.3s",
        "output-len": "8",
        "ignore-eos": "true",
        trials: "4",
        // Room to add pairs: on a starved machine (two busy loops beside the suite) the
        // in-process mocks' 20-request trials are noisy, and 6 pairs once left TTFT open.
        "max-trials": "12",
        // 20 requests a trial show a failure rate within 10 points, not within half a point.
        "max-failure-increase": "10%",
        // About TTFT: without the cache the candidate's long prefills also stall its decodes,
        // and on a starved machine ITL could regress first and end the pairs (the gate fails
        // anyway) with TTFT still open. ITL is not what this test is about.
        "max-itl-regression": "1000%",
        "quality-suite": "none",
        accuracy: "none",
        contract: "none",
        // About the workload's shape: the self-checks have their own tests.
        "max-skew-effect": "50%",
        "max-late-sends": "50%",
        "max-offered-drift": "50%",
        "max-event-loop-delay-ms": "200",
        ...workload,
      },
      {},
    );
    return {
      run,
      results,
      cached: [baseline, candidate].map((s) => s.stats().engine.cachedTokens),
    };
  } finally {
    await Promise.all([baseline.close(), candidate.close()]);
  }
}

test(
  "a candidate without prefix caching fails on p95 TTFT with shared prefixes, and passes unseen with random prompts",
  LOAD_TEST,
  async () => {
    // 4 system prompts of 1,024 tokens, then 64 of each request's own: 1,088 tokens a prompt.
    const shared = await prefixGate({
      "prefix-groups": "4",
      "prefix-len": "1024",
      "input-len": "64",
    });
    const ttft = (r: typeof shared) => r.run.comparisons.find((c) => c.id === "ttft");
    assert.equal(shared.run.verdict, "fail", shared.results.headline);
    assert.equal(ttft(shared)?.verdict, "regressed");
    assert.ok((ttft(shared)?.change as number) > 0.5, `p95 TTFT ${ttft(shared)?.change}`);
    assert.match(shared.results.config?.workload.prefix ?? "", /^4 groups × 1024 tokens, uniform$/);
    assert.match(
      renderMarkdown(shared.results, "default"),
      /· shared prefixes: 4 groups × 1024 tokens, uniform ·/,
      "the comment says what the load looked like",
    );
    // The mock counts 4 characters per token, as the workload does: what was meant is what it counted.
    const prompt = shared.run.trials[0]?.report.tokens.prompt;
    assert.equal(prompt?.intended_mean, 1088);
    assert.ok(Math.abs((prompt?.server_mean as number) - 1088) <= 2, `${prompt?.server_mean}`);
    assert.match(
      renderMarkdown(shared.results, "default"),
      /prompt tokens per request: ≈ 1088 intended \(estimate \(4 characters per token\)\); the servers counted 10\d\d \(baseline\), 10\d\d \(candidate\)/,
    );
    assert.ok((shared.cached[0] as number) > 0, "the baseline's cache held the prefixes");
    assert.equal(shared.cached[1], 0, "the candidate has none");
    // The servers' own metrics say so too: vLLM's prefix-cache hits ÷ queries.
    const hitRate = (arm: "baseline" | "candidate") =>
      shared.results.server_view?.[arm].prefix_cache_hit_rate;
    assert.ok((hitRate("baseline") as number) > 0.5, `baseline hit rate ${hitRate("baseline")}`);
    assert.equal(hitRate("candidate"), null, "a server without a prefix cache counts no queries");

    const random = await prefixGate({ "input-len": "1088" });
    assert.notEqual(random.run.verdict, "fail", random.results.headline);
    assert.notEqual(ttft(random)?.verdict, "regressed");
    // Not regressed carries the claim; the size bound is loose: one stall of a starved machine
    // in a 20-request trial moves its pair's p95 of a 30 ms TTFT a long way.
    assert.ok(Math.abs(ttft(random)?.change as number) < 0.5, `p95 TTFT ${ttft(random)?.change}`);
  },
);
