// The accuracy rule's operating characteristic, by simulation of the rule
// itself (accuracy/compare.ts's judgeDrop on Tango's paired interval) at the
// gate's default errors: the pass boundary at α = 5 %, the fail boundary at
// one rate's share of it with accuracy on (α ÷ 9: two gated latencies, three
// rates). Per cell: n items, a flip rate f (the share of items whose
// right/wrong differs between the arms, both directions) and a true drop δ
// (right → wrong minus wrong → right, a share of the items); each item is
// right → wrong with probability (f + δ)/2 and wrong → right with (f − δ)/2.
// Seconds, no servers. Then the suite in looks (accuracy/looks.ts): blocks
// from 300 items doubling to 4,800, each look at its share of each boundary's
// α, stopping at the first that decides or when the items left cannot decide:
// P(fail), P(pass), P(decided at the first look) and the expected items.
//
//   node_modules/.bin/node bench/accuracy-oc.ts [suites per cell, default 20000] [fixed|looks|both]

import { judgeDrop } from "../src/accuracy/compare.ts";
import { FIRST_LOOK_ITEMS, futileAt, itemLooks, ruleAtLook } from "../src/accuracy/looks.ts";
import { DEFAULT_ACCURACY_RULE } from "../src/gate/accuracy.ts";
import { Rng } from "../src/workload/rng.ts";

const SUITES = Number(process.argv[2] ?? 20_000);
const WHICH = process.argv[3] ?? "both";
const RULE = DEFAULT_ACCURACY_RULE;
const rng = new Rng(20261204);
const pct = (x: number) => (100 * x).toFixed(1);

/** A binomial draw: geometric skips between successes (O(n·p): the shares here are small). */
function binomial(n: number, p: number): number {
  if (p <= 0) return 0;
  if (p >= 1) return n;
  if (p > 0.5) return n - binomial(n, 1 - p);
  const log1mp = Math.log1p(-p);
  let k = 0;
  for (let i = Math.floor(Math.log(1 - rng.uniform()) / log1mp); i < n; k++)
    i += 1 + Math.floor(Math.log(1 - rng.uniform()) / log1mp);
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

/** One suite in looks: its verdict, the items it took, and whether the first look decided. */
function suiteInLooks(f: number, drop: number, looks: readonly number[]) {
  const pb = (f + drop) / 2;
  const pc = (f - drop) / 2;
  let [b, c, n] = [0, 0, 0];
  for (let k = 0; k < looks.length; k++) {
    const m = (looks[k] ?? 0) - n;
    const db = binomial(m, pb);
    b += db;
    c += binomial(m - db, pc / (1 - pb));
    n += m;
    const v = judgeDrop(b, c, n, ruleAtLook(RULE, looks, k)).verdict;
    if (v !== "inconclusive") return { v, n, first: k === 0 };
    if (futileAt(b, c, n, RULE, looks) !== null) return { v, n, first: k === 0 };
  }
  return { v: "inconclusive" as const, n, first: looks.length === 1 };
}

function looksTable(most: number) {
  const looks = itemLooks(FIRST_LOOK_ITEMS, most);
  console.log(
    `\n## Accuracy in looks (${looks.join(", ")} items; τ = ${RULE.maxDrop * 100} points; each look its share of pass α ${RULE.passAlpha}, fail α ${RULE.failAlpha.toFixed(4)}; ${SUITES} suites per cell)\n`,
  );
  console.log(
    "| flip rate | true drop | P(fail) % | P(pass) % | decided at the first look % | E[items] |",
  );
  console.log("|--:|--:|--:|--:|--:|--:|");
  for (const f of [0, 0.01, 0.05, 0.1])
    for (const drop of [0, 0.01, 0.02, 0.03, 0.05]) {
      if (drop > f) continue;
      let [fail, pass, first, items] = [0, 0, 0, 0];
      for (let s = 0; s < SUITES; s++) {
        const r = suiteInLooks(f, drop, looks);
        if (r.v === "fail") fail++;
        else if (r.v === "pass") pass++;
        if (r.first && r.v !== "inconclusive") first++;
        items += r.n;
      }
      console.log(
        `| ${pct(f)} % | ${(drop * 100).toFixed(0)} pts | ${pct(fail / SUITES)} | ${pct(pass / SUITES)} | ${pct(first / SUITES)} | ${Math.round(items / SUITES).toLocaleString("en-US")} |`,
      );
    }
}

if (WHICH !== "looks") fixedTable();
if (WHICH !== "fixed") looksTable(4800);

function fixedTable() {
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
}
