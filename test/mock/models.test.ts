// The mock as the models people run now: a reasoning model streams its
// thinking before its answer, and a server with speculative decoding exposes
// vLLM's spec-decode counters and streams several tokens a chunk; a trial
// reads them all.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parseTrialOptions } from "../../src/config/trial.ts";
import { DEFAULT_PROFILE } from "../../src/mock/profile.ts";
import { mergeProfile } from "../../src/mock/profile-merge.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { scrapeFailed } from "../../src/servermetrics/scraper.ts";
import { measureTrial } from "../../src/trial/trial.ts";
import { LOAD_TEST, QUICK_ENGINE } from "../helpers/mock.ts";

async function measure(knobs: Record<string, unknown>) {
  const server = await startMockServer({
    profile: mergeProfile(DEFAULT_PROFILE, { ...QUICK_ENGINE, decodeBaseMs: 2, ...knobs }, "test"),
  });
  try {
    const options = parseTrialOptions({
      url: `${server.url}/v1`,
      model: "mock-llm",
      rate: "20",
      duration: "0.5s",
      warmup: "0.1s",
      "input-len": "16",
      "output-len": "24",
      timeout: "10s",
      seed: "5",
      "metrics-interval": "0.1s",
    });
    return await measureTrial(options);
  } finally {
    await server.close();
  }
}

test(
  "a reasoning model: the first answer token after its thinking, and the thinking's share of the output",
  LOAD_TEST,
  async () => {
    const r = await measure({ reasoningTokens: 8 });
    assert.ok(r.outcomes.ok > 0 && r.outcomes.ok === r.scheduled, JSON.stringify(r.outcomes));
    const x = r.reasoning;
    assert.ok(x, "a reasoning summary");
    assert.equal(x.requests, r.outcomes.ok, "every request thought first");
    // 24 tokens asked (ignore_eos): 8 of thinking, 16 of answer.
    assert.ok(
      Math.abs((x.reasoning_token_share ?? 0) - 8 / 24) < 1e-3,
      String(x.reasoning_token_share),
    );
    assert.equal(x.reasoning_chunks, 8 * r.outcomes.ok);
    assert.equal(x.answer_chunks, 16 * r.outcomes.ok);
    // The answer comes after eight decode steps of thinking. On a busy machine the mock's
    // steps catch up and may arrive close together, so only the order is certain.
    const ttft = r.metrics.ttft_ms.p50 ?? 0;
    assert.ok((x.ttfa_ms.p50 ?? 0) > ttft, `${x.ttfa_ms.p50} vs TTFT ${ttft}`);
    assert.equal(x.ttfa_ms.count, r.outcomes.ok);
    const plain = await measure({});
    assert.equal(plain.reasoning, null, "no thinking, no reasoning summary");
  },
);

test(
  "speculative decoding: vLLM's spec-decode counters give the acceptance and the tokens per step",
  LOAD_TEST,
  async () => {
    // A drafter's tokens arrive several to a chunk.
    const r = await measure({ specDecodeTokens: 3, specDecodeAcceptance: 0.6, tokensPerChunk: 3 });
    const v = r.server_metrics;
    assert.ok(v && !scrapeFailed(v), JSON.stringify(v));
    assert.ok(v.spec_decode, JSON.stringify(v.counters));
    assert.ok(
      Math.abs(v.spec_decode.acceptance_rate - 0.6) < 0.01,
      String(v.spec_decode.acceptance_rate),
    );
    assert.ok(
      Math.abs(v.spec_decode.tokens_per_step - 2.8) < 0.03,
      String(v.spec_decode.tokens_per_step),
    );
    // ITL per token beside ITL per chunk: each gap ÷ the request's 3 tokens per chunk.
    assert.equal(r.tokens.itl_per_multi_token_chunk, true);
    const perChunk = r.metrics.itl_ms.p50 ?? 0;
    const perToken = r.tokens.itl_per_token_ms?.p50 ?? 0;
    assert.ok(
      Math.abs(perToken * 3 - perChunk) <= 0.05 * perChunk,
      `${perToken} × 3 vs ${perChunk}`,
    );
    const off = (await measure({})).server_metrics;
    assert.ok(off && !scrapeFailed(off));
    assert.equal(off.spec_decode, null, "no drafter, no counters");
  },
);
