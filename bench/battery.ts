// A battery of real gates against the built-in mock, to check the simulated
// operating characteristic (bench/oc.ts) on real measurements: an A/A (one
// mock process as both arms), a candidate whose decode is 5 % slower (inside
// the tolerance), 15 % and 25 % slower, and one whose prefill is 20 % slower —
// each on a quiet machine and with another process keeping one core busy,
// round by round over the cells (a battery stopped early is still balanced).
// Each mock is a process of its own, as the demo runs them.
//
//   node_modules/.bin/node bench/battery.ts [gates per cell, default 10] [scenario …]
//
// The gate: the default design (trials 4, two more per look) capped at 12
// pairs, 20 req/s for 3 s after 1 s of warm-up (≈ 60 requests per trial),
// 128 tokens in, 64 out with ignore_eos; max-failure-increase 2 % (60
// requests a trial cannot show half a point, docs/verdict.md).

import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMockProcess } from "../src/commands/demo.ts";
import { runQuietGate } from "./quiet-gate.ts";

const SETTINGS = {
  rate: "20",
  duration: "3s",
  warmup: "1s",
  "input-len": "128",
  "output-len": "64",
  "ignore-eos": "true",
  slo: "ttft:1000 tpot:100",
  timeout: "10s",
  trials: "4",
  "max-trials": "12",
  "max-failure-increase": "2%",
  "quality-suite": "none",
  accuracy: "none",
  model: "mock-llm",
};

/** Each scenario: the candidate's mock settings, or null for the A/A (the baseline's own process). */
const SCENARIOS: Record<string, string[] | null> = {
  "A/A": null,
  "decode +5 %": ["decodeScale=1.05"],
  "decode +15 %": ["decodeScale=1.15"],
  "decode +25 %": ["decodeScale=1.25"],
  "prefill +20 %": ["prefillScale=1.2"],
};

const gates = Number(process.argv[2] ?? 10);
const chosen = process.argv.slice(3);
const cli = [process.execPath, join(import.meta.dirname, "../src/cli.ts")];
const dir = mkdtempSync(join(tmpdir(), "lpg-battery-"));

interface Cell {
  scenario: string;
  busy: boolean;
  gates: number;
  verdicts: Record<string, number>;
  pairs: number;
  reruns: number;
  ttft: number[];
  itl: number[];
}

async function oneGate(candidateSets: string[] | null, name: string) {
  const baseline = await startMockProcess(cli, []);
  const candidate = candidateSets ? await startMockProcess(cli, candidateSets) : baseline;
  try {
    return await runQuietGate({
      ...SETTINGS,
      "baseline-url": `${baseline.url}/v1`,
      "candidate-url": `${candidate.url}/v1`,
      "results-path": join(dir, `${name}.json`),
    });
  } finally {
    await baseline.stop();
    if (candidate !== baseline) await candidate.stop();
  }
}

/** One more gate of a cell, with a busy-core process around it when the cell asks for one. */
async function addGate(cell: Cell): Promise<void> {
  const hog = cell.busy
    ? spawn(process.execPath, ["-e", "for(;;);"], { stdio: "ignore" })
    : undefined;
  try {
    const name = `${cell.scenario}-${cell.busy ? "busy" : "quiet"}-${cell.gates}`.replace(
      /[^\w-]+/g,
      "_",
    );
    const r = await oneGate(SCENARIOS[cell.scenario] ?? null, name);
    cell.gates++;
    cell.verdicts[r.verdict] = (cell.verdicts[r.verdict] ?? 0) + 1;
    cell.pairs += r.pairs;
    cell.reruns += r.reruns.length;
    const change = (id: string) => r.comparisons.find((c) => c.id === id)?.change;
    cell.ttft.push(change("ttft") ?? Number.NaN);
    cell.itl.push(change("itl") ?? Number.NaN);
    const { scenario, busy } = cell;
    console.log(
      JSON.stringify({
        scenario,
        busy,
        gate: cell.gates,
        verdict: r.verdict,
        pairs: r.pairs,
        headline: r.headline,
      }),
    );
  } finally {
    hog?.kill("SIGKILL");
  }
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const pct = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(100 * x).toFixed(1)} %`;

function printTable(cells: Cell[]): void {
  console.log(
    "\n| candidate | machine | gates | pass | inconclusive | fail | error | mean pairs | pairs re-run | mean TTFT change | mean ITL change |",
  );
  console.log("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
  for (const c of cells) {
    const v = (k: string) => c.verdicts[k] ?? 0;
    console.log(
      `| ${c.scenario} | ${c.busy ? "one core busy" : "quiet"} | ${c.gates} | ${v("pass")} | ${v("inconclusive")} | ${v("fail")} | ${v("error")} | ${(c.pairs / c.gates).toFixed(1)} | ${c.reruns} | ${pct(mean(c.ttft))} | ${pct(mean(c.itl))} |`,
    );
  }
}

// Round by round over the cells, so that a battery stopped early is still balanced;
// the table is printed after every round.
const cells: Cell[] = Object.keys(SCENARIOS)
  .filter((s) => chosen.length === 0 || chosen.includes(s))
  .flatMap((scenario) =>
    [false, true].map((busy) => ({
      scenario,
      busy,
      gates: 0,
      verdicts: {},
      pairs: 0,
      reruns: 0,
      ttft: [],
      itl: [],
    })),
  );
for (let round = 0; round < gates; round++) {
  for (const cell of cells) await addGate(cell);
  printTable(cells);
}
