// The quality rule's statistics: the exact one-sided McNemar test (computed in
// log space, so a thousand discordant cases are no overflow), when a check
// kind fails, and the quality verdict from a report's counts.

export interface QualityRule {
  alpha: number;
  /** (b − c)/n needed with a significant test. */
  minEffect: number;
  /** (b − c)/n that fails with p ≤ 2α (tiny suites, where p ≤ α needs five flips). */
  largeEffect: number;
  /** Re-runs, on both arms, of a case that differs between them in the first run. */
  confirmReruns: number;
}

/** The counts of one check kind: cases, newly failing (b), newly passing (c). */
interface KindCounts {
  n: number;
  b: number;
  c: number;
}

/** What the verdict is made of. */
interface Findings {
  kinds: readonly KindCounts[];
  strict: readonly { confirmed: boolean }[];
  agreement: { gated: boolean; differing: readonly string[] };
}

/** ln C(n, k) by summing logs (exact enough for counts of cases). */
function logChoose(n: number, k: number): number {
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log((n - k + i) / i);
  return s;
}

/** P(X ≥ b) for X ~ Binomial(b + c, 1/2): the exact one-sided McNemar test, term by term in logs. */
export function mcnemarOneSided(b: number, c: number): number {
  const n = b + c;
  if (n === 0 || b <= 0) return 1;
  let logTerm = logChoose(n, b) - n * Math.LN2;
  let p = 0;
  for (let k = b; k <= n; k++) {
    p += Math.exp(logTerm);
    logTerm += Math.log((n - k) / (k + 1));
  }
  return Math.min(1, p);
}

/**
 * A check kind newly failing on the candidate: significantly (p ≤ α) and by at
 * least the effect floor, or by the large-effect floor with p ≤ 2α — never on
 * a difference the test calls chance (two flips of eleven are p = 0.25).
 */
export function kindFails(k: KindCounts, rule: QualityRule): boolean {
  const effect = k.n > 0 ? (k.b - k.c) / k.n : 0;
  const p = mcnemarOneSided(k.b, k.c);
  return (
    (p <= rule.alpha && effect >= rule.minEffect) ||
    (p <= 2 * rule.alpha && effect >= rule.largeEffect)
  );
}

/** The quality verdict from a report's counts and confirmed strict failures (not its own verdict). */
export function qualityVerdictOf(q: Findings, rule: QualityRule): "pass" | "fail" {
  const gatedDisagreement = q.agreement.gated && q.agreement.differing.length > 0;
  const kindFailed = q.kinds.some((k) => kindFails(k, rule));
  return kindFailed || gatedDisagreement || q.strict.some((c) => c.confirmed) ? "fail" : "pass";
}
