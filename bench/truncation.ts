// The truncation replay's floor and what it does: gates of two mock
// processes (1 ms engine steps, natural answers of 16–256 tokens, Poisson
// 40 req/s for 5 s, 2 pairs, 40 replays an arm), with batch nondeterminism
// (`lengthNondeterminism`: the share of greedy answers whose length is drawn
// afresh) on both arms, and with --ab a candidate that cuts answers to half
// whenever two or more sequences run.
//
//   node_modules/.bin/node bench/truncation.ts [gates] [nondeterminism] [--ab]

import { join } from "node:path";
import { startMockProcess } from "../src/commands/demo.ts";
import type { TruncationReport } from "../src/stress/truncation.ts";
import { runQuietGate } from "./quiet-gate.ts";

const [gatesArg = "5", qArg = "0"] = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const ab = process.argv.includes("--ab");
const cli = [process.execPath, join(import.meta.dirname, "../src/cli.ts")];
const ENGINE = ["decodeBaseMs=1", "decodePerSeqMs=0", "prefillBaseMs=1", "jitter=0"];
const both = [...ENGINE, `lengthNondeterminism=${qArg}`];
const cutting = [...both, "truncateAboveRunning=2", "truncateShare=0.5"];

const SETTINGS = {
  model: "mock-llm",
  rate: "40",
  duration: "5s",
  "input-len": "32",
  "output-len": "512",
  trials: "2",
  "max-trials": "2",
  "quality-suite": "none",
  accuracy: "none",
  contract: "none",
  "truncation-replay": "40",
};

console.log(
  `${gatesArg} gates, lengthNondeterminism ${qArg} on both arms${ab ? ", the candidate cutting answers to half at ≥ 2 running" : ""}`,
);
const verdicts: string[] = [];
const floors: number[] = [];
for (let g = 0; g < Number(gatesArg); g++) {
  const baseline = await startMockProcess(cli, [...both, `seed=${2 * g + 1}`]);
  const candidate = await startMockProcess(cli, [...(ab ? cutting : both), `seed=${2 * g + 2}`]);
  try {
    const r = await runQuietGate({
      ...SETTINGS,
      seed: String(g + 1),
      "baseline-url": `${baseline.url}/v1`,
      "candidate-url": `${candidate.url}/v1`,
      "results-path": join(process.env.TMPDIR ?? "/tmp", `lpg-truncation-${g}.json`),
    });
    const t = r.truncation as TruncationReport | null;
    if (!t)
      throw new Error(
        `gate ${g + 1}: no truncation report (${r.truncation_skipped ?? r.headline})`,
      );
    const [b, c] = [t.arms.baseline, t.arms.candidate];
    floors.push(b.floor, c.floor);
    verdicts.push(t.verdict);
    console.log(
      `gate ${g + 1}: baseline ${b.truncated}/${b.replayed} cut, floor ${b.differs_at_idle}; candidate ${c.truncated}/${c.replayed} cut, floor ${c.differs_at_idle}; ${t.verdict} (p ${t.p_value.toPrecision(2)})`,
    );
  } finally {
    await Promise.all([baseline.stop(), candidate.stop()]);
  }
}
const mean = floors.reduce((a, b) => a + b, 0) / Math.max(1, floors.length);
const count = (v: string) => verdicts.filter((x) => x === v).length;
console.log(
  `floor (half the share of idle answers differing) mean ${(100 * mean).toFixed(1)} %; verdicts: ${count("pass")} pass, ${count("fail")} fail, ${count("inconclusive")} inconclusive`,
);
