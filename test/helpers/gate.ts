// A gate run the way the pipeline does it, for tests: settings → Config →
// runGate (with stand-ins) → the results document.

import { type Config, parseConfig } from "../../src/config/config.ts";
import { describeConfig } from "../../src/config/describe.ts";
import type { RawSettings } from "../../src/config/settings.ts";
import { type GateDeps, runGate, type ServerChecks } from "../../src/gate/gate.ts";
import {
  buildResults,
  type EnvironmentFacts,
  type GateResults,
  type GateRun,
} from "../../src/report/results.ts";

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
    probes: 1,
    waited_s: 0,
    busy: false,
    ttft_ms: idleTtftMs,
    idle_ttft_ms: idleTtftMs,
  }),
};

export function resultsOf(config: Config, run: GateRun, now = NOW): GateResults {
  return buildResults(run, describeConfig(config), TEST_ENVIRONMENT, now);
}

/** Parses the settings, runs the gate with the given stand-ins, and builds the results. */
export async function gate(
  settings: RawSettings,
  deps: GateDeps,
): Promise<{ config: Config; run: GateRun; results: GateResults }> {
  const config = parseConfig(settings);
  const run = await runGate(config.gate, { checks: NO_CHECKS, ...deps });
  return { config, run, results: resultsOf(config, run) };
}
