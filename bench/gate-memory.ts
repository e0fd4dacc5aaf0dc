// A gate's memory against its number of pairs: a fixed design of N pairs
// (trials = max-trials = N) against two mock processes, run in this process
// the way the CLI runs it, the requests file on. Before each pair starts, a
// full collection, then the live heap and the resident memory. A finished
// trial should keep its summaries and histograms only: the live heap after
// 30 pairs within 1.5 × the heap after 4, RSS too (issue 39).
//
//   node_modules/.bin/node --expose-gc bench/gate-memory.ts [pairs, default 30] [seconds a trial, default 2] [req/s, default 50]

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMockProcess } from "../src/commands/demo.ts";
import { planRun } from "../src/commands/gate/plan.ts";
import { runGateCommand } from "../src/commands/gate/run.ts";

const PAIRS = Number(process.argv[2] ?? 30);
const SECONDS = Number(process.argv[3] ?? 2);
const RATE = Number(process.argv[4] ?? 50);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");

const CLI = [process.execPath, join(import.meta.dirname, "../src/cli.ts")];
const QUICK = ["prefillBaseMs=2", "prefillPerTokenMs=0", "decodeBaseMs=2", "decodePerSeqMs=0"];
const [baseline, candidate] = await Promise.all([
  startMockProcess(CLI, QUICK),
  startMockProcess(CLI, QUICK),
]);
const dir = mkdtempSync(join(tmpdir(), "lpg-gate-memory-"));
const samples: { pair: number; heapMb: number; rssMb: number }[] = [];
const sample = (pair: number) => {
  gc?.();
  const m = process.memoryUsage();
  samples.push({ pair, heapMb: m.heapUsed / 2 ** 20, rssMb: m.rss / 2 ** 20 });
};
try {
  const readFile = (p: string) => readFileSync(p, "utf8");
  const plan = planRun(
    {
      "baseline-url": `${baseline.url}/v1`,
      "candidate-url": `${candidate.url}/v1`,
      model: "mock-llm",
      rate: String(RATE),
      duration: `${SECONDS}s`,
      warmup: "0.2s",
      "input-len": "64",
      "output-len": "32",
      "ignore-eos": "true",
      trials: String(PAIRS),
      "max-trials": String(PAIRS),
      "quality-suite": "none",
      accuracy: "none",
      contract: "none",
      "max-late-sends": "50%",
      "max-skew-effect": "50%",
      "max-event-loop-delay-ms": "100",
      "results-path": join(dir, "results.json"),
    },
    readFile,
  );
  const started = performance.now();
  const results = await runGateCommand(plan, {
    env: {},
    readFile,
    writeFile: (p, t) => writeFileSync(p, t),
    log: (line) => {
      // "pair k/N baseline: measuring …": the first trial of pair k is about to start.
      const m = line.match(/^pair (\d+)\/\d+ \S+: measuring/);
      if (m && samples.at(-1)?.pair !== Number(m[1])) sample(Number(m[1]));
    },
    signals: { listen: () => () => {} },
  });
  sample(PAIRS + 1);
  const minutes = (performance.now() - started) / 60_000;
  console.log(
    `${results.pairs} pairs of ${SECONDS} s at ${RATE} req/s (${results.verdict}), ${minutes.toFixed(1)} min`,
  );
  console.log("before pair | live heap MB | RSS MB");
  for (const s of samples) {
    const at = s.pair > PAIRS ? "end" : String(s.pair);
    console.log(`${at.padStart(11)} | ${s.heapMb.toFixed(1).padStart(12)} | ${s.rssMb.toFixed(0)}`);
  }
  const at = (pair: number) => samples.find((s) => s.pair === pair);
  const four = at(5);
  const last = at(PAIRS + 1);
  if (four && last)
    console.log(
      `after ${PAIRS} pairs ÷ after 4: live heap ${(last.heapMb / four.heapMb).toFixed(2)}, RSS ${(last.rssMb / four.rssMb).toFixed(2)}`,
    );
} finally {
  await Promise.all([baseline.stop(), candidate.stop()]);
  rmSync(dir, { recursive: true, force: true });
}
