// The guards a run's trials raise (common/guard.ts says what a guard is):
// invalid trials, a broken baseline, quota refusals, too few ok requests, no
// samples of a gated metric, arms that ran different workloads.

import { ARMS } from "../common/arms.ts";
import { percent } from "../common/format.ts";
import type { Guard } from "../common/guard.ts";
import { type Failure, failureWords, type Outcome } from "../common/outcomes.ts";
import type { PercentileKey } from "../common/percentiles.ts";
import { metricReading } from "./gated.ts";
import type { MetricSpec } from "./metric.ts";
import { armFailures, examplesOf } from "./reliability.ts";
import { type TrialEntry, trialName } from "./trials.ts";

export interface GuardLimits {
  percentile: PercentileKey;
  /** The baseline's failure rate beyond which it is no reference (and the quota limit). */
  maxErrorRate: number;
  minOkRequests: number;
  /** Classes that do not count as the server's failures. */
  exclude: Outcome[];
}

/** "the baseline itself answered 20.0 % of requests with HTTP 500", from its commonest failure. */
function baselineWords(
  trials: readonly TrialEntry[],
  classes: Partial<Record<Outcome, number>>,
  counted: number,
): string {
  const [worst, count] = Object.entries(classes).sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0))[0] ?? [];
  const total = Object.values(classes).reduce((s, n) => s + (n ?? 0), 0);
  if (!worst || !count) return "the baseline itself failed its requests";
  const example = examplesOf(trials.filter((t) => t.arm === "baseline"))[worst as Outcome];
  const words = failureWords(worst as Failure, count / counted, example);
  return count === total
    ? `the baseline itself ${words}`
    : `the baseline itself failed ${percent(total / counted)} of its requests; it ${words}`;
}

const classList = (classes: Partial<Record<Outcome, number>>) =>
  Object.entries(classes)
    .map(([o, c]) => `${o} ${c}`)
    .join(", ");

export function guardsFor(
  limits: GuardLimits,
  trials: readonly TrialEntry[],
  specs: readonly MetricSpec[],
): Guard[] {
  const guards: Guard[] = [];
  for (const t of trials) {
    const where = { arm: t.arm, pair: t.pair };
    const scope = t.arm === "candidate" ? ("candidate" as const) : ("measurement" as const);
    const { validity, outcomes } = t.report;
    if (!validity.valid) {
      guards.push({
        code: "invalid_trial",
        message: `${trialName(t)}: invalid measurement: ${validity.reasons.join("; ")}`,
        ...where,
      });
    }
    if (outcomes.ok < limits.minOkRequests) {
      guards.push({
        code: "few_ok_requests",
        message: `${trialName(t)}: only ${outcomes.ok} ok requests (at least ${limits.minOkRequests} needed, min-ok-requests)`,
        scope,
        ...where,
      });
    }
    for (const spec of specs) {
      if (metricReading(spec.id, t.report, limits.percentile) === undefined) {
        guards.push({
          code: "no_samples",
          message: `${trialName(t)}: no ${spec.label} samples (are outputs a single token?)`,
          scope,
          ...where,
        });
      }
    }
  }
  const base = armFailures(
    trials.filter((t) => t.arm === "baseline"),
    limits.exclude,
  );
  if (base.counted > 0 && base.rate > limits.maxErrorRate) {
    const classes = { ...base.by_class };
    for (const o of limits.exclude) delete classes[o];
    guards.push({
      code: "baseline_failures",
      message: `${baselineWords(trials, classes, base.counted)} (limit max-error-rate ${percent(limits.maxErrorRate)}; ${classList(classes)}): the reference is broken, so nothing can be compared`,
      arm: "baseline",
      classes,
    });
  }
  for (const arm of ARMS) {
    const mine = trials.filter((t) => t.arm === arm);
    const scheduled = mine.reduce((s, t) => s + t.report.scheduled, 0);
    const quota = mine.reduce((s, t) => s + t.report.outcomes.rate_limited_quota, 0);
    if (scheduled > 0 && quota / scheduled > limits.maxErrorRate) {
      guards.push({
        code: "quota",
        message: `${arm}: ${percent(quota / scheduled)} of requests were refused by the API quota (429 with quota evidence; limit max-error-rate ${percent(limits.maxErrorRate)}): the caller's limit, not the server's — raise the quota or lower the rate`,
        arm,
        classes: { rate_limited_quota: quota },
      });
    }
  }
  for (const pair of new Set(trials.map((t) => t.pair))) {
    const [a, b] = trials.filter((t) => t.pair === pair);
    const fa = a?.report.workload.fingerprint;
    const fb = b?.report.workload.fingerprint;
    if (fa !== undefined && fb !== undefined && fa !== fb) {
      guards.push({
        code: "workload_mismatch",
        message: `pair ${pair + 1}: the arms ran different workloads (fingerprints ${fa} and ${fb})`,
        pair,
      });
    }
  }
  return guards;
}
