// How many pairs would decide a metric the run left inconclusive: the
// sequential design simulated with this run's estimate as the true change and
// its spread as the noise, for growing max-trials, until half (and then four
// in five) of the simulated gates decide. A range, because the noise itself
// is only estimated. The candidates' critical values are the union bound's
// (each look's share of α on its own): slightly stricter than the calibrated
// design, so the advice errs towards more pairs.

import { MAX_ADVISED_PAIRS } from "../common/advice.ts";
import { mixSeeds, Rng } from "../workload/rng.ts";
import { looksOf, spentBy } from "./sequential.ts";
import { tQuantile } from "./tdist.ts";

export interface PairsAdvice {
  /** max-trials with an even chance to decide; null: more than MAX_ADVISED_PAIRS. */
  even: number | null;
  /** max-trials with a four-in-five chance. */
  likely: number | null;
}

const SIMULATIONS = 1000;

/** Each boundary's one-sided error: the pass boundary's, and the fail boundary's (split over the families). */
export interface BoundaryErrors {
  pass: number;
  fail: number;
}

/** Union-bound critical values: each look's share of α on its own. */
function unionCritical(looks: readonly number[], alpha: number): number[] {
  return looks.map((n, k) => {
    const share = spentBy(k, looks, alpha) - (k > 0 ? spentBy(k - 1, looks, alpha) : 0);
    return n >= 2 && share > 0 ? tQuantile(1 - share, n - 1) : Number.POSITIVE_INFINITY;
  });
}

/** The share of simulated gates with `maxTrials` pairs at most that reach a pass or a fail. */
function decidedShare(
  change: number,
  sd: number,
  margins: { tolerance: number; floor: number },
  trials: number,
  maxTrials: number,
  alpha: BoundaryErrors,
): number {
  const looks = looksOf(trials, maxTrials, 2);
  const passCritical = unionCritical(looks, alpha.pass);
  const failCritical = unionCritical(looks, alpha.fail);
  const rng = new Rng(
    mixSeeds(0xad71ce, maxTrials, Math.round(change * 1e6), Math.round(sd * 1e6)),
  );
  let decided = 0;
  for (let g = 0; g < SIMULATIONS; g++) {
    let sum = 0;
    let squares = 0;
    let look = 0;
    for (let i = 1; i <= maxTrials && look < looks.length; i++) {
      const d = change + sd * rng.normal();
      sum += d;
      squares += d * d;
      if (i !== looks[look]) continue;
      const mean = sum / i;
      const se = Math.sqrt(Math.max(0, (squares - i * mean * mean) / (i - 1)) / i);
      const [pass, fail] = [passCritical[look] ?? Infinity, failCritical[look] ?? Infinity];
      look++;
      if (
        mean + pass * se < margins.tolerance ||
        (mean > margins.tolerance && mean - fail * se > margins.floor)
      ) {
        decided++;
        break;
      }
    }
  }
  return decided / SIMULATIONS;
}

/**
 * The max-trials that would give an even and a four-in-five chance to decide a
 * metric whose pairs showed `change` (on the scale of d) with spread `sd`.
 */
export function pairsToDecide(
  change: number,
  sd: number | null,
  margins: { tolerance: number; floor: number },
  trials: number,
  alpha: BoundaryErrors,
): PairsAdvice {
  const advice: PairsAdvice = { even: null, likely: null };
  if (sd === null || !(sd > 0)) return advice;
  for (
    let n = trials + 2;
    n <= MAX_ADVISED_PAIRS;
    n = Math.min(MAX_ADVISED_PAIRS + 1, n + Math.max(2, Math.round(n / 4)))
  ) {
    const share = decidedShare(change, sd, margins, trials, n, alpha);
    if (advice.even === null && share >= 0.5) advice.even = n;
    if (share >= 0.8) {
      advice.likely = n;
      break;
    }
  }
  return advice;
}
