// Simulated gates for the decision procedure's operating characteristic: the
// gate's own compareMetric, compareReliability and quality comparison on
// drawn data, pairs added look by look as the gate adds them. bench/oc.ts
// prints the tables; tests check a few cells on small samples.
//
// Latency: per pair d ~ N(ln(1 + change), SD(d)²), the baseline drifting
// between pairs (shared by both arms, which the pairing cancels).
// Reliability: per-trial failure rates around a mean, drawn from Gamma(shape)
// (shape ∞ = independent requests). Quality: each run of each case fails
// with the flake rate on its own.

import { zeroOutcomes } from "../src/common/outcomes.ts";
import { againstLimit, type BudgetCheck } from "../src/compare/budgets.ts";
import { designOf } from "../src/compare/decide-run.ts";
import {
  compareMetric,
  type MetricComparison,
  type MetricSpec,
  type PairValues,
} from "../src/compare/metric.ts";
import { compareReliability, type ReliabilityComparison } from "../src/compare/reliability.ts";
import type { SequentialDesign } from "../src/compare/sequential.ts";
import type { TrialEntry } from "../src/compare/trials.ts";
import { emptyAnswer } from "../src/quality/answer.ts";
import { casesThatDiffer, compareQuality } from "../src/quality/paired.ts";
import type { QualityRule } from "../src/quality/rule.ts";
import type { CaseRun } from "../src/quality/run.ts";
import type { Suite } from "../src/quality/suite.ts";
import type { TrialReport } from "../src/trial/measure.ts";
import { Rng } from "../src/workload/rng.ts";

export const TTFT: MetricSpec = {
  id: "ttft",
  label: "p95 TTFT",
  unit: "ms",
  higherIsWorse: true,
  tolerance: 0.1,
};
const GOODPUT: MetricSpec = {
  id: "goodput",
  label: "goodput",
  unit: "req/s",
  higherIsWorse: false,
  tolerance: 0.05,
};
const ITL: MetricSpec = { ...TTFT, id: "itl", label: "p95 ITL" };

/** The documented quality defaults (quality-alpha, -min-effect, -large-effect, -confirm-reruns). */
const QUALITY_RULE: QualityRule = {
  alpha: 0.05,
  minEffect: 0.02,
  largeEffect: 0.1,
  confirmReruns: 2,
};
const RELIABILITY = { maxFailureIncrease: 0.005, exclude: [] };

/** A trial of `requests` of which `failed` ended in HTTP 500: only the counts matter to reliability. */
export function countsTrial(
  pair: number,
  arm: TrialEntry["arm"],
  requests: number,
  failed: number,
): TrialEntry {
  const report = {
    scheduled: requests,
    outcomes: { ...zeroOutcomes(), ok: requests - failed, http_5xx: failed },
    errors: {},
  } as unknown as TrialReport;
  return { pair, arm, position: 0, seed: 1, report };
}

export class Simulator {
  readonly rng: Rng;
  readonly design: SequentialDesign;
  readonly maxTrials: number;

  constructor(seed: number, trials = 4, maxTrials = 30) {
    this.rng = new Rng(seed);
    this.maxTrials = maxTrials;
    // The default gate: p95 TTFT and p95 ITL, then goodput and reliability, share the fail α.
    this.design = designOf({ trials, maxTrials }, 0.95, 2);
  }

  /** A metric's pairs: baseline 100 with drift and run noise, candidate × (1 + change). */
  pairs(change: number, sdD: number, shared?: readonly number[]): PairValues[] {
    const run = sdD / Math.SQRT2;
    return Array.from({ length: this.maxTrials }, (_, i) => {
      const drift = Math.exp(0.05 * (shared?.[i] ?? this.rng.normal()));
      return {
        baseline: 100 * drift * Math.exp(run * this.rng.normal()),
        candidate: 100 * (1 + change) * drift * Math.exp(run * this.rng.normal()),
      };
    });
  }

  /** One gated latency's verdict after the pairs its looks ask for. */
  latencyGate(change: number, sdD: number): MetricComparison {
    return compareMetric(TTFT, this.pairs(change, sdD), "margin", this.design, 0.1);
  }

  /**
   * A p95 TTFT budget's verdict: the candidate's trials around limit × ratio
   * (drift and run noise as in pairs()), on the design of a default gate with
   * one budget (three latency shares).
   */
  budgetGate(ratio: number, sdD: number): BudgetCheck {
    const design = designOf(
      { trials: this.design.looks[0] ?? 4, maxTrials: this.maxTrials },
      0.95,
      3,
    );
    const spec = { ...TTFT, id: "ttft" as const, tolerance: 0 };
    const rule = { rule: "margin" as const, maxTrialCv: 0.1 };
    return againstLimit(spec, 100, this.pairs(ratio - 1, sdD), rule, design);
  }

  private binomial(n: number, p: number): number {
    let k = 0;
    for (let i = 0; i < n; i++) if (this.rng.uniform() < p) k++;
    return k;
  }

  /** A trial's failure rate: the mean, or drawn from Gamma(shape) around it. */
  private rateOf(mean: number, shape: number): number {
    return Math.min(1, shape === Infinity ? mean : this.rng.gamma(shape, mean / shape));
  }

  /** One pair of trials whose failure rates are drawn around base and base + increase. */
  private failurePair(pair: number, base: number, increase: number, shape: number, n: number) {
    return [
      countsTrial(pair, "baseline", n, this.binomial(n, this.rateOf(base, shape))),
      countsTrial(pair, "candidate", n, this.binomial(n, this.rateOf(base + increase, shape))),
    ];
  }

  /** The reliability verdict of a gate that adds pairs while it is open. */
  reliabilityGate(base: number, increase: number, shape: number, requests = 500) {
    const trials: TrialEntry[] = [];
    let r: ReliabilityComparison = compareReliability(RELIABILITY, trials, this.design);
    for (let pair = 0; pair < this.maxTrials; pair++) {
      trials.push(...this.failurePair(pair, base, increase, shape, requests));
      if (!this.design.looks.includes(pair + 1)) continue;
      r = compareReliability(RELIABILITY, trials, this.design);
      if (r.status !== "open") break;
    }
    return r;
  }

  /** A case's run on one arm: a transport failure (a contract check) with the flake rate. */
  private caseRun(id: string, flake: number): CaseRun {
    const pass = this.rng.uniform() >= flake;
    const transport = {
      kind: "transport",
      tier: "contract" as const,
      pass,
      codes: pass ? [] : ["transport.http_500"],
    };
    const json = { kind: "json_parse", tier: "quality" as const, pass: true, codes: [] };
    const answer = emptyAnswer(pass ? 200 : 500);
    return { id, attempts: [{ answer, results: [transport, json] }] } as unknown as CaseRun;
  }

  /** An A/A quality run over `cases` cases: the differing ones re-run on both arms, as the gate does. */
  qualityFails(flake: number, cases = 100): boolean {
    const suite = {
      name: "simulated",
      cases: Array.from({ length: cases }, (_, i) => ({
        id: `case-${i}`,
        expect: [{ kind: "json_parse" }],
      })),
    } as unknown as Suite;
    const first = () => suite.cases.map((c) => this.caseRun(c.id, flake));
    const [b, c] = [first(), first()];
    const differ = casesThatDiffer(b, c);
    const again = () =>
      new Map(
        [...differ].map((id) => [
          id,
          Array.from({ length: QUALITY_RULE.confirmReruns }, () => this.caseRun(id, flake)),
        ]),
      );
    const reruns = { baseline: again(), candidate: again() };
    return compareQuality(suite, b, c, reruns, QUALITY_RULE).verdict === "fail";
  }

  /**
   * A whole A/A gate: goodput, p95 TTFT and p95 ITL (their per-pair drift
   * shared), reliability (0.4 % failures, `requests` per trial) and quality
   * (100 cases), pairs added while any is open.
   */
  wholeGateAa(sdD: number, shape: number, flake: number, requests = 500) {
    const specs = [GOODPUT, TTFT, ITL];
    const shared = Array.from({ length: this.maxTrials }, () => this.rng.normal());
    const values = specs.map(() => this.pairs(0, sdD, shared));
    const trials: TrialEntry[] = [];
    const out = { latency: false, reliability: false, quality: false, pass: false, pairs: 0 };
    while (out.pairs < this.maxTrials) {
      trials.push(...this.failurePair(out.pairs, 0.004, 0, shape, requests));
      out.pairs++;
      if (!this.design.looks.includes(out.pairs)) continue;
      const cs = specs.map((spec, i) =>
        compareMetric(spec, (values[i] ?? []).slice(0, out.pairs), "margin", this.design, 0.1),
      );
      const r = compareReliability(RELIABILITY, trials, this.design);
      out.latency = cs.some((c) => c.verdict === "regressed");
      out.reliability = r.verdict === "regressed";
      const passed = (v: string) => v === "pass" || v === "improved";
      out.pass = cs.every((c) => passed(c.verdict)) && passed(r.verdict);
      const open = cs.some((c) => c.status === "open") || r.status === "open";
      if (!open || out.latency || out.reliability) break;
    }
    out.quality = this.qualityFails(flake);
    out.pass = out.pass && !out.quality;
    return { ...out, failed: out.latency || out.reliability || out.quality };
  }
}
