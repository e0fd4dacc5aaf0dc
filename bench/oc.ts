// The decision procedure's operating characteristic, by simulation of the
// procedure itself (the gate's compareMetric, compareReliability and quality
// rule on its default sequential design) — seconds, no servers.
//
//   node_modules/.bin/node bench/oc.ts [gates per cell, default 20000]
//
// Latency: per pair d ~ N(ln(1 + change), SD(d)²) — the per-pair log ratio of
// the gated percentile; the gate adds pairs while the metric is open.
// Reliability: per-trial failure rates drawn from Gamma(shape, mean) (shape
// ∞ = independent requests), 500 requests per trial. Quality: 100 cases, each
// run of each case failing with the flake rate on its own. The gate-level A/A
// draws all families together.

import { zeroOutcomes } from "../src/common/outcomes.ts";
import { compareMetric, type MetricSpec, type PairValues } from "../src/compare/decide.ts";
import { designOf } from "../src/compare/decide-run.ts";
import { compareReliability } from "../src/compare/reliability.ts";
import type { TrialEntry } from "../src/compare/trials.ts";
import { emptyAnswer } from "../src/quality/answer.ts";
import { casesThatDiffer, compareQuality } from "../src/quality/paired.ts";
import type { QualityRule } from "../src/quality/rule.ts";
import type { CaseRun } from "../src/quality/run.ts";
import type { Suite } from "../src/quality/suite.ts";
import { Rng } from "../src/workload/rng.ts";

const GATES = Number(process.argv[2] ?? 20_000);
const TRIALS = 4;
const MAX_TRIALS = 30;
const CONFIDENCE = 0.95;
const design = designOf({ trials: TRIALS, maxTrials: MAX_TRIALS }, CONFIDENCE);
const rng = new Rng(20261201);
const TTFT: MetricSpec = {
  id: "ttft",
  label: "p95 TTFT",
  unit: "ms",
  higherIsWorse: true,
  tolerance: 0.1,
};

/** A metric's pairs: baseline 100 with run noise, candidate × (1 + change); SD(d) as given. */
function pairsOf(change: number, sdD: number, n = MAX_TRIALS, shared?: number[]): PairValues[] {
  const run = sdD / Math.SQRT2;
  return Array.from({ length: n }, (_, i) => {
    const drift = Math.exp(0.05 * (shared?.[i] ?? rng.normal()));
    return {
      baseline: 100 * drift * Math.exp(run * rng.normal()),
      candidate: 100 * (1 + change) * drift * Math.exp(run * rng.normal()),
    };
  });
}

function latencyCell(change: number, sdD: number) {
  let fail = 0;
  let pass = 0;
  let pairs = 0;
  for (let g = 0; g < GATES; g++) {
    const c = compareMetric(TTFT, pairsOf(change, sdD), "margin", design, 0.1);
    if (c.verdict === "regressed") fail++;
    else if (c.verdict === "pass" || c.verdict === "improved") pass++;
    pairs += c.decided_at;
  }
  return { fail: fail / GATES, pass: pass / GATES, pairs: pairs / GATES };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}`;

function latencyTable(): void {
  console.log(
    `\n## One gated latency (tolerance τ = +10 %; trials ${TRIALS}, max-trials ${MAX_TRIALS}; looks ${design.looks.join(", ")})\n`,
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
      `| ${sd * 100} % | ${changes.map((c) => pct(latencyCell(c, sd).fail)).join(" | ")} |`,
    );
}

/** A gamma draw (Marsaglia–Tsang; shape < 1 boosted). */
function gamma(shape: number): number {
  if (shape < 1) return gamma(shape + 1) * rng.uniform() ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = rng.normal();
    const v = (1 + c * x) ** 3;
    if (v > 0 && Math.log(rng.uniform()) < 0.5 * x * x + d - d * v + Math.log(v)) return d * v;
  }
}

function binomial(n: number, p: number): number {
  let k = 0;
  for (let i = 0; i < n; i++) if (rng.uniform() < p) k++;
  return k;
}

/** A trial whose requests each fail with probability p (only the counts matter to reliability). */
function trial(
  pair: number,
  arm: "baseline" | "candidate",
  requests: number,
  p: number,
): TrialEntry {
  const failed = binomial(requests, Math.min(1, p));
  const outcomes = { ...zeroOutcomes(), ok: requests - failed, http_5xx: failed };
  return {
    pair,
    arm,
    position: 0,
    seed: 1,
    report: { scheduled: requests, outcomes, errors: {} },
  } as unknown as TrialEntry;
}

/** Per-trial rate: the mean, or drawn from Gamma(shape) around it (failures that cluster). */
const rateOf = (mean: number, shape: number) =>
  shape === Infinity ? mean : (gamma(shape) / shape) * mean;

function reliabilityCell(base: number, increase: number, shape: number, requests = 500) {
  let fail = 0;
  let pass = 0;
  let pairs = 0;
  for (let g = 0; g < GATES / 4; g++) {
    const trials: TrialEntry[] = [];
    let r = compareReliability({ maxFailureIncrease: 0.005, exclude: [] }, trials, design);
    for (let pair = 0; pair < MAX_TRIALS; pair++) {
      trials.push(trial(pair, "baseline", requests, rateOf(base, shape)));
      trials.push(trial(pair, "candidate", requests, rateOf(base + increase, shape)));
      if (!design.looks.includes(pair + 1)) continue;
      r = compareReliability({ maxFailureIncrease: 0.005, exclude: [] }, trials, design);
      if (r.status !== "open") break;
    }
    if (r.verdict === "regressed") fail++;
    if (r.verdict === "pass" || r.verdict === "improved") pass++;
    pairs += r.decided_at;
  }
  return { fail: fail / (GATES / 4), pass: pass / (GATES / 4), pairs: pairs / (GATES / 4) };
}

function reliabilityTable(): void {
  console.log("\n## Reliability (tolerance +0.5 points; 500 requests per trial)\n");
  console.log("| baseline rate | true increase | failures | P(fail) % | P(pass) % | E[pairs] |");
  console.log("|--:|--:|---|--:|--:|--:|");
  for (const [base, inc, shape] of [
    [0.004, 0, Infinity],
    [0.004, 0, 0.5],
    [0.004, 0.0025, Infinity],
    [0.004, 0.0025, 0.5],
    [0.004, 0.005, Infinity],
    [0.004, 0.03, Infinity],
    [0.004, 0.03, 0.5],
  ] as const) {
    const r = reliabilityCell(base, inc, shape);
    console.log(
      `| ${pct(base)} % | +${pct(inc)} pts | ${shape === Infinity ? "independent" : `clustered (Gamma ${shape})`} | ${pct(r.fail)} | ${pct(r.pass)} | ${r.pairs.toFixed(1)} |`,
    );
  }
}

/** A quality case's run on one arm: a transport failure (a contract check) with the flake rate. */
function caseRun(id: string, flake: number): CaseRun {
  const pass = rng.uniform() >= flake;
  const result = {
    kind: "transport",
    tier: "contract" as const,
    pass,
    codes: pass ? [] : ["transport.http_500"],
  };
  const json = { kind: "json_parse", tier: "quality" as const, pass: true, codes: [] };
  return {
    id,
    attempts: [{ answer: emptyAnswer(pass ? 200 : 500), results: [result, json] }],
  } as CaseRun;
}

const QUALITY_SUITE: Suite = {
  name: "simulated",
  cases: Array.from({ length: 100 }, (_, i) => ({
    id: `case-${i}`,
    expect: [{ kind: "json_parse" }],
  })) as unknown as Suite["cases"],
};
const QUALITY_RULE: QualityRule = {
  alpha: 0.05,
  minEffect: 0.02,
  largeEffect: 0.1,
  confirmReruns: 2,
};

/** One A/A quality run: 100 cases, a flake rate per run, the differing cases re-run on both arms. */
function qualityFails(flake: number): boolean {
  const first = (arm: string) =>
    QUALITY_SUITE.cases.map((c) => caseRun(`${c.id}`, flake + 0 * arm.length));
  const [b, c] = [first("baseline"), first("candidate")];
  const differ = casesThatDiffer(b, c);
  const again = () =>
    new Map([...differ].map((id) => [id, [caseRun(id, flake), caseRun(id, flake)]]));
  const report = compareQuality(
    QUALITY_SUITE,
    b,
    c,
    { baseline: again(), candidate: again() },
    QUALITY_RULE,
  );
  return report.verdict === "fail";
}

/** Gate-level A/A: goodput, TTFT and ITL (correlated through the pair), reliability and quality. */
function gateAa(sdD: number, shape: number, flake: number) {
  const specs: MetricSpec[] = [
    {
      ...TTFT,
      id: "goodput",
      label: "goodput",
      unit: "req/s",
      higherIsWorse: false,
      tolerance: 0.05,
    },
    TTFT,
    { ...TTFT, id: "itl", label: "p95 ITL" },
  ];
  const counts = { latency: 0, reliability: 0, quality: 0, any: 0, pass: 0, pairs: 0 };
  const gates = GATES / 4;
  for (let g = 0; g < gates; g++) {
    const shared = Array.from({ length: MAX_TRIALS }, () => rng.normal());
    const values = specs.map(() => pairsOf(0, sdD, MAX_TRIALS, shared));
    const trials: TrialEntry[] = [];
    let pairs = 0;
    let latency = false;
    let reliability = false;
    let passed = false;
    for (; pairs < MAX_TRIALS; ) {
      trials.push(trial(pairs, "baseline", 500, rateOf(0.004, shape)));
      trials.push(trial(pairs, "candidate", 500, rateOf(0.004, shape)));
      pairs++;
      if (!design.looks.includes(pairs)) continue;
      const cs = specs.map((spec, i) =>
        compareMetric(spec, (values[i] ?? []).slice(0, pairs), "margin", design, 0.1),
      );
      const r = compareReliability({ maxFailureIncrease: 0.005, exclude: [] }, trials, design);
      latency = cs.some((c) => c.verdict === "regressed");
      reliability = r.verdict === "regressed";
      passed =
        cs.every((c) => c.verdict === "pass" || c.verdict === "improved") &&
        (r.verdict === "pass" || r.verdict === "improved");
      if (!cs.some((c) => c.status === "open") && r.status !== "open") break;
    }
    const quality = qualityFails(flake);
    counts.latency += latency ? 1 : 0;
    counts.reliability += reliability ? 1 : 0;
    counts.quality += quality ? 1 : 0;
    counts.any += latency || reliability || quality ? 1 : 0;
    counts.pass += passed && !quality ? 1 : 0;
    counts.pairs += pairs;
  }
  return { ...counts, gates };
}

function gateTable(): void {
  console.log("\n## The whole gate, two identical variants (A/A)\n");
  console.log(
    "goodput, p95 TTFT and p95 ITL (per-pair noise shared 50 %), reliability (0.4 % failures, 500 requests per trial), quality (100 cases, each run failing with the flake rate, differing cases re-run twice on both arms).\n",
  );
  console.log(
    "| SD(d) | failures | quality flake | P(fail) % | latency % | reliability % | quality % | P(pass) % | E[pairs] |",
  );
  console.log("|--:|---|--:|--:|--:|--:|--:|--:|--:|");
  for (const [sd, shape, flake] of [
    [0.03, Infinity, 0.02],
    [0.05, Infinity, 0.02],
    [0.1, Infinity, 0.02],
    [0.05, 0.5, 0.02],
  ] as const) {
    const r = gateAa(sd, shape, flake);
    const of = (n: number) => pct(n / r.gates);
    console.log(
      `| ${sd * 100} % | ${shape === Infinity ? "independent" : `clustered (Gamma ${shape})`} | ${flake * 100} % | ${of(r.any)} | ${of(r.latency)} | ${of(r.reliability)} | ${of(r.quality)} | ${of(r.pass)} | ${(r.pairs / r.gates).toFixed(1)} |`,
    );
  }
}

console.log(`# Operating characteristic (${GATES} simulated gates per cell)`);
if (!process.env.SKIP_LATENCY) latencyTable();
reliabilityTable();
gateTable();
