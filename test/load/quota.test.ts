// A gateway's token quota in front of a server (the mock's
// rateLimitTokensPerMin): the limits it announces on successful answers are
// kept per trial, and a 429 whose only evidence is that fewer tokens remain
// than the request asks for is the caller's quota, named by its dimension.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parseTrialOptions } from "../../src/config/trial.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { measureTrial } from "../../src/trial/trial.ts";
import { LOAD_TEST, quickProfile } from "../helpers/mock.ts";

test(
  "a tokens-per-minute quota: announced limits kept, its 429s told from the server's by the tokens asked",
  LOAD_TEST,
  async () => {
    // 16 prompt + 24 output tokens a request: 10 fit in 410, leaving 10 — not 0.
    const server = await startMockServer({ profile: quickProfile({ rateLimitTokensPerMin: 410 }) });
    try {
      const r = await measureTrial(
        parseTrialOptions({
          url: `${server.url}/v1`,
          model: "mock-llm",
          rate: "30",
          duration: "1s",
          warmup: "0s",
          "input-len": "16",
          "output-len": "24",
          timeout: "10s",
          "metrics-url": "none",
        }),
      );
      assert.ok(r.outcomes.ok >= 1, JSON.stringify(r.outcomes));
      assert.ok(r.outcomes.rate_limited_quota >= 1, JSON.stringify(r.outcomes));
      assert.equal(r.outcomes.rate_limited, 0, "no quota 429 taken for the server's");
      const example = r.errors.rate_limited_quota?.[0];
      assert.match(
        example?.detail ?? "",
        /the tokens-per-minute quota: 10 tokens left, this request asks for 40/,
      );
      assert.equal(r.rate_limits?.tokens.limit, 410);
      assert.equal(r.rate_limits?.tokens.remaining_min, 10);
      assert.equal(r.rate_limits?.tokens.reset, "60s");
      assert.ok((r.rate_limits?.responses ?? 0) >= r.outcomes.ok);
    } finally {
      await server.close();
    }
  },
);
