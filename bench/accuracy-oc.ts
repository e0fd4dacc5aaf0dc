// The accuracy rule's operating characteristic, by simulation of the rule
// itself (accuracy/compare.ts's judgeDrop on Tango's paired interval) at the
// gate's default errors: the pass boundary at α = 5 %, the fail boundary at
// one rate's share of it with accuracy on (α ÷ 9: two gated latencies, three
// rates). Per cell: n items, a flip rate f (the share of items whose
// right/wrong differs between the arms, both directions) and a true drop δ
// (right → wrong minus wrong → right, a share of the items); each item is
// right → wrong with probability (f + δ)/2 and wrong → right with (f − δ)/2.
// Seconds, no servers.
//
//   node_modules/.bin/node bench/accuracy-oc.ts [suites per cell, default 20000]

import { judgeDrop } from "../src/accuracy/compare.ts";
import { DEFAULT_ACCURACY_RULE } from "../src/gate/accuracy.ts";
import { Rng } from "../src/workload/rng.ts";

const SUITES = Number(process.argv[2] ?? 20_000);
const RULE = DEFAULT_ACCURACY_RULE;
const rng = new Rng(20261204);
const pct = (x: number) => (100 * x).toFixed(1);

/** A binomial draw by inversion of its terms (n up to a few thousand). */
function binomial(n: number, p: number): number {
  if (p <= 0) return 0;
  let k = 0;
  for (let i = 0; i < n; i++) if (rng.uniform() < p) k++;
  return k;
}

function cell(n: number, f: number, drop: number) {
  let fail = 0;
  let pass = 0;
  const pb = (f + drop) / 2;
  for (let s = 0; s < SUITES; s++) {
    // Discordant items, then how they split: b ~ Binomial(m, pb / f).
    const m = binomial(n, f);
    const b = binomial(m, pb / f);
    const v = judgeDrop(b, m - b, n, RULE).verdict;
    if (v === "fail") fail++;
    else if (v === "pass") pass++;
  }
  return { fail: fail / SUITES, pass: pass / SUITES };
}

console.log(
  `## Accuracy (τ = ${RULE.maxDrop * 100} points; pass α ${RULE.passAlpha}, fail α ${RULE.failAlpha.toFixed(4)}; ${SUITES} suites per cell)\n`,
);
console.log("| items | flip rate | true drop | P(fail) % | P(pass) % | P(inconclusive) % |");
console.log("|--:|--:|--:|--:|--:|--:|");
for (const n of [200, 500, 1000, 2500, 5000]) {
  for (const f of [0.02, 0.05, 0.1]) {
    // The larger suites only where the smaller ones leave 1.5τ open.
    const drops = n > 1000 ? [0, 0.01, 0.02, 0.03] : [0, 0.01, 0.02, 0.03, 0.04];
    for (const drop of drops) {
      if (drop > f) continue; // more net drops than flips cannot be
      const r = cell(n, f, drop);
      console.log(
        `| ${n} | ${pct(f)} % | ${(drop * 100).toFixed(0)} pts | ${pct(r.fail)} | ${pct(r.pass)} | ${pct(1 - r.fail - r.pass)} |`,
      );
    }
  }
}
