// What to do next, for a run that decided nothing: an inconclusive verdict
// names the pairs that would decide it (from the noise this run saw), an error
// names the setting or the fix.

import { MAX_ADVISED_PAIRS } from "../common/advice.ts";
import { plural } from "../common/format.ts";
import type { GuardCode } from "../common/guard.ts";
import type { GateResults } from "../results/model.ts";
import { limitText } from "./headline.ts";

function morePairs(r: GateResults): string | null {
  const open = r.comparisons.filter((c) => c.verdict === "inconclusive");
  if (open.length === 0) return null;
  const needs = open.map((c) => ({ c, n: c.pairs_to_decide }));
  const hopeless = needs.filter((x) => x.n === null);
  if (hopeless.length > 0) {
    const names = hopeless.map((x) => x.c.label).join(", ");
    return `the pairs disagree too much for more of them to help (${names} would need over ${MAX_ADVISED_PAIRS}): steady the measurement first — longer trials (\`duration\`), a \`cooldown\` between trials, runners no other job shares`;
  }
  const worst = needs.reduce((a, b) => ((b.n ?? 0) > (a.n ?? 0) ? b : a));
  const n = Math.max(worst.n ?? 0, r.pairs + 1);
  return `add pairs: with the noise this run saw, about ${plural(n, "pair")} tell ${worst.c.label} ${limitText(worst.c)} from no change — set \`max-trials: ${n}\` (this run had ${plural(r.pairs, "pair")})`;
}

/** The fix for each guard that stops a verdict, when the message does not already say it. */
const FIX: Partial<Record<GuardCode, string>> = {
  baseline_failures:
    "fix the baseline first — it is the reference; if these failures are its normal, raise `max-error-rate`",
  invalid_trial:
    "the load generator could not keep the schedule: lower `rate`, give the job a runner of its own, or raise `max-reruns`",
  few_ok_requests:
    "more ok requests per trial: a longer `duration`, a higher `rate`, or a lower `min-ok-requests`",
  no_samples: "one-token outputs have no ITL or TPOT: raise `output-len`",
  workload_mismatch:
    "both arms must run the same prompts: same `dataset`, `input-len`, `output-len` and `seed` on each",
  preflight:
    "fix the endpoint named above (URL, `model`, API key) — preflight checks each before any trial",
  server:
    "the server the gate started did not come up: its last log lines above say why; fix its start command, or raise `ready-timeout` if it is only slow",
  configuration:
    "fix the setting named above; `--help` and docs/inputs.md list every setting and what it accepts",
};

export function nextStep(r: GateResults): string | null {
  if (r.verdict === "inconclusive") {
    if (r.capacity?.stopped_by)
      return "raise `max-duration`, or lower `sweep-points`, so the sweep and the pairs fit";
    return (
      morePairs(r) ??
      (r.reliability?.verdict === "inconclusive"
        ? "more requests decide a failure-rate change: a longer `duration` or more pairs (`max-trials`)"
        : null)
    );
  }
  if (r.verdict === "cancelled")
    return "run the job again: a cancelled run decides nothing, and the next one starts its pairs afresh";
  if (r.verdict === "error") {
    const fix = r.guards.map((g) => FIX[g.code]).find(Boolean);
    return fix ?? null;
  }
  return null;
}
