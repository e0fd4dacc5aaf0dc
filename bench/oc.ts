// The decision procedure's operating characteristic, by simulation of the
// procedure itself (bench/simulate.ts: the gate's compareMetric,
// compareReliability and quality rule on its default sequential design) —
// seconds to minutes, no servers.
//
//   node_modules/.bin/node bench/oc.ts [gates per cell, default 20000]
//   ONLY=budget node_modules/.bin/node bench/oc.ts   (one table)

import { Simulator } from "./simulate.ts";

const GATES = Number(process.argv[2] ?? 20_000);
const sim = new Simulator(20261201);
const pct = (x: number) => (100 * x).toFixed(1);

function latencyCell(change: number, sdD: number, gates = GATES) {
  let fail = 0;
  let pass = 0;
  let pairs = 0;
  for (let g = 0; g < gates; g++) {
    const c = sim.latencyGate(change, sdD);
    if (c.verdict === "regressed") fail++;
    else if (c.verdict === "pass" || c.verdict === "improved") pass++;
    pairs += c.decided_at;
  }
  return { fail: fail / gates, pass: pass / gates, pairs: pairs / gates };
}

function latencyTable(): void {
  const looks = sim.design.looks;
  console.log(
    `\n## One gated latency (tolerance τ = +10 %; trials ${looks[0]}, max-trials ${looks.at(-1)}; looks ${looks.join(", ")})\n`,
  );
  console.log("| SD(d) | true change | P(fail) % | P(pass) % | P(inconclusive) % | E[pairs] |");
  console.log("|--:|--:|--:|--:|--:|--:|");
  for (const sd of [0.02, 0.03, 0.05, 0.1]) {
    for (const change of [0, 0.05, 0.1, 0.15, 0.2]) {
      const r = latencyCell(change, sd);
      console.log(
        `| ${sd * 100} % | +${change * 100} % | ${pct(r.fail)} | ${pct(r.pass)} | ${pct(1 - r.fail - r.pass)} | ${r.pairs.toFixed(1)} |`,
      );
    }
  }
  console.log("\nThe fail curve between τ/2 and 1.5τ (P(fail) %):\n");
  const changes = [0.05, 0.06, 0.07, 0.08, 0.09, 0.1, 0.11, 0.12, 0.13, 0.14, 0.15];
  console.log(`| SD(d) | ${changes.map((c) => `+${Math.round(c * 100)} %`).join(" | ")} |`);
  console.log(`|--:|${changes.map(() => "--:").join("|")}|`);
  for (const sd of [0.02, 0.05, 0.1])
    console.log(
      `| ${sd * 100} % | ${changes.map((c) => pct(latencyCell(c, sd, GATES / 4).fail)).join(" | ")} |`,
    );
}

function reliabilityTable(): void {
  const gates = GATES / 4;
  console.log("\n## Reliability (tolerance +0.5 points; 500 requests per trial)\n");
  console.log("| baseline rate | true increase | failures | P(fail) % | P(pass) % | E[pairs] |");
  console.log("|--:|--:|---|--:|--:|--:|");
  for (const [base, increase, shape] of [
    [0.004, 0, Infinity],
    [0.004, 0, 0.5],
    [0.004, 0.0025, Infinity],
    [0.004, 0.0025, 0.5],
    [0.004, 0.005, Infinity],
    [0.004, 0.03, Infinity],
    [0.004, 0.03, 0.5],
    [0, 0, Infinity],
  ] as const) {
    let fail = 0;
    let pass = 0;
    let pairs = 0;
    for (let g = 0; g < gates; g++) {
      const r = sim.reliabilityGate(base, increase, shape);
      if (r.verdict === "regressed") fail++;
      if (r.verdict === "pass" || r.verdict === "improved") pass++;
      pairs += r.decided_at;
    }
    const failures = shape === Infinity ? "independent" : `clustered (Gamma ${shape})`;
    console.log(
      `| ${pct(base)} % | +${pct(increase)} pts | ${failures} | ${pct(fail / gates)} | ${pct(pass / gates)} | ${(pairs / gates).toFixed(1)} |`,
    );
  }
}

function qualityTable(): void {
  const gates = GATES / 4;
  console.log("\n## Quality, A/A (100 cases, each run of each case failing with the flake rate)\n");
  console.log("| flake rate | P(fail) % |");
  console.log("|--:|--:|");
  for (const flake of [0.02, 0.05]) {
    let fail = 0;
    for (let g = 0; g < gates; g++) if (sim.qualityFails(flake)) fail++;
    console.log(`| ${flake * 100} % | ${pct(fail / gates)} |`);
  }
}

function gateTable(): void {
  const gates = GATES / 4;
  console.log("\n## The whole gate, two identical variants (A/A)\n");
  console.log(
    "goodput, p95 TTFT and p95 ITL (per-pair drift shared), reliability (0.4 % failures, 500 requests per trial), quality (100 cases, 2 % flake rate per run, differing cases re-run twice on both arms).\n",
  );
  console.log(
    "| SD(d) | failures | P(fail) % | latency % | reliability % | quality % | P(pass) % | E[pairs] |",
  );
  console.log("|--:|---|--:|--:|--:|--:|--:|--:|");
  for (const [sd, shape] of [
    [0.03, Infinity],
    [0.05, Infinity],
    [0.1, Infinity],
    [0.05, 0.5],
  ] as const) {
    const n = { failed: 0, latency: 0, reliability: 0, quality: 0, pass: 0, pairs: 0 };
    for (let g = 0; g < gates; g++) {
      const r = sim.wholeGateAa(sd, shape, 0.02);
      n.failed += r.failed ? 1 : 0;
      n.latency += r.latency ? 1 : 0;
      n.reliability += r.reliability ? 1 : 0;
      n.quality += r.quality ? 1 : 0;
      n.pass += r.pass ? 1 : 0;
      n.pairs += r.pairs;
    }
    const of = (k: number) => pct(k / gates);
    const failures = shape === Infinity ? "independent" : `clustered (Gamma ${shape})`;
    console.log(
      `| ${sd * 100} % | ${failures} | ${of(n.failed)} | ${of(n.latency)} | ${of(n.reliability)} | ${of(n.quality)} | ${of(n.pass)} | ${(n.pairs / gates).toFixed(1)} |`,
    );
  }
}

console.log(
  `# Operating characteristic (${GATES} simulated gates per latency cell, a quarter of that elsewhere)`,
);
function budgetTable(): void {
  const gates = GATES / 4;
  console.log(
    "\n## One p95 TTFT budget (the candidate's trials around budget × ratio; a default gate with the budget: three latency shares)\n",
  );
  console.log("| SD(d) | candidate ÷ budget | P(missed) % | P(met) % | P(unclear) % | E[pairs] |");
  console.log("|--:|--:|--:|--:|--:|--:|");
  for (const sd of [0.02, 0.05, 0.1]) {
    for (const ratio of [0.8, 0.9, 0.95, 1, 1.05, 1.1, 1.2]) {
      let missed = 0;
      let met = 0;
      let pairs = 0;
      for (let g = 0; g < gates; g++) {
        const b = sim.budgetGate(ratio, sd);
        if (b.verdict === "missed") missed++;
        else if (b.verdict === "met") met++;
        pairs += b.decided_at;
      }
      console.log(
        `| ${sd * 100} % | ${ratio.toFixed(2)} | ${pct(missed / gates)} | ${pct(met / gates)} | ${pct(1 - (missed + met) / gates)} | ${(pairs / gates).toFixed(1)} |`,
      );
    }
  }
}

// ONLY=latency|reliability|quality|gate|budget runs one table.
const only = process.env.ONLY;
const run = (name: string, table: () => void) => {
  if (only === undefined || only === name) table();
};
if (!process.env.SKIP_LATENCY) run("latency", latencyTable);
run("reliability", reliabilityTable);
run("quality", qualityTable);
run("gate", gateTable);
run("budget", budgetTable);
