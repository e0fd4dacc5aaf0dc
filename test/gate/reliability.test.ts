// Reliability end to end against the mock: a candidate that returns HTTP 500,
// empty 200 streams, truncated streams, refusals or a finish_reason outside
// the contract for 10 % of its requests fails the gate, named by class with
// both arms' rates — it is not "no verdict".

import assert from "node:assert/strict";
import { test } from "node:test";
import { REAL_CHECKS } from "../../src/gate/options.ts";
import { DEFAULT_PROFILE } from "../../src/mock/profile.ts";
import { mergeProfile } from "../../src/mock/profile-merge.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { gate } from "../helpers/gate.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

const FAST = { prefillBaseMs: 2, prefillPerTokenMs: 0, decodeBaseMs: 2, decodePerSeqMs: 0 };

// ≈ 160 requests per trial, 4 pairs, one look: ≈ 64 failures of 640 at 10 % against
// none — an increase whose lower bound is beyond half the tolerance (0.25 points)
// even with the pairs' spread (the failure rate's share of α is a sixth of 5 %,
// and four pairs estimate that spread with 3 degrees of freedom).
const SETTINGS = {
  model: "mock-llm",
  rate: "160",
  duration: "1s",
  warmup: "0.2s",
  "input-len": "32",
  "output-len": "16",
  "ignore-eos": "true",
  timeout: "5s",
  trials: "4",
  "max-trials": "4",
  "quality-suite": "none",
  accuracy: "none",
  contract: "none",
  // These tests are about reliability; the self-checks have their own, and the
  // mocks share this process's event loop here.
  "max-skew-effect": "50%",
  "max-late-sends": "50%",
  "max-offered-drift": "50%",
  "max-event-loop-delay-ms": "100",
};

for (const [fault, headline] of [
  [
    "http500",
    /the candidate answered \d\.\d % of requests with HTTP 500 vs 0\.0 % on the baseline/,
  ],
  [
    "empty",
    /the candidate silently dropped \d\.\d % of requests \(an empty 200 stream\) vs 0\.0 %/,
  ],
  [
    "truncated",
    /the candidate cut off \d\.\d % of requests \(the stream ended without finish_reason or \[DONE\]\) vs 0\.0 %/,
  ],
  [
    "refusal",
    /the candidate refused to answer \d\.\d % of requests \(a refusal, or finish_reason content_filter\) vs 0\.0 %/,
  ],
  [
    "finishError",
    /the candidate gave a bad finish_reason on \d\.\d % of requests \(none of stop, length, tool_calls, content_filter\) vs 0\.0 %/,
  ],
] as const) {
  test(
    `a candidate with 10 % ${fault} fails, naming the class and both rates`,
    LOAD_TEST,
    async () => {
      const baseline = await startMockServer({
        profile: mergeProfile(DEFAULT_PROFILE, FAST, "test"),
      });
      const candidate = await startMockServer({
        profile: mergeProfile(
          DEFAULT_PROFILE,
          { ...FAST, seed: 7, faults: { [fault]: 0.1 } },
          "test",
        ),
      });
      try {
        const { run, results } = await gate(
          {
            ...SETTINGS,
            "baseline-url": `${baseline.url}/v1`,
            "candidate-url": `${candidate.url}/v1`,
          },
          { checks: REAL_CHECKS },
        );
        assert.equal(run.verdict, "fail", results.headline);
        assert.equal(run.reliability?.verdict, "regressed", run.reliability?.reason);
        assert.match(results.headline, headline);
        assert.equal(run.reliability?.baseline.failed, 0);
        assert.ok(
          (run.reliability?.candidate.failed ?? 0) >= 4,
          JSON.stringify(run.reliability?.candidate),
        );
      } finally {
        await Promise.all([baseline.close(), candidate.close()]);
      }
    },
  );
}
