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
  const about = open.filter((c) => c.status === "futile" || c.status === "censored");
  const first = about[0];
  if (first && about.length === open.length) {
    return first.status === "censored"
      ? `${first.label} fell among timeouts on both arms: raise \`timeout\`, or gate a lower \`percentile\``
      : `${about.map((x) => x.label).join(", ")} changed by about the tolerance itself: more pairs would only narrow the interval around it — decide whether ${limitText(first)} is the line you mean`;
  }
  const advised = open.filter((c) => c.advice);
  const hopeless = advised.filter((c) => c.advice?.even === null);
  if (hopeless.length > 0) {
    const names = hopeless.map((c) => c.label).join(", ");
    return `the pairs disagree too much for more of them to help (${names} would need over ${MAX_ADVISED_PAIRS}): steady the measurement first — longer trials (\`duration\`), a \`cooldown\` between trials, runners no other job shares`;
  }
  const worst = advised.reduce<(typeof advised)[number] | undefined>(
    (a, b) => ((b.advice?.even ?? 0) > (a?.advice?.even ?? 0) ? b : a),
    undefined,
  );
  if (!worst?.advice?.even) return null;
  const { even, likely } = worst.advice;
  const range = likely === null ? `${even} or more` : `${even}–${likely}`;
  return `add pairs: with the noise and the change this run saw, \`max-trials\` ${range} gives ${worst.label} ${likely === null ? "an even" : "an even to a four-in-five"} chance to decide against ${limitText(worst)} (this run had ${plural(r.pairs, "pair")})`;
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
