// How many pairs would decide a metric that is still inconclusive, from the
// noise the run saw: the fewest n whose one-sided t bound, with this spread of
// the per-pair log changes, resolves the distance the rule must tell apart.

import { MAX_ADVISED_PAIRS } from "../common/advice.ts";
import { tQuantile } from "./tdist.ts";

/**
 * The fewest pairs n with t(confidence, n − 1) · sdLog / √n ≤ marginLog; null
 * when no n up to MAX_ADVISED_PAIRS does, or the spread is unknown.
 */
export function pairsToDecide(
  sdLog: number | null,
  marginLog: number,
  confidence: number,
): number | null {
  if (sdLog === null || !(marginLog > 0)) return null;
  for (let n = 2; n <= MAX_ADVISED_PAIRS; n++) {
    if (tQuantile(confidence, n - 1) * (sdLog / Math.sqrt(n)) <= marginLog) return n;
  }
  return null;
}
