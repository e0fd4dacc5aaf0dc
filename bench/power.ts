// The gate's calibration and power by simulation: per-trial p95 values drawn
// with log-normal run noise σ and a per-pair drift (σ 5 %, shared by both arms
// of a pair), a true change applied to the candidate, 2,000 gates per cell.
// Usage: node bench/power.ts

import { compareMetric, type MetricSpec } from "../src/compare/decide.ts";
import { Rng } from "../src/workload/rng.ts";

const SPEC: MetricSpec = {
  id: "ttft",
  label: "p95 TTFT",
  unit: "ms",
  higherIsWorse: true,
  tolerance: 0.1,
};
const GATES = 2000;
const rng = new Rng(7);

function rate(
  pairs: number,
  noise: number,
  change: number,
  rule: "significant-and-material" | "confirm",
) {
  let regressed = 0;
  let inconclusive = 0;
  for (let g = 0; g < GATES; g++) {
    const values = Array.from({ length: pairs }, () => {
      const drift = Math.exp(0.05 * rng.normal());
      return {
        baseline: 100 * drift * Math.exp(noise * rng.normal()),
        candidate: 100 * (1 + change) * drift * Math.exp(noise * rng.normal()),
      };
    });
    const v = compareMetric(SPEC, values, rule, 0.95, 0.1).verdict;
    if (v === "regressed") regressed++;
    if (v === "inconclusive") inconclusive++;
  }
  return `${Math.round((regressed / GATES) * 100)} / ${Math.round((inconclusive / GATES) * 100)}`;
}

const changes = [0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5];
for (const rule of ["significant-and-material", "confirm"] as const) {
  console.log(`\n${rule}: % regressed / % inconclusive (tolerance +10 %, confidence 0.95)\n`);
  console.log(`| pairs | run noise σ | ${changes.map((c) => `+${c * 100} %`).join(" | ")} |`);
  console.log(`|--:|--:|${changes.map(() => "--:").join("|")}|`);
  for (const pairs of [3, 5, 8]) {
    for (const noise of [0.03, 0.08]) {
      console.log(
        `| ${pairs} | ${noise * 100} % | ${changes.map((c) => rate(pairs, noise, c, rule)).join(" | ")} |`,
      );
    }
  }
}
