// The quick-start demo: two built-in mock servers — a baseline and a
// candidate whose decode steps are 30 % slower — and a short gate between them.

import type { RawSettings } from "./config/settings.ts";
import { DEFAULT_PROFILE, mergeProfile } from "./mock/profile.ts";
import { startMockServer } from "./mock/server.ts";
import { type PipelineDeps, planRun, runPipeline } from "./pipeline.ts";
import type { GateResults } from "./report/results.ts";

/** The demo's settings, as a user would write them in a config file. */
export const DEMO_SETTINGS = {
  rate: "5",
  duration: "5s",
  warmup: "1s",
  "input-len": "128",
  "output-len": "64",
  "ignore-eos": "true",
  slo: "ttft:1000 tpot:100",
  trials: "3",
  timeout: "10s",
  // Both mock servers share the gate's process and event loop here, and a
  // 25-request trial's p99 skew is its largest: allow a little more than 5 ms.
  "max-send-skew-ms": "10",
  // The quality suite (on by default in real gates) would double the demo's time.
  "quality-suite": "none",
} as const;

export const DEMO_DECODE_SCALE = 1.3;

export async function runDemo(
  settings: RawSettings,
  deps: PipelineDeps,
): Promise<{ results: GateResults; commentKey: string }> {
  const baseline = await startMockServer({ profile: DEFAULT_PROFILE });
  const candidate = await startMockServer({
    profile: mergeProfile(DEFAULT_PROFILE, { decodeScale: DEMO_DECODE_SCALE }, "demo"),
  });
  try {
    deps.log(
      `baseline mock ${baseline.url}; candidate mock ${candidate.url} (decode ${Math.round((DEMO_DECODE_SCALE - 1) * 100)} % slower)`,
    );
    const plan = planRun(
      {
        ...DEMO_SETTINGS,
        ...settings,
        "baseline-url": `${baseline.url}/v1`,
        "candidate-url": `${candidate.url}/v1`,
        model: "mock-llm",
      },
      deps.readFile,
    );
    return { results: await runPipeline(plan, deps), commentKey: plan.report.commentKey };
  } finally {
    await Promise.all([baseline.close(), candidate.close()]);
  }
}
