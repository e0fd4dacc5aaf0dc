// A/A gates with the demo's settings: one mock server (a process of its own)
// is both the baseline and the candidate, N times — optionally while another
// process keeps one core busy. The same server on both arms is the A/A that
// users run against one llama-server: every difference is the measurement's.
// Reports each verdict, the pairs re-run and why. It must never fail, and
// should rarely be `error` however busy the machine is.
//
//   node_modules/.bin/node bench/aa-gates.ts [gates] [--busy]

import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_SETTINGS, startMockProcess } from "../src/commands/demo.ts";
import { runQuietGate } from "./quiet-gate.ts";

const gates = Number(process.argv[2] ?? 20);
const busy = process.argv.includes("--busy");
const cli = [process.execPath, join(import.meta.dirname, "../src/cli.ts")];
const dir = mkdtempSync(join(tmpdir(), "lpg-aa-"));
const hog = busy ? spawn(process.execPath, ["-e", "for(;;);"], { stdio: "ignore" }) : undefined;
const verdicts: Record<string, number> = {};
let rerunPairs = 0;
let trials = 0;
const reasons: string[] = [];
try {
  for (let i = 0; i < gates; i++) {
    const a = await startMockProcess(cli, []);
    try {
      const r = await runQuietGate({
        ...DEMO_SETTINGS,
        "baseline-url": `${a.url}/v1`,
        "candidate-url": `${a.url}/v1`,
        model: "mock-llm",
        "results-path": join(dir, `aa-${i}.json`),
      });
      verdicts[r.verdict] = (verdicts[r.verdict] ?? 0) + 1;
      rerunPairs += r.reruns.length;
      trials += r.trials.length + 2 * r.reruns.length;
      for (const x of r.reruns) for (const t of x.invalid) reasons.push(t.reasons.join("; "));
      console.log(
        JSON.stringify({
          gate: i + 1,
          verdict: r.verdict,
          reruns: r.reruns.length,
          headline: r.headline,
        }),
      );
    } finally {
      await a.stop();
    }
  }
} finally {
  hog?.kill("SIGKILL");
}
console.log(JSON.stringify({ gates, busy, verdicts, rerunPairs, trials }));
for (const reason of reasons) console.log(`re-run because: ${reason}`);
