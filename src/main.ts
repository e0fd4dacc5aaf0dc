// The GitHub Action entry. Until the gate lands, the action runs the demo:
// the built-in mock server and one streaming request, reported in the job summary.

import * as core from "@actions/core";
import { formatDemo, runDemo } from "./demo.ts";

async function run(): Promise<void> {
  const result = await runDemo();
  core.info(formatDemo(result));
  await core.summary
    .addHeading("llm-perf-gate demo", 2)
    .addTable([
      [
        { data: "first byte (ms)", header: true },
        { data: "TTFT (ms)", header: true },
        { data: "E2EL (ms)", header: true },
        { data: "output tokens", header: true },
        { data: "finish_reason", header: true },
      ],
      [
        result.firstByteMs.toFixed(1),
        result.ttftMs.toFixed(1),
        result.e2elMs.toFixed(1),
        String(result.completionTokens ?? "?"),
        result.finishReason ?? "none",
      ],
    ])
    .write();
}

run().catch((error: unknown) => {
  core.setFailed(error instanceof Error ? error.message : String(error));
});
