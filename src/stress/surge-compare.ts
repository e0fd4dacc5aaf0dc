// The surge's two paired rules: the time to recover (a ratio, as the
// latencies are: d = ln((candidate + r) ÷ (baseline + r)), r the timeline's
// resolution, so that "both recovered at once" is no change rather than 0 ÷ 0)
// and the share of the surge's requests that failed (a difference in points).
// Each is a paired one-sided t-interval on the pairs' d, decided as the
// latencies are by default (the margin rule): a fail needs the estimate beyond
// the tolerance and the bound beyond half of it; a pass needs the bound within
// it. A censored recovery (never within the window) is a lower bound: the
// candidate's cannot pass, the baseline's cannot fail.

import { mean } from "simple-statistics";
import { signedPercent, signedPoints } from "../common/format.ts";
import { tQuantile } from "../compare/tdist.ts";
import type { SurgeReading } from "./recovery.ts";

export interface SurgeRule {
  /** The recovery time's tolerated increase: 0.25 = +25 %. */
  maxRecoveryIncrease: number;
  /** The surge failure rate's tolerated increase, in points: 0.05 = 5 points. */
  maxFailureIncrease: number;
  passAlpha: number;
  failAlpha: number;
}

export interface SurgePair {
  pair: number;
  baseline: SurgeReading;
  candidate: SurgeReading;
}

export type SurgeVerdict = "pass" | "fail" | "inconclusive";

export interface SurgeCheck {
  id: "recovery" | "failures";
  /** Each arm's mean over the pairs: seconds to recover, or the failed share. */
  baseline: number;
  candidate: number;
  /** The change as the rule reads it: a ratio − 1 (recovery) or points (failures). */
  change: number;
  /** The interval's bounds, in the same terms; null with fewer than 2 pairs (no interval). */
  change_lower: number | null;
  change_upper: number | null;
  tolerance: number;
  /** Per pair: the d the interval is on, and which arm's value is a lower bound. */
  pairs: { pair: number; d: number; censored: "baseline" | "candidate" | "both" | null }[];
  verdict: SurgeVerdict;
  reason: string;
}

export interface SurgeComparison {
  checks: SurgeCheck[];
  verdict: SurgeVerdict;
}

interface PairD {
  pair: number;
  d: number;
  canPass: boolean;
  canFail: boolean;
  censored: SurgeCheck["pairs"][number]["censored"];
}

/** The interval on the d's, one-sided at each boundary's α; null with fewer than 2 pairs. */
function bounds(ds: readonly number[], rule: SurgeRule): { lower: number; upper: number } | null {
  const n = ds.length;
  if (n < 2) return null;
  const m = mean([...ds]);
  const sd = Math.sqrt(ds.reduce((s, d) => s + (d - m) ** 2, 0) / (n - 1));
  const se = sd / Math.sqrt(n);
  return {
    lower: m - tQuantile(1 - rule.failAlpha, n - 1) * se,
    upper: m + tQuantile(1 - rule.passAlpha, n - 1) * se,
  };
}

/** The margin rule on the d's against tolD. */
function verdictOf(pairs: readonly PairD[], tolD: number, rule: SurgeRule) {
  const ds = pairs.map((p) => p.d);
  const b = bounds(ds, rule);
  const m = ds.length > 0 ? mean([...ds]) : 0;
  if (!b)
    return {
      verdict: "inconclusive" as const,
      m,
      lower: Number.NEGATIVE_INFINITY,
      upper: Number.POSITIVE_INFINITY,
    };
  if (m > tolD && b.lower > tolD / 2 && pairs.every((p) => p.canFail))
    return { verdict: "fail" as const, m, ...b };
  if (b.upper <= tolD && pairs.every((p) => p.canPass))
    return { verdict: "pass" as const, m, ...b };
  return { verdict: "inconclusive" as const, m, ...b };
}

function censoredOf(b: boolean, c: boolean): PairD["censored"] {
  if (b && c) return "both";
  return b ? "baseline" : c ? "candidate" : null;
}

/** The recovery rule: pairs where both arms have a steady level to recover to. */
function recoveryCheck(pairs: readonly SurgePair[], rule: SurgeRule): SurgeCheck {
  const usable = pairs.flatMap((p) => {
    const [b, c] = [p.baseline.recovery_s, p.candidate.recovery_s];
    if (b === null || c === null) return [];
    const r = Math.max(p.baseline.resolution_s, p.candidate.resolution_s);
    const [bc, cc] = [p.baseline.recovery_censored, p.candidate.recovery_censored];
    return [
      {
        pair: p.pair,
        b,
        c,
        d: Math.log((c + r) / (b + r)),
        canPass: !cc,
        canFail: !bc || cc,
        censored: censoredOf(bc, cc),
      },
    ];
  });
  const tolD = Math.log(1 + rule.maxRecoveryIncrease);
  const v = verdictOf(usable, tolD, rule);
  const change = Math.exp(v.m) - 1;
  const [lower, upper] = [finite(Math.exp(v.lower) - 1), finite(Math.exp(v.upper) - 1)];
  const limit = signedPercent(rule.maxRecoveryIncrease);
  const interval = `${lower === null ? "–" : signedPercent(lower)} … ${upper === null ? "–" : signedPercent(upper)}`;
  const blocked = usable.some((p) => !p.canPass)
    ? "; the candidate did not recover within the window in some pair"
    : "";
  const reason =
    usable.length < 2
      ? `${usable.length} pair${usable.length === 1 ? "" : "s"} with a steady level to recover to: at least 2 are needed`
      : v.verdict === "fail"
        ? `${signedPercent(change)}: beyond ${limit}, and the interval (${interval}) shows more than half of it`
        : v.verdict === "pass"
          ? `${signedPercent(change)}: the interval (${interval}) is within ${limit}`
          : `${signedPercent(change)}: the interval (${interval}) straddles ${limit}${blocked}`;
  return {
    id: "recovery",
    baseline: usable.length > 0 ? mean(usable.map((p) => p.b)) : 0,
    candidate: usable.length > 0 ? mean(usable.map((p) => p.c)) : 0,
    change,
    change_lower: lower,
    change_upper: upper,
    tolerance: rule.maxRecoveryIncrease,
    pairs: usable.map((p) => ({ pair: p.pair, d: p.d, censored: p.censored })),
    verdict: v.verdict,
    reason,
  };
}

/** A bound as the results file can hold it: null where there is none (±∞). */
const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** The share not good: failed or beyond the SLO (older files: failed). */
const failedShare = (r: SurgeReading) =>
  r.scheduled > 0 ? (r.unmet ?? r.failed) / r.scheduled : 0;

/** The failure rule: the share of the requests due from the surge's start that failed or missed the SLO, candidate − baseline. */
function failuresCheck(pairs: readonly SurgePair[], rule: SurgeRule): SurgeCheck {
  const usable = pairs.map((p) => ({
    pair: p.pair,
    b: failedShare(p.baseline),
    c: failedShare(p.candidate),
    d: failedShare(p.candidate) - failedShare(p.baseline),
    canPass: true,
    canFail: true,
    censored: null,
  }));
  const v = verdictOf(usable, rule.maxFailureIncrease, rule);
  const limit = signedPoints(rule.maxFailureIncrease);
  const interval = `${signedPoints(v.lower)} … ${signedPoints(v.upper)}`;
  const reason =
    usable.length < 2
      ? "at least 2 pairs are needed"
      : v.verdict === "fail"
        ? `${signedPoints(v.m)}: beyond ${limit}, and the interval (${interval}) shows more than half of it`
        : v.verdict === "pass"
          ? `${signedPoints(v.m)}: the interval (${interval}) is within ${limit}`
          : `${signedPoints(v.m)}: the interval (${interval}) straddles ${limit}`;
  return {
    id: "failures",
    baseline: usable.length > 0 ? mean(usable.map((p) => p.b)) : 0,
    candidate: usable.length > 0 ? mean(usable.map((p) => p.c)) : 0,
    change: v.m,
    change_lower: finite(v.lower),
    change_upper: finite(v.upper),
    tolerance: rule.maxFailureIncrease,
    pairs: usable.map((p) => ({ pair: p.pair, d: p.d, censored: null })),
    verdict: v.verdict,
    reason,
  };
}

/** Both rules over the pairs; the surge fails when either does, and is open when either is. */
export function compareSurge(pairs: readonly SurgePair[], rule: SurgeRule): SurgeComparison {
  const checks = [recoveryCheck(pairs, rule), failuresCheck(pairs, rule)];
  const verdict: SurgeVerdict = checks.some((c) => c.verdict === "fail")
    ? "fail"
    : checks.some((c) => c.verdict === "inconclusive")
      ? "inconclusive"
      : "pass";
  return { checks, verdict };
}
