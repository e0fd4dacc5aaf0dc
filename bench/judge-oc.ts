// The judge rule's operating characteristic, by simulation of the rule
// itself (judge/compare.ts's tally: Tango's paired interval on losses and
// wins, corrected by half an item, and the margin rule) at the gate's
// default errors with the judge on: the pass boundary at α = 5 %, the fail
// boundary at one rate's share of it (two gated latencies; goodput, the
// failure rate, accuracy and the judge as rates). Per cell: n items, a tie
// share t (identical answers and both-orders disagreements: a real judge
// ties most pairs) and a true net loss δ; each item is lost with probability
// (1 − t + δ)/2 and won with (1 − t − δ)/2. Seconds, no servers.
//
// Then the suite in looks (accuracy/looks.ts, as the gate runs it): 200 items
// doubling to 1,600, each look its share of each boundary's α, stopping at
// the first that decides or when the items left cannot decide.
//
//   node_modules/.bin/node bench/judge-oc.ts [suites per cell, default 20000] [fixed|looks|both]

import { judgeDrop } from "../src/accuracy/compare.ts";
import { futileAt, itemLooks, ruleAtLook } from "../src/accuracy/looks.ts";
import { apartAlphas } from "../src/compare/decide-run.ts";
import { parseConfig } from "../src/config/config.ts";
import { judgeRule } from "../src/gate/judge.ts";
import { asDropRule, tally } from "../src/judge/compare.ts";
import { Rng } from "../src/workload/rng.ts";

const SUITES = Number(process.argv[2] ?? 20_000);
const WHICH = process.argv[3] ?? "both";
const config = parseConfig({
  "baseline-url": "http://127.0.0.1:8001/v1",
  "candidate-url": "http://127.0.0.1:8002/v1",
  "judge-url": "http://127.0.0.1:9000/v1",
  "judge-model": "judge",
  model: "m",
  rate: "10",
});
const judge = config.gate.judge;
if (!judge) throw new Error("no judge");
const RULE = judgeRule(judge, config.gate.decision);
const rng = new Rng(20261206);
const pct = (x: number) => (100 * x).toFixed(1);

const outcome = (k: number, lost: number, won: number) => ({
  id: String(k),
  family: "f",
  prompt: "",
  baseline: { excerpt: "", chars: 1, error: null, lost: false },
  candidate: { excerpt: "", chars: 1, error: null, lost: false },
  settled: null,
  orders: [],
  outcome:
    k < lost ? ("baseline" as const) : k < lost + won ? ("candidate" as const) : ("tie" as const),
});

function cell(n: number, ties: number, loss: number) {
  let [fail, pass] = [0, 0];
  const [pl, pw] = [(1 - ties + loss) / 2, (1 - ties - loss) / 2];
  for (let s = 0; s < SUITES; s++) {
    let [lost, won] = [0, 0];
    for (let i = 0; i < n; i++) {
      const u = rng.uniform();
      if (u < pl) lost++;
      else if (u < pl + pw) won++;
    }
    const items = Array.from({ length: n }, (_, k) => outcome(k, lost, won));
    const v = tally("all", items, RULE).net.verdict;
    if (v === "fail") fail++;
    else if (v === "pass") pass++;
  }
  return { fail: fail / SUITES, pass: pass / SUITES };
}

/** One suite in looks, on the counts (tally's net is judgeDrop on them): verdict, items, first look. */
function suiteInLooks(ties: number, loss: number, looks: readonly number[]) {
  const [pl, pw] = [(1 - ties + loss) / 2, (1 - ties - loss) / 2];
  const drop = asDropRule(RULE);
  let [lost, won, n] = [0, 0, 0];
  for (let k = 0; k < looks.length; k++) {
    for (; n < (looks[k] ?? 0); n++) {
      const u = rng.uniform();
      if (u < pl) lost++;
      else if (u < pl + pw) won++;
    }
    const v = judgeDrop(lost, won, n, ruleAtLook(drop, looks, k)).verdict;
    if (v !== "inconclusive" || futileAt(lost, won, n, drop, looks) !== null)
      return { v, n, first: k === 0 };
  }
  return { v: "inconclusive" as const, n, first: false };
}

function looksTable() {
  const looks = itemLooks(200, 1600);
  console.log(
    `\n## The judge in looks (${looks.join(", ")} items; each look its share of pass α ${RULE.passAlpha.toFixed(3)}, fail α ${RULE.failAlpha.toFixed(4)}; ${SUITES} suites per cell)\n`,
  );
  console.log(
    "| ties | true net loss | P(fail) % | P(pass) % | decided at the first look % | E[items] |",
  );
  console.log("|--:|--:|--:|--:|--:|--:|");
  for (const ties of [0.5, 0.7, 0.9])
    for (const loss of [0, 0.025, 0.05, 0.075]) {
      let [fail, pass, first, items] = [0, 0, 0, 0];
      for (let s = 0; s < SUITES; s++) {
        const r = suiteInLooks(ties, loss, looks);
        if (r.v === "fail") fail++;
        else if (r.v === "pass") pass++;
        if (r.first && r.v !== "inconclusive") first++;
        items += r.n;
      }
      console.log(
        `| ${pct(ties)} % | ${(loss * 100).toFixed(1)} pts | ${pct(fail / SUITES)} | ${pct(pass / SUITES)} | ${pct(first / SUITES)} | ${Math.round(items / SUITES).toLocaleString("en-US")} |`,
      );
    }
}

if (WHICH !== "looks") fixedTable();
if (WHICH !== "fixed") looksTable();

function fixedTable() {
  console.log(
    `## The judge (τ = ${RULE.maxLoss * 100} points; pass α ${RULE.passAlpha.toFixed(3)}, fail α ${RULE.failAlpha.toFixed(4)} = ${JSON.stringify(apartAlphas(config.gate.decision))}; ${SUITES} suites per cell)\n`,
  );
  console.log("| items | ties | true net loss | P(fail) % | P(pass) % | P(inconclusive) % |");
  console.log("|--:|--:|--:|--:|--:|--:|");
  for (const n of [200, 400, 1000]) {
    for (const ties of [0.5, 0.7, 0.9]) {
      for (const loss of [0, 0.025, 0.05, 0.075]) {
        const r = cell(n, ties, loss);
        console.log(
          `| ${n} | ${pct(ties)} % | ${(loss * 100).toFixed(1)} pts | ${pct(r.fail)} | ${pct(r.pass)} | ${pct(1 - r.fail - r.pass)} |`,
        );
      }
    }
  }
}
