// A gate run the way the pipeline does it, for tests: settings → Config →
// runGate (with stand-ins) → the results document.

import { type Config, parseConfig } from "../../src/config/config.ts";
import { describeConfig } from "../../src/config/describe.ts";
import type { RawSettings } from "../../src/config/settings.ts";
import { type GateDeps, runGate } from "../../src/gate/gate.ts";
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

export function resultsOf(config: Config, run: GateRun, now = NOW): GateResults {
  return buildResults(run, describeConfig(config), TEST_ENVIRONMENT, now);
}

/** Parses the settings, runs the gate with the given stand-ins, and builds the results. */
export async function gate(
  settings: RawSettings,
  deps: GateDeps,
): Promise<{ config: Config; run: GateRun; results: GateResults }> {
  const config = parseConfig(settings);
  const run = await runGate(config.gate, deps);
  return { config, run, results: resultsOf(config, run) };
}
