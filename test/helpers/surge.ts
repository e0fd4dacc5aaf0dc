// A surge gate against two in-process mocks, for the surge tests: constant
// arrivals at 5 req/s, a surge to 3 × that for 2 s between 3 s of steady load
// before and after; a TTFT SLO sets the target, so that a busy machine's
// jitter in a per-second p95 of five requests is not a recovery's delay.

import { REAL_CHECKS } from "../../src/gate/options.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { gate } from "./gate.ts";
import { quickProfile } from "./mock.ts";

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
  "surge-after": "3s",
  "max-skew-effect": "50%",
  "max-late-sends": "50%",
  "max-offered-drift": "50%",
  "max-event-loop-delay-ms": "200",
};

/** Pairs: 3 where a fail must be shown (a t-interval on 2 pairs has 1 degree of freedom). */
export async function surgeGate(candidateKnobs: Record<string, unknown>, pairs: number) {
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
