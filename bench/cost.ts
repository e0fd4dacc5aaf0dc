// What a verdict costs: the expected pairs and endpoint time of a gate, by
// load and candidate, from the gate's own decision functions on simulated
// pairs (bench/simulate.ts). Goodput, p95 TTFT and p95 ITL per pair with
// SD(d) of run noise (goodput 2 %; per-pair drift shared), the candidate's latencies
// × (1 + change); no request fails on either arm (a server below capacity);
// pairs added at each look while a family is open, as the gate adds them.
//
//   node_modules/.bin/node bench/cost.ts [gates per cell]

import { compareMetric, type MetricSpec } from "../src/compare/metric.ts";
import { compareReliability } from "../src/compare/reliability.ts";
import type { TrialEntry } from "../src/compare/trials.ts";
import { countsTrial, Simulator, TTFT } from "./simulate.ts";

const GATES = Number(process.argv[2] ?? 2000);
const GOODPUT: MetricSpec = {
  ...TTFT,
  id: "goodput",
  label: "goodput",
  higherIsWorse: false,
  tolerance: 0.05,
};
const ITL: MetricSpec = { ...TTFT, id: "itl", label: "p95 ITL" };
/** Goodput below capacity moves with the requests the window catches, not with the tail. */
const GOODPUT_SD = 0.02;

interface Load {
  name: string;
  requests: number;
  /** Warm-up and window (s). */
  loadS: number;
  trials: number;
  maxTrials: number;
  /** max-failure-increase. */
  failureTolerance: number;
}

const LOADS: Load[] = [
  {
    name: "the demo's (15 req/s × 3 s, 1 s warm-up, 4–6 pairs, ±2 points)",
    requests: 45,
    loadS: 4,
    trials: 4,
    maxTrials: 6,
    failureTolerance: 0.02,
  },
  {
    name: "15 req/s × 6 s (2 s warm-up)",
    requests: 90,
    loadS: 8,
    trials: 4,
    maxTrials: 30,
    failureTolerance: 0.005,
  },
  {
    name: "2 req/s × 6 s (2 s warm-up)",
    requests: 12,
    loadS: 8,
    trials: 4,
    maxTrials: 30,
    failureTolerance: 0.005,
  },
];

/** One gate: its pairs and verdict. */
function gateOf(sim: Simulator, change: number, sdD: number, load: Load) {
  const { requests } = load;
  const reliability = { maxFailureIncrease: load.failureTolerance, exclude: [] };
  const shared = Array.from({ length: sim.maxTrials }, () => sim.rng.normal());
  const values = [
    sim.pairs(0, GOODPUT_SD, shared),
    sim.pairs(change, sdD, shared),
    sim.pairs(change, sdD, shared),
  ];
  const specs = [GOODPUT, TTFT, ITL];
  const trials: TrialEntry[] = [];
  let pairs = 0;
  let verdict = "inconclusive";
  while (pairs < sim.maxTrials) {
    trials.push(
      countsTrial(pairs, "baseline", requests, 0),
      countsTrial(pairs, "candidate", requests, 0),
    );
    pairs++;
    if (!sim.design.looks.includes(pairs)) continue;
    const cs = specs.map((s, i) =>
      compareMetric(s, (values[i] ?? []).slice(0, pairs), "margin", sim.design, 0.1),
    );
    const r = compareReliability(reliability, trials, sim.design);
    const regressed = cs.some((c) => c.verdict === "regressed") || r.verdict === "regressed";
    const passed = [...cs.map((c) => c.verdict), r.verdict].every(
      (v) => v === "pass" || v === "improved",
    );
    verdict = regressed ? "fail" : passed ? "pass" : "inconclusive";
    const open = cs.some((c) => c.status === "open") || r.status === "open";
    if (regressed || !open) break;
  }
  return { pairs, verdict };
}

const minutes = (s: number) => (s < 90 ? `${Math.round(s)} s` : `${(s / 60).toFixed(1)} min`);

console.log(`# What a verdict costs (${GATES} simulated gates per row)\n`);
console.log(
  "| load | SD(d) | candidate | E[pairs] | endpoint time | pass % | fail % | inconclusive % |",
);
console.log("| --- | --: | --- | --: | --: | --: | --: | --: |");
for (const load of LOADS) {
  for (const sdD of [0.05, 0.1]) {
    const sim = new Simulator(20261205, load.trials, load.maxTrials);
    for (const [name, change] of [
      ["A/A", 0],
      ["+5 %", 0.05],
      ["+25 %", 0.25],
    ] as const) {
      const n = { pairs: 0, pass: 0, fail: 0, inconclusive: 0 };
      for (let g = 0; g < GATES; g++) {
        const r = gateOf(sim, change, sdD, load);
        n.pairs += r.pairs;
        n[r.verdict as "pass" | "fail" | "inconclusive"]++;
      }
      const pairs = n.pairs / GATES;
      const pct = (k: number) => ((100 * k) / GATES).toFixed(1);
      console.log(
        `| ${load.name} | ${sdD * 100} % | ${name} | ${pairs.toFixed(1)} | ${minutes(2 * pairs * load.loadS)} | ${pct(n.pass)} | ${pct(n.fail)} | ${pct(n.inconclusive)} |`,
      );
    }
  }
}
