// A scaling gate against two in-process fleet mocks, for the scaling tests:
// constant arrivals at 5 req/s of half-second streams (2.5 in flight, one
// replica's target is 4), a step to 4 × that for 6 s between 3 s of steady
// load and 4 s of it after, then 16 s hovering around 8 req/s, where a second
// replica's worth of queue comes and goes. Each fleet starts at one replica
// of at most three; its count is read from its own /metrics.

import { REAL_CHECKS } from "../../src/gate/options.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { gate } from "./gate.ts";
import { quickProfile } from "./mock.ts";

const ENGINE = { decodeBaseMs: 10, prefillBaseMs: 5, jitter: 0 };
export const FLEET = {
  fleetReplicas: 1,
  fleetMaxReplicas: 3,
  fleetTarget: 4,
  fleetIntervalS: 0.5,
  fleetStabilizationS: 5,
  fleetScaleUpDelayS: 1,
  fleetScaleIn: "drain",
};

const SETTINGS = {
  model: "mock-llm",
  arrival: "constant",
  rate: "5",
  duration: "2s",
  warmup: "0s",
  "input-len": "32",
  "output-len": "48",
  "ignore-eos": "true",
  timeout: "10s",
  slo: "ttft:2000",
  trials: "2",
  "max-trials": "2",
  "quality-suite": "none",
  accuracy: "none",
  contract: "none",
  "replicas-source": "metric:replicas",
  "replica-header": "x-replica",
  scaling: "4x 6s",
  "scaling-pairs": "3",
  "scaling-before": "3s",
  "scaling-after": "4s",
  "scaling-hover": "1.6x 16s",
  "scaling-settle": "60s",
  "max-skew-effect": "50%",
  "max-late-sends": "50%",
  "max-offered-drift": "50%",
  "max-event-loop-delay-ms": "200",
};

/** Both arms' fleets (the baseline's FLEET unless given) and the settings on top of SETTINGS. */
export async function scalingGate(
  candidateFleet: Record<string, unknown>,
  settings: Record<string, string> = {},
  baselineFleet: Record<string, unknown> = {},
) {
  const baseline = await startMockServer({
    profile: quickProfile({ ...ENGINE, ...FLEET, ...baselineFleet }),
  });
  const candidate = await startMockServer({
    profile: quickProfile({ ...ENGINE, ...FLEET, ...candidateFleet }),
  });
  try {
    return await gate(
      {
        ...SETTINGS,
        ...settings,
        "baseline-url": `${baseline.url}/v1`,
        "candidate-url": `${candidate.url}/v1`,
      },
      { checks: REAL_CHECKS },
    );
  } finally {
    await Promise.all([baseline.close(), candidate.close()]);
  }
}
