// The scaling scenario (docs/autoscaling.md): after the pairs, each arm in
// interleaved pairs takes one shaped load — steady at the pairs' rate, a step
// to `factor` × the baseline's capacity (or × the rate) held, back to steady
// (where the scaler scales in), then a hover ±10 % around the scale
// threshold — with its replica count sampled beside it. Each trial's timeline
// gives its reading (stress/scaling-read.ts) and the paired rules decide
// (stress/scaling-compare.ts). Between trials the fleet is let back down to
// where it started, so each trial starts from the same count.

import type { Arm } from "../common/arms.ts";
import { plural } from "../common/format.ts";
import { apartAlphas } from "../compare/decide-run.ts";
import { pairOrder } from "../compare/plan.ts";
import type { DecisionOptions } from "../compare/verdict.ts";
import type { ReplicasRecord } from "../replicas/sampler.ts";
import type { ScalingBudgets, ScalingOptions } from "../stress/options.ts";
import {
  compareScaling,
  type ScalingComparison,
  type ScalingPair,
  type ScalingRule,
  type ScalingVerdict,
} from "../stress/scaling-compare.ts";
import {
  overloadEndS,
  readScaling,
  type ScalingReading,
  type ScalingSpan,
  sloOver,
} from "../stress/scaling-read.ts";
import type { TrialOptions, TrialReport } from "../trial/measure.ts";
import type { GateDeps, GateOptions } from "./options.ts";
import { settleFleet, startCounts } from "./scaling-settle.ts";
import type { SideSuite, SuiteContext } from "./suite.ts";
import { pairReadings, steadyRate } from "./surge.ts";

/** The scaling suite's settings as the results file records them. */
export interface ScalingRecord {
  factor: number;
  hold_s: number;
  before_s: number;
  after_s: number;
  hover_factor: number;
  hover_s: number;
  pairs: number;
  warmup_s: number;
  rule: {
    max_reaction_increase: number;
    max_slo_drop: number;
    max_flap_increase: number;
    budgets: { scale_up_s: number | null; flaps_per_10min: number | null; cut: number | null };
    pass_alpha: number;
    fail_alpha: number;
  };
}

export interface ScalingTrial {
  pair: number;
  arm: Arm;
  valid: boolean;
  reasons: string[];
  timeline: NonNullable<TrialReport["timeline"]> | null;
  /** The replica count's source in this trial and its error; null: none set. */
  replicas: ReplicasRecord | null;
  reading: ScalingReading | null;
}

export interface ScalingReport {
  factor: number;
  steady_per_s: number;
  step_per_s: number;
  hover_per_s: number;
  relative_to: "capacity" | "rate";
  span: ScalingSpan;
  trials: ScalingTrial[];
  pairs: ScalingPair[];
  comparison: ScalingComparison;
  rule: ScalingRule;
  verdict: ScalingVerdict;
  notes: string[];
}

/** The hover's swing around its centre, and its half-period's bounds (s). */
const HOVER_SWING = 0.1;
const HOVER_HALF_MIN_S = 1;
const HOVER_HALF_MAX_S = 15;

/** Rules (reaction, SLO while scaling, flaps, cut) and each budget set: a rate's share of the fail α each. */
export function scalingShares(budgets: ScalingBudgets): number {
  return 4 + Object.values(budgets).filter((v) => v !== undefined).length;
}

export function scalingRule(s: ScalingOptions, decision: DecisionOptions): ScalingRule {
  const alphas = apartAlphas(decision);
  return {
    maxReactionIncrease: s.maxReactionIncrease,
    maxSloDrop: s.maxSloDrop,
    maxFlapIncrease: s.maxFlapIncrease,
    budgets: s.budgets,
    passAlpha: alphas.pass,
    failAlpha: alphas.fail,
  };
}

/** The hover's half-period: an eighth of it, within 1–15 s — several turns, each longer than a sync period. */
export const hoverHalfS = (hoverS: number): number =>
  Math.min(HOVER_HALF_MAX_S, Math.max(HOVER_HALF_MIN_S, hoverS / 8));

/** Where the phases sit in each trial. */
export function scalingSpan(
  warmupS: number,
  s: Pick<ScalingOptions, "beforeS" | "holdS" | "afterS" | "hoverS">,
): ScalingSpan {
  const stepS = warmupS + s.beforeS;
  const downS = stepS + s.holdS;
  const hoverS = downS + s.afterS;
  return { steadyFromS: warmupS, stepS, downS, hoverS, endS: hoverS + s.hoverS };
}

/** The rates: steady, the step, the hover's centre (req/s). */
interface Rates {
  steadyPerS: number;
  stepPerS: number;
  hoverPerS: number;
}

/** The hover: ±10 % around its centre, in half-periods, for its length. */
function hoverSegments(s: ScalingOptions, hoverPerS: number) {
  const half = hoverHalfS(s.hoverS);
  const segments: { fromPerS: number; toPerS: number; durationS: number }[] = [];
  for (let t = 0, up = true; t < s.hoverS - 1e-9; t += half, up = !up) {
    const perS = hoverPerS * (up ? 1 + HOVER_SWING : 1 - HOVER_SWING);
    segments.push({ fromPerS: perS, toPerS: perS, durationS: Math.min(half, s.hoverS - t) });
  }
  return segments;
}

/** An arm's options for its scaling trials: steady → step → steady → hover. */
function scalingOptions(
  o: TrialOptions,
  s: ScalingOptions,
  rates: Rates,
  promptRound: number,
): TrialOptions {
  const steady = steadyRate(o);
  if (!steady) throw new Error("internal error: a scaling trial without a steady rate");
  const step = (perS: number, durationS: number) => ({ fromPerS: perS, toPerS: perS, durationS });
  const segments = [
    step(steady.perS, s.beforeS),
    step(rates.stepPerS, s.holdS),
    step(steady.perS, s.afterS),
    ...hoverSegments(s, rates.hoverPerS),
  ];
  const durationS = s.beforeS + s.holdS + s.afterS + s.hoverS;
  const offered = segments.reduce((sum, g) => sum + g.fromPerS * g.durationS, 0);
  return {
    ...o,
    workload: {
      ...o.workload,
      arrival: {
        kind: "shaped",
        process: steady.process,
        burstiness: steady.burstiness,
        segments,
        ratePerS: offered / durationS,
      },
      durationS,
      promptRound,
    },
  };
}

/** What the scenario will cost, said before the first trial. */
function scalingPlanLine(options: GateOptions): string | null {
  const s = options.scaling;
  if (!s) return null;
  const trialS = options.baseline.workload.warmupS + s.beforeS + s.holdS + s.afterS + s.hoverS;
  return `plan: the scaling scenario after the pairs: ${plural(s.pairs, "pair")} of ${trialS} s trials, ≈ ${Math.ceil((2 * s.pairs * trialS) / 60)} min of endpoint time plus each fleet's return to its start`;
}

/** Each arm's reading paired, and each trial's replicas error as a note. */
function pairScaling(trials: readonly ScalingTrial[]): { pairs: ScalingPair[]; notes: string[] } {
  const { pairs, notes } = pairReadings(trials, "scaling");
  for (const t of trials)
    if (t.replicas?.error) notes.push(`scaling pair ${t.pair + 1}, ${t.arm}: ${t.replicas.error}`);
  return { pairs, notes };
}

/** Each trial read again from its timeline, paired, and compared under the rule. */
export function decideScaling(
  base: Omit<ScalingReport, "pairs" | "comparison" | "verdict" | "notes">,
): ScalingReport {
  // A source that failed part-way leaves the trial without a count, not with one frozen at its last sample.
  const trials = base.trials.map((t) => ({
    ...t,
    reading: t.timeline ? readScaling(t.timeline, base.span, !t.replicas?.error) : null,
  }));
  const { pairs, notes } = pairScaling(trials);
  const shared = pairs.map((p) => sharedSloWindow(p, trials, base.span));
  const comparison = compareScaling(shared, base.rule);
  return { ...base, trials, pairs: shared, comparison, verdict: comparison.verdict, notes };
}

/** Both arms' SLO while scaling over one window: to the later arm's scale-up end (or the step down), so a slower scale-up is not a longer denominator. */
function sharedSloWindow(
  p: ScalingPair,
  trials: readonly ScalingTrial[],
  span: ScalingSpan,
): ScalingPair {
  const timeline = (arm: Arm) => trials.find((t) => t.pair === p.pair && t.arm === arm)?.timeline;
  const [b, c] = [timeline("baseline"), timeline("candidate")];
  if (!b || !c) return p;
  const toS = overloadEndS(span, b.bucket_s, [p.baseline.scaled_s, p.candidate.scaled_s]);
  return {
    pair: p.pair,
    baseline: { ...p.baseline, ...sloOver(b, span.stepS, toS) },
    candidate: { ...p.candidate, ...sloOver(c, span.stepS, toS) },
  };
}

function ratesOf(s: ScalingOptions, steady: number, relative: number | null): Rates {
  const ref = relative ?? steady;
  const r = (x: number) => Number(x.toPrecision(4));
  return { steadyPerS: steady, stepPerS: r(s.factor * ref), hoverPerS: r(s.hoverFactor * ref) };
}

async function runScaling(
  options: GateOptions,
  s: ScalingOptions,
  deps: GateDeps,
  at: SuiteContext,
): Promise<ScalingReport | null> {
  const { measureArm, atRate } = at;
  const steady = atRate ? steadyRate(atRate.baseline)?.perS : undefined;
  const why =
    at.failedAlready !== undefined
      ? `${at.failedAlready} regressed already (fail-fast)`
      : steady === undefined
        ? "no steady rate to step from (the capacity sweep found none)"
        : null;
  if (why !== null || !measureArm || !atRate || steady === undefined) {
    if (why) at.log(`scaling: not run: ${why}`);
    return null;
  }
  const relative = at.capacityPerS ?? null;
  const rates = ratesOf(s, steady, relative);
  at.log(
    `scaling: ${plural(s.pairs, "pair")}: ${steady} req/s for ${s.beforeS} s, ${rates.stepPerS} req/s for ${s.holdS} s, ${steady} req/s for ${s.afterS} s, ${rates.hoverPerS} req/s ±${HOVER_SWING * 100} % for ${s.hoverS} s`,
  );
  const { options: armOptions, floors } = await startCounts(atRate, deps, at.log);
  const trials: ScalingTrial[] = [];
  const settleNotes: string[] = [];
  for (let pair = 0; pair < s.pairs; pair++) {
    const order = pairOrder(options.order, pair, options.baseline.workload.seed);
    const promptRound = 0x7ffe_0000 + pair;
    for (const arm of order) {
      if (deps.signal?.aborted) return null;
      const o = scalingOptions(armOptions[arm], s, rates, promptRound);
      const floor = floors[arm];
      if (floor !== undefined) {
        const note = await settleFleet(arm, o, floor, s.settleS, deps);
        if (note) settleNotes.push(`scaling pair ${pair + 1}: ${note}`);
      }
      const { report } = await measureArm(
        arm,
        o,
        `scaling ${pair + 1}`,
        `scaling ${pair + 1}/${s.pairs}`,
      );
      trials.push({
        pair,
        arm,
        valid: report.validity.valid,
        reasons: report.validity.reasons,
        timeline: report.timeline ?? null,
        replicas: report.replicas ?? null,
        reading: null,
      });
    }
  }
  const decided = decideScaling({
    factor: s.factor,
    steady_per_s: steady,
    step_per_s: rates.stepPerS,
    hover_per_s: rates.hoverPerS,
    relative_to: relative === null ? "rate" : "capacity",
    span: scalingSpan(options.baseline.workload.warmupS, s),
    trials,
    rule: scalingRule(s, options.decision),
  });
  for (const c of decided.comparison.checks) at.log(`scaling ${c.id}: ${c.verdict}: ${c.reason}`);
  return { ...decided, notes: [...settleNotes, ...decided.notes] };
}

const budgetsRecord = (b: ScalingBudgets): ScalingRecord["rule"]["budgets"] => ({
  scale_up_s: b.scaleUpS ?? null,
  flaps_per_10min: b.flaps ?? null,
  cut: b.cut ?? null,
});

const budgetsOf = (r: ScalingRecord["rule"]["budgets"]): ScalingBudgets => ({
  ...(r.scale_up_s !== null ? { scaleUpS: r.scale_up_s } : {}),
  ...(r.flaps_per_10min !== null ? { flaps: r.flaps_per_10min } : {}),
  ...(r.cut !== null ? { cut: r.cut } : {}),
});

const ruleOf = (r: ScalingRecord["rule"]): ScalingRule => ({
  maxReactionIncrease: r.max_reaction_increase,
  maxSloDrop: r.max_slo_drop,
  maxFlapIncrease: r.max_flap_increase,
  budgets: budgetsOf(r.budgets),
  passAlpha: r.pass_alpha,
  failAlpha: r.fail_alpha,
});

function describeScaling(options: GateOptions): ScalingRecord | null {
  const s = options.scaling;
  if (!s) return null;
  const rule = scalingRule(s, options.decision);
  return {
    factor: s.factor,
    hold_s: s.holdS,
    before_s: s.beforeS,
    after_s: s.afterS,
    hover_factor: s.hoverFactor,
    hover_s: s.hoverS,
    pairs: s.pairs,
    warmup_s: options.baseline.workload.warmupS,
    rule: {
      max_reaction_increase: rule.maxReactionIncrease,
      max_slo_drop: rule.maxSloDrop,
      max_flap_increase: rule.maxFlapIncrease,
      budgets: budgetsRecord(rule.budgets),
      pass_alpha: rule.passAlpha,
      fail_alpha: rule.failAlpha,
    },
  };
}

/** The scaling scenario as a side-suite: after the pairs (before the surge); re-decided from every trial's timeline. */
export const scalingSuite: SideSuite<"scaling", ScalingReport, ScalingRecord> = {
  id: "scaling",
  afterPairs: true,
  costly: true,
  asked: (options) => options.scaling !== undefined,
  run: (options, deps, at) =>
    options.scaling ? runScaling(options, options.scaling, deps, at) : Promise.resolve(null),
  verdict: (report) => report.verdict,
  alphaShares: (recorded) => scalingShares(budgetsOf(recorded.rule.budgets)),
  planLine: scalingPlanLine,
  describe: describeScaling,
  redecide: (report, recorded) =>
    decideScaling(
      recorded
        ? {
            ...report,
            span: scalingSpan(recorded.warmup_s, {
              beforeS: recorded.before_s,
              holdS: recorded.hold_s,
              afterS: recorded.after_s,
              hoverS: recorded.hover_s,
            }),
            rule: ruleOf(recorded.rule),
          }
        : report,
    ),
};
