// The margin rule on paired differences d (candidate against baseline), as
// the surge's rules decide: a fail needs the mean beyond the tolerance and
// the lower bound beyond half of it; a pass needs the upper bound within it.
// With a few pairs of counts, the pairs' own spread can be zero by chance (two
// A/A pairs that both flapped once more on the candidate): each bound is the
// wider of the t-interval and a normal interval on the counting noise the
// pairs carry (a Poisson count's, a binomial share's), so chance agreement of
// two pairs is never a certainty. A value read at a resolution adds that
// resolution's noise on the fail side only: equal readings still pass.

import { probit } from "simple-statistics";
import { tQuantile } from "../compare/tdist.ts";

export interface MarginPair {
  d: number;
  /** The d's variance from counting noise alone (both bounds). */
  noiseVar: number;
  /** More variance on the fail side only (a reading's resolution). */
  failVar: number;
  /** A censored reading: the candidate's cannot pass, the baseline's cannot fail. */
  canPass: boolean;
  canFail: boolean;
}

export interface MarginAlphas {
  passAlpha: number;
  failAlpha: number;
}

export type MarginVerdict = "pass" | "fail" | "inconclusive";

export interface MarginResult {
  verdict: MarginVerdict;
  /** The mean d and its bounds (±∞ with fewer than 2 pairs). */
  mean: number;
  lower: number;
  upper: number;
  /** Pairs that would decide at this spread (null: decided, or more than MAX_PAIRS_SAID). */
  pairsToDecide: number | null;
}

/** Beyond this, "more pairs" is said without a number: the spread is the problem. */
export const MAX_PAIRS_SAID = 40;

const meanOf = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);

/** The pairs' spread: sample variance of the d's. */
function spreadVar(ds: readonly number[]): number {
  const m = meanOf(ds);
  return ds.length < 2 ? 0 : ds.reduce((s, d) => s + (d - m) ** 2, 0) / (ds.length - 1);
}

/** The margin rule on the pairs' d's against tolD. */
export function marginRule(
  pairs: readonly MarginPair[],
  tolD: number,
  alphas: MarginAlphas,
): MarginResult {
  const ds = pairs.map((p) => p.d);
  const n = ds.length;
  const m = meanOf(ds);
  if (n < 2)
    return {
      verdict: "inconclusive",
      mean: m,
      lower: Number.NEGATIVE_INFINITY,
      upper: Number.POSITIVE_INFINITY,
      pairsToDecide: null,
    };
  const spread = spreadVar(ds);
  const noise = meanOf(pairs.map((p) => p.noiseVar));
  const failNoise = noise + meanOf(pairs.map((p) => p.failVar));
  const half = (alpha: number, noiseVar: number) =>
    Math.max(
      tQuantile(1 - alpha, n - 1) * Math.sqrt(spread / n),
      probit(1 - alpha) * Math.sqrt(noiseVar / n),
    );
  const lower = m - half(alphas.failAlpha, failNoise);
  const upper = m + half(alphas.passAlpha, noise);
  const verdict: MarginVerdict =
    m > tolD && lower > tolD / 2 && pairs.every((p) => p.canFail)
      ? "fail"
      : upper <= tolD && pairs.every((p) => p.canPass)
        ? "pass"
        : "inconclusive";
  return {
    verdict,
    mean: m,
    lower,
    upper,
    // A censored reading blocks a side whatever the count: more pairs would not lift it.
    pairsToDecide:
      verdict === "inconclusive" && pairs.every((p) => p.canPass && p.canFail)
        ? pairsToDecide(m, tolD, spread, failNoise, alphas, n)
        : null,
  };
}

/** The pairs whose interval would leave the nearer boundary at this mean and spread (null: more than MAX_PAIRS_SAID). */
function pairsToDecide(
  m: number,
  tolD: number,
  spread: number,
  noise: number,
  alphas: MarginAlphas,
  run: number,
): number | null {
  const sd = Math.sqrt(Math.max(spread, noise));
  // Above the tolerance a fail is nearer (the bound must pass half of it), below it a pass.
  const [distance, alpha] =
    m > tolD ? [m - tolD / 2, alphas.failAlpha] : [tolD - m, alphas.passAlpha];
  if (distance <= 0) return null;
  // The t-interval's quantile shrinks with the pairs: the first count at which it is narrow enough.
  for (let n = Math.max(3, run + 1); n <= MAX_PAIRS_SAID; n++)
    if (tQuantile(1 - alpha, n - 1) * (sd / Math.sqrt(n)) < distance) return n;
  return null;
}
