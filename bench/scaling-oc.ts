// The scaling rules' operating characteristic, by simulation of the rules
// themselves (stress/scaling-compare.ts: the margin rule with its noise floor)
// at the gate's defaults with `scaling: 1.5x 5m` (its four rules' shares of
// α): the reaction and the flaps, on A/A (the false-fail rate) and on a
// regression (the power), for 2, 3, 5 and 10 pairs. Seconds, no servers.
//
// The reaction is a cold start plus a scaler's sync period: c + U(0, 15 s) +
// N(0, 3 s), read at the default trial's 4 s buckets (a reading is its
// bucket's start). Flaps are Poisson counts over the 2-minute hover.
//
//   node_modules/.bin/node bench/scaling-oc.ts [gates per cell, default 20000]

import { parseConfig } from "../src/config/config.ts";
import { scalingRule } from "../src/gate/scaling.ts";
import { compareScaling, type ScalingPair } from "../src/stress/scaling-compare.ts";
import type { ScalingReading } from "../src/stress/scaling-read.ts";
import { Rng } from "../src/workload/rng.ts";

const GATES = Number(process.argv[2] ?? 20_000);
const config = parseConfig({
  "baseline-url": "http://127.0.0.1:8001/v1",
  "candidate-url": "http://127.0.0.1:8002/v1",
  model: "m",
  rate: "10",
  scaling: "1.5x 5m",
});
const scaling = config.gate.scaling;
if (!scaling) throw new Error("no scaling");
const RULE = scalingRule(scaling, config.gate.decision);
const rng = new Rng(20261206);
const BUCKET_S = 4;
const HOVER_S = 120;
const pct = (x: number) => (100 * x).toFixed(1);

const normal = () =>
  Math.sqrt(-2 * Math.log(1 - rng.uniform())) * Math.cos(2 * Math.PI * rng.uniform());

function poisson(mean: number): number {
  const limit = Math.exp(-mean);
  let k = 0;
  for (let p = rng.uniform(); p > limit; p *= rng.uniform()) k++;
  return k;
}

const BASE: ScalingReading = {
  start_replicas: 1,
  peak_replicas: 2,
  reaction_s: 0,
  reaction_censored: false,
  scaled_s: 0,
  served_s: null,
  served_ttft_ms: null,
  scheduled: 1000,
  unmet: 0,
  flaps: 0,
  flaps_per_10min: 0,
  scale_ins: 1,
  at_risk: 1000,
  cut: 0,
  resolution_s: BUCKET_S,
  hover_s: HOVER_S,
};

function reading(coldS: number, flapMean: number): ScalingReading {
  const trueS = Math.max(0, coldS + 15 * rng.uniform() + 3 * normal());
  const flaps = poisson(flapMean);
  return {
    ...BASE,
    reaction_s: Math.floor(trueS / BUCKET_S) * BUCKET_S,
    flaps,
    flaps_per_10min: (flaps * 600) / HOVER_S,
  };
}

type Arm = { coldS: number; flapMean: number };

function rates(pairs: number, b: Arm, c: Arm, id: "reaction" | "flaps") {
  let fail = 0;
  let pass = 0;
  for (let g = 0; g < GATES; g++) {
    const ps: ScalingPair[] = Array.from({ length: pairs }, (_, pair) => ({
      pair,
      baseline: reading(b.coldS, b.flapMean),
      candidate: reading(c.coldS, c.flapMean),
    }));
    const v = compareScaling(ps, RULE).checks.find((x) => x.id === id)?.verdict;
    if (v === "fail") fail++;
    if (v === "pass") pass++;
  }
  return `${pct(fail / GATES)} % fail, ${pct(pass / GATES)} % pass`;
}

const PAIRS = [2, 3, 5, 10];
console.log(
  `α: pass ${RULE.passAlpha}, fail ${RULE.failAlpha.toPrecision(3)}; ${GATES} gates a cell`,
);
console.log("\nreaction (max-reaction-increase +50 %), 4 s buckets");
console.log("| cold start | pairs | A/A | candidate ×2 |");
console.log("|---|--:|---|---|");
for (const coldS of [15, 30, 60])
  for (const pairs of PAIRS)
    console.log(
      `| ${coldS} s | ${pairs} | ${rates(pairs, { coldS, flapMean: 0 }, { coldS, flapMean: 0 }, "reaction")} | ${rates(pairs, { coldS, flapMean: 0 }, { coldS: 2 * coldS, flapMean: 0 }, "reaction")} |`,
    );
console.log("\nflaps (max-flap-increase 2 turns per 10 min), 2-minute hover");
console.log("| baseline's mean turns | pairs | A/A | candidate 1 → 8 turns |");
console.log("|---|--:|---|---|");
for (const mean of [0.2, 1, 3])
  for (const pairs of PAIRS)
    console.log(
      `| ${mean} | ${pairs} | ${rates(pairs, { coldS: 30, flapMean: mean }, { coldS: 30, flapMean: mean }, "flaps")} | ${mean === 1 ? rates(pairs, { coldS: 30, flapMean: 1 }, { coldS: 30, flapMean: 8 }, "flaps") : "–"} |`,
    );
