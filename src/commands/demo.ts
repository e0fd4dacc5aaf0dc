// `llm-perf-gate demo`, the quick start: two built-in mock servers — a
// baseline and a candidate whose decode steps are 30 % slower — and a short
// gate between them. The mocks run as processes of their own (the `mock`
// command), so that their timers never share the load generator's event loop:
// on a busy machine the demo still measures the servers, not itself.

import { type ChildProcess, spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COMMENT_LIMIT } from "../github/publish.ts";
import { renderMarkdown } from "../report/markdown.ts";
import { planRun } from "./gate/plan.ts";
import { type GateIo, runGateCommand } from "./gate/run.ts";
import type { CommandIo } from "./io.ts";
import { writeRunPage } from "./report.ts";
import { describeRequests } from "./requests.ts";

/** The demo's settings, as a user would write them in a config file. */
export const DEMO_SETTINGS = {
  // 15 req/s for 3 s: ≈ 45 requests per trial, so that p95 is not just the largest one.
  rate: "15",
  duration: "3s",
  warmup: "1s",
  "input-len": "128",
  "output-len": "64",
  "ignore-eos": "true",
  slo: "ttft:1000 tpot:100",
  // Two balanced blocks (AB BA AB BA) before the first look; one more look at most, to stay short.
  trials: "4",
  "max-trials": "6",
  // 180–270 requests per arm show a failure rate within 2 points (149 without a failure do),
  // never within the default half point (598): the plan check would say so.
  "max-failure-increase": "2%",
  timeout: "10s",
  // The quality suite (on by default in real gates) would double the demo's time.
  "quality-suite": "none",
  // The built-in accuracy suite on both arms, many items at a time (the mocks batch them).
  "accuracy-concurrency": "64",
} as const;

export const DEMO_DECODE_SCALE = 1.3;

/**
 * A mock with a knee the engine model predicts exactly (saturationRatePerS):
 * 8 sequences per batch, prefill by prompt tokens only, 16 output tokens —
 * it saturates near 60 req/s, a rate the load generator holds on 2 cores
 * with the mock in a process of its own.
 */
export const KNEE_MOCK_SETS = ["maxBatch=8", "prefillBaseMs=0", "prefillPerTokenMs=0.05"] as const;
export const KNEE_WORKLOAD = {
  "input-len": "32",
  "output-len": "16",
  "ignore-eos": "true",
  slo: "ttft:300",
} as const;

/**
 * The smallest capacity gate that still shows a 15 % slower decode (≈1.5 min):
 * 3 s windows, 3 grid rates, a 5 % resolution, 2 pairs at the knee. Late
 * sends are not what it is about: at 60 req/s on a busy machine the mock and
 * the load generator share the cores, so those limits are loose.
 */
export const KNEE_GATE_SETTINGS = {
  ...KNEE_WORKLOAD,
  model: "mock-llm",
  capacity: "true",
  duration: "3s",
  warmup: "1s",
  seed: "2",
  trials: "2",
  "sweep-points": "3",
  "capacity-resolution": "5%",
  "sync-requests": "8",
  "offline-requests": "128",
  "quality-suite": "none",
  accuracy: "none",
  "max-late-sends": "50%",
  "max-skew-effect": "50%",
  "max-event-loop-delay-ms": "100",
} as const;

interface MockProcess {
  url: string;
  stop(): Promise<void>;
}

/** Starts `<cli> mock --port 0 …` and waits for the URL it prints. */
export function startMockProcess(cli: string[], sets: string[]): Promise<MockProcess> {
  const [node, ...args] = cli as [string, ...string[]];
  const child: ChildProcess = spawn(
    node,
    [
      ...args,
      "mock",
      "--port",
      "0",
      "--stop-when-stdin-closes",
      ...sets.flatMap((s) => ["--set", s]),
    ],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    child.stdin?.end();
    child.kill("SIGTERM");
    await exited;
  };
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = out.match(/listening on (http:\/\/[^\s]+)/);
      if (m) resolve({ url: m[1] as string, stop });
    });
    child.once("exit", (code) =>
      reject(new Error(`the demo's mock server exited (${code}): ${out}`)),
    );
  });
}

/** Runs the demo gate; `cli` is how to start this program again (node and the CLI's path). */
export async function demoCli(
  cli: string[],
  io: GateIo & Pick<CommandIo, "stdout" | "stderr">,
): Promise<number> {
  const resultsPath = join(tmpdir(), "llm-perf-gate-demo-results.json");
  const [baseline, candidate] = await Promise.all([
    startMockProcess(cli, []),
    startMockProcess(cli, [`decodeScale=${DEMO_DECODE_SCALE}`]),
  ]);
  try {
    io.log(
      `baseline mock ${baseline.url}; candidate mock ${candidate.url} (decode ${Math.round((DEMO_DECODE_SCALE - 1) * 100)} % slower), each in a process of its own`,
    );
    const plan = planRun(
      {
        ...DEMO_SETTINGS,
        "results-path": resultsPath,
        "baseline-url": `${baseline.url}/v1`,
        "candidate-url": `${candidate.url}/v1`,
        model: "mock-llm",
      },
      io.readFile,
    );
    const results = await runGateCommand(plan, io);
    io.stdout(renderMarkdown(results, plan.report.commentKey, COMMENT_LIMIT));
    await writeRunPage(results, plan.report, io, "own");
    io.stderr(`results written to ${resultsPath}\n`);
    if (results.requests_file) io.stderr(`${describeRequests(results.requests_file)}\n`);
    return 0;
  } finally {
    await Promise.all([baseline.stop(), candidate.stop()]);
  }
}
