// The surge suite end to end against the mock: a candidate that sheds the
// surge (a short queue) and then serves every step five times slower for ten
// seconds never recovers within the window and fails the gate on both rules;
// the same server on both arms passes. A TTFT SLO sets the target, so that a
// busy machine's jitter in a per-second p95 of five requests is not a
// recovery's delay.

import assert from "node:assert/strict";
import { test } from "node:test";
import { REAL_CHECKS } from "../../src/gate/options.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { headlineFor } from "../../src/report/headline.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { trustResults } from "../../src/results/trust.ts";
import { gate } from "../helpers/gate.ts";
import { LOAD_TEST, quickProfile } from "../helpers/mock.ts";

// 170 ms a request (16 steps of 10 ms): at 5 req/s constant one is in flight, at 15 about three.
const ENGINE = { decodeBaseMs: 10, prefillBaseMs: 5, jitter: 0 };

const SETTINGS = {
  model: "mock-llm",
  arrival: "constant",
  rate: "5",
  duration: "2s",
  warmup: "0s",
  "input-len": "32",
  "output-len": "16",
  "ignore-eos": "true",
  timeout: "10s",
  slo: "ttft:2000",
  trials: "2",
  "max-trials": "2",
  "quality-suite": "none",
  accuracy: "none",
  contract: "none",
  surge: "3x 2s",
  "surge-pairs": "2",
  "surge-before": "3s",
  "surge-after": "5s",
  "max-skew-effect": "50%",
  "max-late-sends": "50%",
  "max-offered-drift": "50%",
  "max-event-loop-delay-ms": "200",
};

/** Pairs: 3 where a fail must be shown (a t-interval on 2 pairs has 1 degree of freedom). */
async function surgeGate(candidateKnobs: Record<string, unknown>, pairs: number) {
  const baseline = await startMockServer({ profile: quickProfile(ENGINE) });
  const candidate = await startMockServer({
    profile: quickProfile({ ...ENGINE, ...candidateKnobs }),
  });
  try {
    return await gate(
      {
        ...SETTINGS,
        "surge-pairs": String(pairs),
        "baseline-url": `${baseline.url}/v1`,
        "candidate-url": `${candidate.url}/v1`,
      },
      { checks: REAL_CHECKS },
    );
  } finally {
    await Promise.all([baseline.close(), candidate.close()]);
  }
}

test(
  "a candidate that sheds a surge and recovers slowly fails on both rules, named in the comment",
  LOAD_TEST,
  async () => {
    const { run, results } = await surgeGate(
      { maxBatch: 2, maxQueue: 1, recoveryLagS: 10, recoveryScale: 5 },
      3,
    );
    const s = run.surge;
    assert.ok(s, run.surge_skipped ?? "no surge report");
    assert.equal(s.surge_per_s, 15);
    assert.equal(s.pairs.length, 3, s.notes.join("; "));
    const [recovery, failures] = s.comparison.checks;
    assert.equal(failures?.verdict, "fail", failures?.reason);
    assert.ok(s.pairs.every((p) => p.candidate.shed > 0 && p.baseline.failed === 0));
    assert.ok(
      s.pairs.every((p) => p.candidate.recovery_censored),
      JSON.stringify(s.pairs.map((p) => p.candidate)),
    );
    assert.equal(recovery?.verdict, "fail", recovery?.reason);
    assert.equal(run.verdict, "fail");
    assert.match(
      results.headline,
      /after a surge to 15 req\/s the candidate takes ≥ 5 s to recover \(the baseline [\d.]+ s/,
    );
    const comment = renderMarkdown(results, "k");
    assert.match(comment, /### Surge/);
    assert.match(comment, /\| time to recover \| [\d.]+ s \| ≥ 5 s \|/);
    assert.match(comment, /candidate failed \d+ of \d+: \d+ shed at once/);
    // Read back from the file: the same readings and verdicts from the timelines alone.
    const again = trustResults(JSON.parse(JSON.stringify(results)), "r.json", headlineFor);
    assert.equal(again.surge?.verdict, "fail");
    assert.deepEqual(again.surge?.comparison, s.comparison);
  },
);

test("the same server on both arms: the surge passes", LOAD_TEST, async () => {
  const { run } = await surgeGate({ seed: 7 }, 2);
  const s = run.surge;
  assert.ok(s, run.surge_skipped ?? "no surge report");
  assert.equal(s.verdict, "pass", s.comparison.checks.map((c) => c.reason).join("; "));
  // Recovered in the first second after the surge's end.
  assert.ok(
    s.pairs.every((p) => p.baseline.recovery_s === 0 && p.candidate.recovery_s === 0),
    JSON.stringify(s.pairs),
  );
});
