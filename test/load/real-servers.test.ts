// What real OpenAI-compatible servers do differently from OpenAI's framing,
// each against the mock's knob for it (llama.cpp's llama-server does all of
// these): in-stream errors as an SSE `error:` field or an `event: error`; a
// connection closed after each streamed response though Keep-Alive was sent;
// usage that counts the end-of-sequence token it never streamed; no role
// chunk, usage in the finish chunk; any model name accepted.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { RawSettings } from "../../src/config/settings.ts";
import { parseTrialOptions } from "../../src/config/trial.ts";
import { DEFAULT_PROFILE } from "../../src/mock/profile.ts";
import { mergeProfile } from "../../src/mock/profile-merge.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { runSuite } from "../../src/quality/run.ts";
import { builtinSuite } from "../../src/quality/suite.ts";
import type { TrialReport } from "../../src/trial/measure.ts";
import { measureTrial } from "../../src/trial/trial.ts";
import { LOAD_TEST, QUICK_ENGINE } from "../helpers/mock.ts";

const FAST_MOCK = {
  ...QUICK_ENGINE,
  decodeBaseMs: 2,
  naturalMinTokens: 8,
  naturalMaxTokens: 12,
};

const RUN: RawSettings = {
  model: "mock-llm",
  rate: "20",
  duration: "0.6s",
  warmup: "0.1s",
  "input-len": "16",
  "output-len": "32",
  timeout: "5s",
  seed: "3",
};

async function measureMock(
  mock: Record<string, unknown>,
  settings: RawSettings = {},
): Promise<TrialReport> {
  const server = await startMockServer({
    profile: mergeProfile(DEFAULT_PROFILE, { ...FAST_MOCK, ...mock }, "test"),
  });
  try {
    return await measureTrial(parseTrialOptions({ ...RUN, url: `${server.url}/v1`, ...settings }));
  } finally {
    await server.close();
  }
}

for (const form of ["field", "event"] as const) {
  test(
    `an in-stream error sent as ${form === "field" ? "an SSE error: field (llama.cpp)" : "event: error"} is stream_error with the server's message`,
    LOAD_TEST,
    async () => {
      const r = await measureMock({ streamErrorForm: form, faults: { streamError: 1 } });
      assert.equal(r.outcomes.stream_error, r.scheduled, JSON.stringify(r.outcomes));
      const e = r.errors.stream_error?.[0];
      assert.match(e?.detail ?? "", /CUDA error: an illegal memory access/);
      assert.equal(e?.error_type, "InternalServerError");
    },
  );
}

test(
  "a server that closes kept-alive connections after each stream: one retry on a fresh connection, counted",
  LOAD_TEST,
  async () => {
    const r = await measureMock({ closeAfterResponse: true });
    assert.equal(
      r.outcomes.ok,
      r.scheduled,
      JSON.stringify({ outcomes: r.outcomes, errors: r.errors }),
    );
    assert.ok(r.reconnects > 0, "reused connections were found closed and retried");
    const plain = await measureMock({});
    assert.equal(plain.reconnects, 0);
  },
);

test(
  "the quality runner retries a closed kept-alive connection too, instead of a transport failure",
  LOAD_TEST,
  async () => {
    const server = await startMockServer({
      profile: mergeProfile(DEFAULT_PROFILE, { ...FAST_MOCK, closeAfterResponse: true }, "test"),
    });
    try {
      const suite = builtinSuite();
      const target = parseTrialOptions({ ...RUN, url: `${server.url}/v1` }).target;
      const streamed = {
        ...suite,
        cases: suite.cases.filter((c) => c.stream !== false).slice(0, 4),
      };
      const runs = await runSuite(target, streamed, { vllmSampling: false, timeoutS: 5 });
      const attempts = runs.flatMap((r) => r.attempts);
      const codes = attempts.flatMap((a) => a.results.flatMap((x) => x.codes));
      assert.ok(!codes.some((c) => c.startsWith("transport.")), codes.join(", "));
      assert.ok(attempts.reduce((n, a) => n + a.answer.reconnects, 0) > 0);
    } finally {
      await server.close();
    }
  },
);

test(
  "usage that counts an unstreamed EOS token is not 'several tokens per chunk'",
  LOAD_TEST,
  async () => {
    const eos = await measureMock({ usageCountsEos: true });
    assert.equal(eos.outcomes.ok, eos.scheduled);
    assert.equal(eos.tokens.usage_counts_eos, true);
    assert.equal(eos.tokens.tokens_per_chunk, 1);
    assert.equal(eos.tokens.itl_per_multi_token_chunk, false);
    const batched = await measureMock({ usageCountsEos: true, tokensPerChunk: 4 });
    assert.equal(
      batched.tokens.itl_per_multi_token_chunk,
      true,
      "real multi-token chunks still are",
    );
  },
);

test(
  "no role chunk, usage in the finish chunk, any model name: ok, with TTFT from the first token",
  LOAD_TEST,
  async () => {
    const r = await measureMock(
      { roleChunk: false, usageInFinishChunk: true, anyModel: true },
      { model: "whatever-the-user-calls-it" },
    );
    assert.equal(r.outcomes.ok, r.scheduled, JSON.stringify(r.outcomes));
    assert.equal(r.tokens.requests_with_usage, r.scheduled, "usage read from the finish chunk");
    assert.ok((r.metrics.ttft_ms.p50 as number) > 0);
  },
);
