// A gate run the way the pipeline does it, for tests: settings → Config →
// runGate (with stand-ins) → the results document.

import { resultsOf as gateResultsOf } from "../../src/commands/gate/run.ts";
import { type Config, parseConfig } from "../../src/config/config.ts";
import type { RawSettings } from "../../src/config/settings.ts";
import { runGate } from "../../src/gate/gate.ts";
import type { GateRun } from "../../src/gate/gate-run.ts";
import type { GateDeps, ServerChecks } from "../../src/gate/options.ts";
import type { EnvironmentFacts, GateResults } from "../../src/results/model.ts";
import type { TrialOptions } from "../../src/trial/measure.ts";
import { type FakeTrial, fakeReport } from "./reports.ts";

export const TEST_ENVIRONMENT: EnvironmentFacts = {
  node: "v24.0.0",
  platform: "linux",
  arch: "x64",
  cpus: 2,
  runner: null,
  github: null,
};

export const NOW = new Date("2026-11-30T12:00:00Z");

/** Server checks that pass at once, for gates whose measurements are stand-ins (no server). */
export const NO_CHECKS: ServerChecks = {
  preflight: async (arm, target) => ({
    arm,
    url: target.baseUrl,
    model: target.model,
    models: [target.model],
    first_ttft_ms: 10,
    idle_ttft_ms: 10,
    warnings: [],
  }),
  waitIdle: async (_target, idleTtftMs) => ({
    by: "probes",
    probes: 1,
    waited_s: 0,
    busy: false,
    ttft_ms: idleTtftMs,
    idle_ttft_ms: idleTtftMs,
    queued: null,
    note: null,
  }),
};

export function resultsOf(config: Config, run: GateRun, now = NOW): GateResults {
  return gateResultsOf(run, config, TEST_ENVIRONMENT, now);
}

/** Parses the settings, runs the gate with the given stand-ins, and builds the results. */
export async function gate(
  settings: RawSettings,
  deps: GateDeps,
): Promise<{ config: Config; run: GateRun; results: GateResults }> {
  const config = parseConfig(settings);
  // A still clock: what the run's parts took reads 0 s, the same every time (the goldens).
  const run = await runGate(config.gate, { checks: NO_CHECKS, nowMs: () => 0, ...deps });
  return { config, run, results: resultsOf(config, run) };
}

/** Settings of a gate between two stand-in endpoints (nothing listens there). */
export const FAKE_SETTINGS: RawSettings = {
  "baseline-url": "http://127.0.0.1:8001/v1",
  "candidate-url": "http://127.0.0.1:8002/v1",
  model: "llama-3-8b",
  rate: "10",
  slo: "ttft:800 tpot:50",
  "quality-suite": "none",
  accuracy: "none",
  contract: "none",
  // Four pairs of stand-ins (each arm's list cycles), one look; their ~100 requests
  // a trial can show a failure rate within two points, not within the default half point.
  trials: "4",
  "max-trials": "4",
  "max-failure-increase": "2%",
};

export const armOf = (o: TrialOptions) =>
  o.target.baseUrl.includes("8001") ? ("baseline" as const) : ("candidate" as const);

/** The results of a gate whose trials are the given stand-ins, in order per arm. */
export async function fakeGateResults(
  baseline: FakeTrial[],
  candidate: FakeTrial[],
  extra: RawSettings = {},
): Promise<GateResults> {
  const next = { baseline: 0, candidate: 0 };
  const trials = { baseline, candidate };
  const { results } = await gate(
    { ...FAKE_SETTINGS, ...extra },
    {
      measureTrial: async (o) => {
        const arm = armOf(o);
        const list = trials[arm];
        return fakeReport(list[next[arm]++ % list.length] as FakeTrial);
      },
    },
  );
  return results;
}

/**
 * A gate between two real mock servers on 127.0.0.1 (their knobs on the
 * quick engine) whose latency trials are stand-ins: for the suites measured
 * apart (quality, contract, accuracy, the judge — a third mock, with its
 * knobs, when `judge` is given). Two pairs; the stand-ins' requests show a
 * failure rate within 5 points.
 */
export async function mockPairGate(
  knobs: {
    baseline?: Record<string, unknown>;
    candidate?: Record<string, unknown>;
    judge?: Record<string, unknown>;
  },
  settings: RawSettings,
  deps: GateDeps = {},
): Promise<{ run: GateRun; results: GateResults }> {
  const { startMockServer } = await import("../../src/mock/server.ts");
  const { quickProfile } = await import("./mock.ts");
  const [baseline, candidate, judge] = await Promise.all([
    startMockServer({ profile: quickProfile(knobs.baseline) }),
    startMockServer({ profile: quickProfile(knobs.candidate) }),
    knobs.judge ? startMockServer({ profile: quickProfile(knobs.judge) }) : undefined,
  ]);
  const judging: RawSettings = judge
    ? { "judge-url": `${judge.url}/v1`, "judge-model": "mock-llm" }
    : {};
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
        ...judging,
        ...settings,
      },
      { measureTrial: async () => fakeReport({ ttftMs: 100, itlMs: 10 }), ...deps },
    );
    return { run, results };
  } finally {
    await Promise.all([baseline.close(), candidate.close(), judge?.close()]);
  }
}
