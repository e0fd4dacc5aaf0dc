// Fisher's exact test, one-sided, for two proportions: are the candidate's
// failures more frequent than the baseline's? Conditional on the total number
// of failures, the candidate's count is hypergeometric under "no difference".

import { logGamma } from "./tdist.ts";

const logChoose = (n: number, k: number) => logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);

/**
 * P(X ≥ failed2) where X is the number of failures that fall in group 2 when
 * failed1 + failed2 failures are spread over n1 + n2 requests at random.
 */
export function fisherOneSided(failed1: number, n1: number, failed2: number, n2: number): number {
  const total = failed1 + failed2;
  const n = n1 + n2;
  if (total === 0 || n2 === 0 || n1 === 0) return 1;
  const denominator = logChoose(n, n2);
  let p = 0;
  for (let x = failed2; x <= Math.min(total, n2); x++) {
    if (total - x > n1) continue;
    p += Math.exp(logChoose(total, x) + logChoose(n - total, n2 - x) - denominator);
  }
  return Math.min(1, p);
}
