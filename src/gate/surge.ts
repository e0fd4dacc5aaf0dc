// The surge suite: after the pairs, both arms take the same shaped load —
// steady at the pairs' rate, a step to `factor` × the baseline's capacity (or
// × the rate, without a capacity phase), steady again — in interleaved pairs;
// each trial's timeline gives its recovery and what it failed (stress/), and
// the two paired rules decide. It runs after the pairs because it leaves a
// server overloaded, and an overload may slow what follows it.

import type { Arm } from "../common/arms.ts";
import { plural } from "../common/format.ts";
import { apartAlphas } from "../compare/decide-run.ts";
import { pairOrder } from "../compare/plan.ts";
import type { DecisionOptions } from "../compare/verdict.ts";
import {
  readSurge,
  SETTLED_BUCKETS,
  type SurgeReading,
  type SurgeSpan,
} from "../stress/recovery.ts";
import {
  compareSurge,
  type SurgeComparison,
  type SurgePair,
  type SurgeRule,
  type SurgeVerdict,
} from "../stress/surge-compare.ts";
import type { TrialOptions, TrialReport } from "../trial/measure.ts";
import type { GateOptions } from "./options.ts";

/** The client's ceiling (config/rate.ts MAX_RATE_PER_S): a surge beyond it would measure the client. */
const MAX_RATE_PER_S = 10_000;

import type { SurgeOptions } from "../stress/options.ts";
import type { SideSuite, SuiteContext } from "./suite.ts";

/** The surge suite's settings as the results file records them. */
export interface SurgeRecord {
  factor: number;
  surge_s: number;
  before_s: number;
  after_s: number;
  pairs: number;
  /** The trials' warm-up and the TTFT SLO: with the lengths above, where the surge sits and its target. */
  warmup_s: number;
  slo_ttft_ms: number | null;
  rule: {
    max_recovery_increase: number;
    max_failure_increase: number;
    pass_alpha: number;
    fail_alpha: number;
  };
}

/** One arm's surge trial: its self-checks, and the timeline its reading comes from. */
export interface SurgeTrial {
  pair: number;
  arm: Arm;
  valid: boolean;
  reasons: string[];
  timeline: NonNullable<TrialReport["timeline"]> | null;
  reading: SurgeReading | null;
}

export interface SurgeReport {
  factor: number;
  steady_per_s: number;
  surge_per_s: number;
  /** What the factor multiplied: the baseline's capacity, or the rate. */
  relative_to: "capacity" | "rate";
  span: SurgeSpan;
  /** Buckets in a row a recovery needs. */
  settled_buckets: number;
  /** The TTFT SLO recovery is judged against when the steady load met it (ms); null: none set. */
  slo_ttft_ms: number | null;
  trials: SurgeTrial[];
  /** The pairs whose trials were both valid and read. */
  pairs: SurgePair[];
  comparison: SurgeComparison;
  rule: SurgeRule;
  verdict: SurgeVerdict;
  notes: string[];
}

/** The rules' errors: each takes a rate's share of the fail boundaries' α, as accuracy's do. */
export function surgeRule(s: SurgeOptions, decision: DecisionOptions): SurgeRule {
  const alphas = apartAlphas(decision);
  return {
    maxRecoveryIncrease: s.maxRecoveryIncrease,
    maxFailureIncrease: s.maxFailureIncrease,
    passAlpha: alphas.pass,
    failAlpha: alphas.fail,
  };
}

/** The rules the surge adds to the gate's fail boundaries. */
export const SURGE_SHARES = 2;

/** The steady rate of the pairs' options: a surge needs a flat rate-driven arrival (config checks it). */
export function steadyRate(o: TrialOptions): {
  process: "poisson" | "gamma" | "constant";
  perS: number;
  burstiness: number;
} | null {
  const a = o.workload.arrival;
  if (a.kind === "poisson" || a.kind === "constant")
    return { process: a.kind, perS: a.ratePerS, burstiness: 1 };
  if (a.kind === "gamma") return { process: a.kind, perS: a.ratePerS, burstiness: a.burstiness };
  // A capacity gate whose sweep found no rate: its pairs did not run either.
  return null;
}

/** An arm's options for its surge trials: the shape steady → surge → steady. */
function surgeOptions(
  o: TrialOptions,
  s: SurgeOptions,
  surgePerS: number,
  promptRound: number,
): TrialOptions {
  const steady = steadyRate(o);
  if (!steady) throw new Error("internal error: a surge without a steady rate");
  const step = (perS: number, durationS: number) => ({ fromPerS: perS, toPerS: perS, durationS });
  const segments = [
    step(steady.perS, s.beforeS),
    step(surgePerS, s.surgeS),
    step(steady.perS, s.afterS),
  ];
  return {
    ...o,
    workload: {
      ...o.workload,
      arrival: {
        kind: "shaped",
        process: steady.process,
        burstiness: steady.burstiness,
        segments,
        ratePerS:
          (steady.perS * (s.beforeS + s.afterS) + surgePerS * s.surgeS) /
          (s.beforeS + s.surgeS + s.afterS),
      },
      durationS: s.beforeS + s.surgeS + s.afterS,
      promptRound,
    },
  };
}

/** Where the surge sits in each trial. */
export function spanOf(
  warmupS: number,
  s: Pick<SurgeOptions, "beforeS" | "surgeS" | "afterS">,
): SurgeSpan {
  const startS = warmupS + s.beforeS;
  return {
    steadyFromS: warmupS,
    startS,
    endS: startS + s.surgeS,
    scheduleEndS: startS + s.surgeS + s.afterS,
  };
}

/** What the surge will cost, said before the first trial (null: no surge). */
function surgePlanLine(options: GateOptions): string | null {
  const s = options.surge;
  if (!s) return null;
  const trialS = options.baseline.workload.warmupS + s.beforeS + s.surgeS + s.afterS;
  return `plan: the surge after the pairs: ${plural(s.pairs, "pair")} of ${trialS} s trials, ≈ ${Math.ceil((2 * s.pairs * trialS) / 60)} min of endpoint time plus the cooldowns`;
}

/** A side-suite's trial as its pairing reads it. */
interface ReadTrial<R> {
  pair: number;
  arm: Arm;
  valid: boolean;
  reasons: string[];
  reading: R | null;
}

/** Every arm's reading paired: the pairs whose trials were both valid and read, and a note per pair left out (`what`: "surge", "scaling"). */
export function pairReadings<R>(
  trials: readonly ReadTrial<R>[],
  what = "surge",
): {
  pairs: { pair: number; baseline: R; candidate: R }[];
  notes: string[];
} {
  const pairs: { pair: number; baseline: R; candidate: R }[] = [];
  const notes: string[] = [];
  for (const pair of new Set(trials.map((t) => t.pair))) {
    const of = (arm: Arm) => trials.find((t) => t.pair === pair && t.arm === arm);
    const [b, c] = [of("baseline"), of("candidate")];
    if (b?.valid && c?.valid && b.reading && c.reading) {
      pairs.push({ pair, baseline: b.reading, candidate: c.reading });
      continue;
    }
    const why = [b, c].flatMap((t) => (t && !t.valid ? [`${t.arm}: ${t.reasons.join("; ")}`] : []));
    notes.push(
      `${what} pair ${pair + 1} left out: ${why.length > 0 ? why.join("; ") : "no timeline"}`,
    );
  }
  return { pairs, notes };
}

/** Each trial read again from its timeline, paired, and compared under the rule. */
export function decideSurge(
  base: Omit<SurgeReport, "pairs" | "comparison" | "verdict" | "notes">,
): SurgeReport {
  const trials = base.trials.map((t) => ({
    ...t,
    reading: t.timeline ? readSurge(t.timeline, base.span, base.slo_ttft_ms ?? undefined) : null,
  }));
  const { pairs, notes } = pairReadings(trials);
  const comparison = compareSurge(pairs, base.rule);
  return { ...base, trials, pairs, comparison, verdict: comparison.verdict, notes };
}

async function runSurge(
  options: GateOptions,
  s: SurgeOptions,
  at: SuiteContext,
): Promise<SurgeReport | null> {
  const { measureArm, atRate } = at;
  const steady = atRate ? steadyRate(atRate.baseline)?.perS : undefined;
  const relative = at.capacityPerS ?? null;
  const surgePerS = Number((s.factor * (relative ?? steady ?? 0)).toPrecision(4));
  const why =
    at.failedAlready !== undefined
      ? `${at.failedAlready} regressed already (fail-fast)`
      : steady === undefined
        ? "no steady rate to surge from (the capacity sweep found none)"
        : surgePerS > MAX_RATE_PER_S
          ? `its rate, ${surgePerS} req/s, is beyond the client's ${MAX_RATE_PER_S} req/s`
          : null;
  if (why !== null || !measureArm || !atRate || steady === undefined) {
    if (why) at.log(`surge: not run: ${why}`);
    return null;
  }
  at.log(
    `surge: ${plural(s.pairs, "pair")}: ${steady} req/s for ${s.beforeS} s, ${surgePerS} req/s for ${s.surgeS} s (${s.factor} × the ${relative === null ? "rate" : "baseline's capacity"}), ${steady} req/s for ${s.afterS} s`,
  );
  const trials: SurgeTrial[] = [];
  for (let pair = 0; pair < s.pairs; pair++) {
    const order = pairOrder(options.order, pair, options.baseline.workload.seed);
    // Prompt rounds of their own: no prefix cache shared with the pairs' trials.
    const promptRound = 0x7fff_0000 + pair;
    for (const arm of order) {
      const o = surgeOptions(atRate[arm], s, surgePerS, promptRound);
      const { report } = await measureArm(
        arm,
        o,
        `surge ${pair + 1}`,
        `surge ${pair + 1}/${s.pairs}`,
      );
      const v = report.validity;
      trials.push({
        pair,
        arm,
        valid: v.valid,
        reasons: v.reasons,
        timeline: report.timeline ?? null,
        reading: null,
      });
    }
  }
  const sloTtftMs = options.baseline.slo.ttftMs ?? null;
  const decided = decideSurge({
    factor: s.factor,
    steady_per_s: steady,
    surge_per_s: surgePerS,
    relative_to: relative === null ? "rate" : "capacity",
    span: spanOf(options.baseline.workload.warmupS, s),
    settled_buckets: SETTLED_BUCKETS,
    slo_ttft_ms: sloTtftMs,
    trials,
    rule: surgeRule(s, options.decision),
  });
  for (const c of decided.comparison.checks) at.log(`surge ${c.id}: ${c.verdict}: ${c.reason}`);
  return decided;
}

const ruleOf = (r: SurgeRecord["rule"]): SurgeRule => ({
  maxRecoveryIncrease: r.max_recovery_increase,
  maxFailureIncrease: r.max_failure_increase,
  passAlpha: r.pass_alpha,
  failAlpha: r.fail_alpha,
});

/** The surge as a side-suite: after the pairs; re-decided from every trial's timeline under the recorded rule. */
export const surgeSuite: SideSuite<"surge", SurgeReport, SurgeRecord> = {
  id: "surge",
  afterPairs: true,
  costly: true,
  asked: (options) => options.surge !== undefined,
  run: (options, _deps, at) =>
    options.surge ? runSurge(options, options.surge, at) : Promise.resolve(null),
  verdict: (report) => report.verdict,
  alphaShares: () => SURGE_SHARES,
  planLine: surgePlanLine,
  describe: (options) => {
    const s = options.surge;
    if (!s) return null;
    const rule = surgeRule(s, options.decision);
    return {
      factor: s.factor,
      surge_s: s.surgeS,
      before_s: s.beforeS,
      after_s: s.afterS,
      pairs: s.pairs,
      warmup_s: options.baseline.workload.warmupS,
      slo_ttft_ms: options.baseline.slo.ttftMs ?? null,
      rule: {
        max_recovery_increase: rule.maxRecoveryIncrease,
        max_failure_increase: rule.maxFailureIncrease,
        pass_alpha: rule.passAlpha,
        fail_alpha: rule.failAlpha,
      },
    };
  },
  // The span, the target and the rule from the settings the file records, not the report's own words.
  redecide: (report, recorded) =>
    decideSurge(
      recorded
        ? {
            ...report,
            span: spanOf(recorded.warmup_s, {
              beforeS: recorded.before_s,
              surgeS: recorded.surge_s,
              afterS: recorded.after_s,
            }),
            slo_ttft_ms: recorded.slo_ttft_ms,
            rule: ruleOf(recorded.rule),
          }
        : report,
    ),
};
