// The rate limits the servers announced (x-ratelimit-*), per arm over its
// trials: the limit and the fewest remaining seen, so a reviewer sees how
// close a run came to a quota before any 429.

import { ARMS, type Arm } from "../common/arms.ts";
import type { RateLimitDimension } from "../metrics/rate-limits.ts";
import type { GateResults } from "../results/model.ts";

/** "90,000 tokens (resets 60s), as few as 5,000 left": the headers name no period, the reset hints it. */
function dimensionText(d: RateLimitDimension, per: string): string | null {
  if (d.limit === null && d.remaining_min === null) return null;
  const reset = d.reset ? ` (resets ${d.reset.replace(/[^\w.]/g, "")})` : "";
  const limit = d.limit === null ? "" : `${d.limit.toLocaleString("en-US")} ${per}${reset}`;
  const left =
    d.remaining_min === null ? "" : `as few as ${d.remaining_min.toLocaleString("en-US")} left`;
  return [limit, left].filter(Boolean).join(", ");
}

function armText(r: GateResults, arm: Arm): string | null {
  const seen = r.trials.filter((t) => t.arm === arm).map((t) => t.report.rate_limits ?? null);
  const none = (): RateLimitDimension => ({ limit: null, remaining_min: null, reset: null });
  const merged = { requests: none(), tokens: none() };
  let retryAfter = 0;
  for (const s of seen) {
    if (!s) continue;
    retryAfter += s.retry_after;
    for (const dim of ["requests", "tokens"] as const) {
      const m = merged[dim];
      m.limit = s[dim].limit ?? m.limit;
      m.reset = s[dim].reset ?? m.reset;
      const rem = s[dim].remaining_min;
      if (rem !== null) m.remaining_min = Math.min(rem, m.remaining_min ?? rem);
    }
  }
  const parts = [
    dimensionText(merged.requests, "requests"),
    dimensionText(merged.tokens, "tokens"),
  ].filter(Boolean);
  if (parts.length === 0 && retryAfter === 0) return null;
  return `${arm} ${parts.join("; ") || "no limits"}${retryAfter > 0 ? ` (${retryAfter} answers said when to retry)` : ""}`;
}

/** "Rate limits announced (x-ratelimit-*): baseline 60 requests/min, as few as 3 left; candidate …", or "". */
export function rateLimitsLine(r: GateResults): string {
  const arms = ARMS.map((a) => armText(r, a)).filter(Boolean);
  return arms.length === 0
    ? ""
    : `Rate limits the servers announced (x-ratelimit-*): ${arms.join("; ")}.`;
}
