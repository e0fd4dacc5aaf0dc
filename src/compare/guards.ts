// Guards: reasons the measurement cannot be trusted as it is, so that no
// performance verdict is given. Each is structured (a code, the arm and pair
// it concerns, the numbers) and carries its words.

import { ARMS, type Arm } from "../common/arms.ts";
import { percent } from "../common/format.ts";
import { OUTCOMES, type Outcome } from "../load/record.ts";
import type { PercentileKey } from "../metrics/histogram.ts";
import type { MetricSpec } from "./decide.ts";
import { metricValue } from "./gated.ts";
import { type TrialEntry, trialName } from "./trials.ts";

export type GuardCode =
  | "invalid_trial"
  | "few_ok_requests"
  | "no_samples"
  | "error_rate"
  | "workload_mismatch"
  | "server"
  | "configuration";

export interface Guard {
  code: GuardCode;
  /** One line, in words. */
  message: string;
  /** Further lines (a server's log tail), shown apart from the message. */
  detail?: string;
  arm?: Arm;
  /** 0-based pair number. */
  pair?: number;
  /** Failed requests by class (error_rate). */
  classes?: Partial<Record<Outcome, number>>;
}

export interface GuardLimits {
  percentile: PercentileKey;
  maxErrorRate: number;
  minOkRequests: number;
}

export function guardsFor(
  limits: GuardLimits,
  trials: readonly TrialEntry[],
  specs: readonly MetricSpec[],
): Guard[] {
  const guards: Guard[] = [];
  for (const t of trials) {
    const where = { arm: t.arm, pair: t.pair };
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
        message: `${trialName(t)}: only ${outcomes.ok} ok requests (at least ${limits.minOkRequests} needed)`,
        ...where,
      });
    }
    for (const spec of specs) {
      if (metricValue(spec.id, t.report, limits.percentile) === undefined) {
        guards.push({
          code: "no_samples",
          message: `${trialName(t)}: no ${spec.label} samples (are outputs a single token?)`,
          ...where,
        });
      }
    }
  }
  for (const arm of ARMS) {
    const mine = trials.filter((t) => t.arm === arm);
    const scheduled = mine.reduce((s, t) => s + t.report.scheduled, 0);
    const failed = mine.reduce((s, t) => s + t.report.scheduled - t.report.outcomes.ok, 0);
    if (scheduled > 0 && failed / scheduled > limits.maxErrorRate) {
      const classes: Partial<Record<Outcome, number>> = {};
      for (const o of OUTCOMES) {
        const count = mine.reduce((s, t) => s + t.report.outcomes[o], 0);
        if (o !== "ok" && count > 0) classes[o] = count;
      }
      const list = Object.entries(classes)
        .map(([o, c]) => `${o} ${c}`)
        .join(", ");
      guards.push({
        code: "error_rate",
        message: `${arm}: ${percent(failed / scheduled)} of requests failed (limit ${percent(limits.maxErrorRate)}): ${list}`,
        arm,
        classes,
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
