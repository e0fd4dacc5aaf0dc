// The scaling scenario's paired rules (docs/autoscaling.md): the time to the
// first added replica (a ratio, as the surge's recovery: ln((c + r) ÷ (b + r))),
// the share of the load not served within the SLO until the scale-up
// completed (points), the replica count's turns per 10 minutes while the load
// hovered (a count), each by the noise-floored margin rule; and the streams
// cut by scaling in, by Fisher's exact test (any increase the counts show,
// as the truncation replay). Absolute budgets on the candidate's own values
// join them. A rule whose readings are missing (no replica count) is left
// out and says why, never guessed.

import { signedPercent, signedPoints } from "../common/format.ts";
import { fisherOneSided } from "../compare/fisher.ts";
import type { ScalingBudgets } from "./options.ts";
import { type MarginPair, type MarginResult, marginRule } from "./paired-margin.ts";
import type { ScalingReading } from "./scaling-read.ts";

export interface ScalingRule {
  maxReactionIncrease: number;
  maxSloDrop: number;
  maxFlapIncrease: number;
  budgets: ScalingBudgets;
  passAlpha: number;
  failAlpha: number;
}

export interface ScalingPair {
  pair: number;
  baseline: ScalingReading;
  candidate: ScalingReading;
}

export type ScalingVerdict = "pass" | "fail" | "inconclusive";
export const SCALING_CHECK_IDS = [
  "reaction",
  "slo",
  "flaps",
  "cut",
  "scale_up_budget",
  "flaps_budget",
  "cut_budget",
] as const;
export type ScalingCheckId = (typeof SCALING_CHECK_IDS)[number];

export interface ScalingCheck {
  id: ScalingCheckId;
  /** Each arm's mean over the pairs, in the check's unit (s, a share, turns per 10 min, streams cut). */
  baseline: number | null;
  candidate: number | null;
  /** The change as the rule reads it (a ratio − 1, points, turns, a share's points) and its bounds; null: none. */
  change: number | null;
  change_lower: number | null;
  change_upper: number | null;
  /** The tolerance (or the budget's limit). */
  tolerance: number;
  /** The reaction: pairs whose arm added no replica before the step down (its value is the hold's length, a lower bound). */
  censored?: { baseline: number; candidate: number; pairs: number };
  verdict: ScalingVerdict | "skipped";
  reason: string;
}

export interface ScalingComparison {
  checks: ScalingCheck[];
  verdict: ScalingVerdict;
}

const meanOf = (xs: readonly number[]) =>
  xs.length === 0 ? null : xs.reduce((s, x) => s + x, 0) / xs.length;
const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** What an open check says would decide it. */
function openWords(r: MarginResult): string {
  return r.pairsToDecide !== null
    ? `; about ${r.pairsToDecide} pairs would decide (scaling-pairs)`
    : "; at this spread, more pairs than are practical would be needed";
}

function marginReason(r: MarginResult, change: string, limit: string, interval: string): string {
  if (r.verdict === "fail")
    return `${change}: beyond ${limit}, and the interval (${interval}) shows more than half of it`;
  if (r.verdict === "pass") return `${change}: the interval (${interval}) is within ${limit}`;
  return `${change}: the interval (${interval}) straddles ${limit}${openWords(r)}`;
}

/** A rule without its readings: skipped; a budget the user set cannot be skipped, so it stays open. */
const skipped = (id: ScalingCheckId, tolerance: number, reason: string): ScalingCheck => ({
  id,
  baseline: null,
  candidate: null,
  change: null,
  change_lower: null,
  change_upper: null,
  tolerance,
  verdict: id.endsWith("_budget") ? "inconclusive" : "skipped",
  reason,
});

/** Pairs where both arms read a replica count: what the replica rules stand on. */
const counted = (pairs: readonly ScalingPair[]) =>
  pairs.filter((p) => p.baseline.start_replicas !== null && p.candidate.start_replicas !== null);

const NO_COUNT =
  "no pair read a replica count on both arms (set replicas-source, or see each trial's replicas error)";

/** The time to the first added replica: a ratio, censored where none came. */
function reactionCheck(pairs: readonly ScalingPair[], rule: ScalingRule): ScalingCheck {
  const tol = rule.maxReactionIncrease;
  const usable = counted(pairs);
  if (usable.length === 0) return skipped("reaction", tol, NO_COUNT);
  const margin: (MarginPair & { b: number; c: number })[] = usable.map((p) => {
    const [b, c] = [p.baseline.reaction_s ?? 0, p.candidate.reaction_s ?? 0];
    const r = Math.max(p.baseline.resolution_s, p.candidate.resolution_s);
    const [bc, cc] = [p.baseline.reaction_censored, p.candidate.reaction_censored];
    return {
      b,
      c,
      d: Math.log((c + r) / (b + r)),
      noiseVar: 0,
      // A reading is its bucket's start: up to a bucket late on either arm.
      failVar: (r * r) / 12 / (b + r) ** 2 + (r * r) / 12 / (c + r) ** 2,
      canPass: !cc,
      canFail: !bc || cc,
    };
  });
  const v = marginRule(margin, Math.log(1 + tol), rule);
  const [lower, upper] = [finite(Math.exp(v.lower) - 1), finite(Math.exp(v.upper) - 1)];
  const interval = `${lower === null ? "–" : signedPercent(lower)} … ${upper === null ? "–" : signedPercent(upper)}`;
  const blocked = margin.some((p) => !p.canPass)
    ? "; the candidate added no replica before the step down in some pair"
    : "";
  return {
    id: "reaction",
    censored: {
      baseline: usable.filter((p) => p.baseline.reaction_censored).length,
      candidate: usable.filter((p) => p.candidate.reaction_censored).length,
      pairs: usable.length,
    },
    baseline: meanOf(margin.map((p) => p.b)),
    candidate: meanOf(margin.map((p) => p.c)),
    change: Math.exp(v.mean) - 1,
    change_lower: lower,
    change_upper: upper,
    tolerance: tol,
    verdict: v.verdict,
    reason:
      usable.length < 2
        ? `${usable.length} pair with a replica count on both arms: at least 2 are needed`
        : marginReason(v, signedPercent(Math.exp(v.mean) - 1), signedPercent(tol), interval) +
          blocked,
  };
}

const unmetShare = (r: ScalingReading) => (r.scheduled > 0 ? r.unmet / r.scheduled : 0);

/** The share of the load not good until the scale-up completed: points, with a binomial floor. */
function sloCheck(pairs: readonly ScalingPair[], rule: ScalingRule): ScalingCheck {
  const tol = rule.maxSloDrop;
  const margin = pairs.map((p) => {
    const [b, c] = [p.baseline, p.candidate];
    const pooled = (b.unmet + c.unmet) / Math.max(1, b.scheduled + c.scheduled);
    const inv = (n: number) => (n > 0 ? 1 / n : 0);
    return {
      b: unmetShare(b),
      c: unmetShare(c),
      d: unmetShare(c) - unmetShare(b),
      noiseVar: pooled * (1 - pooled) * (inv(b.scheduled) + inv(c.scheduled)),
      failVar: 0,
      canPass: true,
      canFail: true,
    };
  });
  const v = marginRule(margin, tol, rule);
  const interval = `${signedPoints(v.lower)} … ${signedPoints(v.upper)}`;
  return {
    id: "slo",
    baseline: meanOf(margin.map((p) => p.b)),
    candidate: meanOf(margin.map((p) => p.c)),
    change: v.mean,
    change_lower: finite(v.lower),
    change_upper: finite(v.upper),
    tolerance: tol,
    verdict: v.verdict,
    reason:
      margin.length < 2
        ? "at least 2 pairs are needed"
        : marginReason(v, signedPoints(v.mean), signedPoints(tol), interval),
  };
}

const turns = (x: number) => `${x >= 0 ? "+" : ""}${Math.round(x * 10) / 10}`;

/** Turns of the count per 10 minutes of hover: a difference of counts, with a Poisson floor. */
function flapsCheck(pairs: readonly ScalingPair[], rule: ScalingRule): ScalingCheck {
  const tol = rule.maxFlapIncrease;
  const usable = counted(pairs).filter(
    (p) => p.baseline.flaps_per_10min !== null && p.candidate.flaps_per_10min !== null,
  );
  if (usable.length === 0) return skipped("flaps", tol, NO_COUNT);
  const margin = usable.map((p) => {
    const [b, c] = [p.baseline.flaps_per_10min ?? 0, p.candidate.flaps_per_10min ?? 0];
    const [fb, fc] = [p.baseline.flaps ?? 0, p.candidate.flaps ?? 0];
    // A turn's weight per 10 minutes of hover (both arms hover as long).
    const scale = 600 / p.baseline.hover_s;
    return {
      b,
      c,
      d: c - b,
      flaps: fb + fc,
      scale,
      failVar: 0,
      canPass: true,
      canFail: true,
      noiseVar: 0,
    };
  });
  // The pooled count's Poisson variance: a pair's own counts may both be 0 by chance.
  const pooled = meanOf(margin.map((p) => p.flaps)) ?? 0;
  for (const p of margin) p.noiseVar = pooled * p.scale ** 2;
  const v = marginRule(margin, tol, rule);
  const interval = `${finite(v.lower) === null ? "–" : turns(v.lower)} … ${finite(v.upper) === null ? "–" : turns(v.upper)}`;
  return {
    id: "flaps",
    baseline: meanOf(margin.map((p) => p.b)),
    candidate: meanOf(margin.map((p) => p.c)),
    change: v.mean,
    change_lower: finite(v.lower),
    change_upper: finite(v.upper),
    tolerance: tol,
    verdict: v.verdict,
    reason:
      usable.length < 2
        ? `${usable.length} pair with a replica count on both arms: at least 2 are needed`
        : marginReason(v, `${turns(v.mean)} turns per 10 min`, `${turns(tol)}`, interval),
  };
}

/** Streams cut from the step down on: pooled over the pairs, Fisher's exact test on any increase. */
function cutCheck(pairs: readonly ScalingPair[], rule: ScalingRule): ScalingCheck {
  const total = (arm: "baseline" | "candidate", f: (r: ScalingReading) => number) =>
    pairs.reduce((s, p) => s + f(p[arm]), 0);
  const [bc, bn] = [total("baseline", (r) => r.cut), total("baseline", (r) => r.at_risk)];
  const [cc, cn] = [total("candidate", (r) => r.cut), total("candidate", (r) => r.at_risk)];
  const [bs, cs] = [bn > 0 ? bc / bn : 0, cn > 0 ? cc / cn : 0];
  const p = fisherOneSided(bc, bn, cc, cn);
  const words = `cut from the step down on: the candidate ${cc} of ${cn}, the baseline ${bc} of ${bn}`;
  const base = {
    id: "cut" as const,
    baseline: bs,
    candidate: cs,
    change: cs - bs,
    change_lower: null,
    change_upper: null,
    tolerance: 0,
  };
  if (pairs.length === 0) return { ...base, verdict: "inconclusive", reason: "no pair to compare" };
  if (cs > bs && p < rule.failAlpha)
    return {
      ...base,
      verdict: "fail",
      reason: `${words} — more, beyond chance (Fisher p = ${p.toPrecision(2)})`,
    };
  return {
    ...base,
    verdict: "pass",
    reason: `${words} — ${cs > bs ? `not shown beyond chance (Fisher p = ${p.toPrecision(2)})` : "no more than the baseline"}`,
  };
}

/** The candidate's own values against a limit: a one-sided bound each way, at the rules' α. */
function limitCheck(
  id: ScalingCheckId,
  values: readonly { v: number; noiseVar: number; canPass: boolean }[],
  limit: number,
  rule: ScalingRule,
  unit: (x: number) => string,
): ScalingCheck {
  // The margin rule with the limit as the baseline and no tolerance: d = value − limit.
  const pairs = values.map((x) => ({ ...x, d: x.v - limit, failVar: 0, canFail: true }));
  const v = marginRule(pairs, 0, rule);
  const [lower, upper] = [finite(v.lower + limit), finite(v.upper + limit)];
  const mean = v.mean + limit;
  // With no tolerance the margin rule's fail is the lower bound beyond the limit itself.
  const verdict = v.verdict;
  const interval = `${lower === null ? "–" : unit(lower)} … ${upper === null ? "–" : unit(upper)}`;
  return {
    id,
    baseline: null,
    candidate: mean,
    change: null,
    change_lower: lower,
    change_upper: upper,
    tolerance: limit,
    verdict,
    reason:
      values.length < 2
        ? "at least 2 pairs are needed"
        : verdict === "fail"
          ? `${unit(mean)}: the interval (${interval}) is beyond the limit ${unit(limit)}`
          : verdict === "pass"
            ? `${unit(mean)}: the interval (${interval}) is within the limit ${unit(limit)}`
            : `${unit(mean)}: the interval (${interval}) straddles the limit ${unit(limit)}${openWords(v)}`,
  };
}

/** The budgets set, on the candidate's readings. */
function budgetChecks(pairs: readonly ScalingPair[], rule: ScalingRule): ScalingCheck[] {
  const b = rule.budgets;
  const checks: ScalingCheck[] = [];
  const usable = counted(pairs).map((p) => p.candidate);
  const seconds = (x: number) => `${Math.round(x * 10) / 10} s`;
  if (b.scaleUpS !== undefined)
    checks.push(
      usable.length === 0
        ? skipped("scale_up_budget", b.scaleUpS, NO_COUNT)
        : limitCheck(
            "scale_up_budget",
            usable.map((r) => ({
              v: r.reaction_s ?? 0,
              noiseVar: (r.resolution_s * r.resolution_s) / 12,
              canPass: !r.reaction_censored,
            })),
            b.scaleUpS,
            rule,
            seconds,
          ),
    );
  if (b.flaps !== undefined) {
    const flapping = usable.filter((r) => r.flaps_per_10min !== null);
    const pooled = meanOf(flapping.map((r) => r.flaps ?? 0)) ?? 0;
    checks.push(
      flapping.length === 0
        ? skipped("flaps_budget", b.flaps, NO_COUNT)
        : limitCheck(
            "flaps_budget",
            flapping.map((r) => {
              const scale = 600 / r.hover_s;
              return { v: r.flaps_per_10min ?? 0, noiseVar: pooled * scale ** 2, canPass: true };
            }),
            b.flaps,
            rule,
            (x) => `${Math.round(x * 10) / 10} turns per 10 min`,
          ),
    );
  }
  if (b.cut !== undefined) checks.push(cutBudget(pairs, b.cut));
  return checks;
}

/** Streams cut per scaling trial: the candidate's mean against the limit, counted, not estimated. */
function cutBudget(pairs: readonly ScalingPair[], limit: number): ScalingCheck {
  const cuts = pairs.map((p) => p.candidate.cut);
  const mean = meanOf(cuts);
  const base = {
    id: "cut_budget" as const,
    baseline: null,
    candidate: mean,
    change: null,
    change_lower: null,
    change_upper: null,
    tolerance: limit,
  };
  if (mean === null) return { ...base, verdict: "inconclusive", reason: "no pair to count" };
  const said = `${cuts.reduce((s, c) => s + c, 0)} streams cut in ${cuts.length} trials (${Math.round(mean * 10) / 10} a trial)`;
  return mean > limit
    ? { ...base, verdict: "fail", reason: `${said}: beyond the limit ${limit}` }
    : { ...base, verdict: "pass", reason: `${said}: within the limit ${limit}` };
}

/** Every rule over the pairs, and the candidate's budgets; it fails when one does, and is open when one is. */
export function compareScaling(
  pairs: readonly ScalingPair[],
  rule: ScalingRule,
): ScalingComparison {
  const checks = [
    reactionCheck(pairs, rule),
    sloCheck(pairs, rule),
    flapsCheck(pairs, rule),
    cutCheck(pairs, rule),
    ...budgetChecks(pairs, rule),
  ];
  const verdict: ScalingVerdict = checks.some((c) => c.verdict === "fail")
    ? "fail"
    : checks.some((c) => c.verdict === "inconclusive")
      ? "inconclusive"
      : "pass";
  return { checks, verdict };
}
