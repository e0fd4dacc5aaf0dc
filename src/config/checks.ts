// The settings that judge a measurement: the self-check limits of each trial
// (what the client's own lateness may do to the numbers), and when an
// endpoint counts as failing (its failure-rate limit, and what is not its
// failure).

import { OUTCOMES, type Outcome } from "../common/outcomes.ts";
import type { PercentileKey } from "../common/percentiles.ts";
import type { SelfCheckLimits } from "../metrics/validity.ts";
import { given, optionalNumber, type RawSettings, readList, readNumber } from "./settings.ts";
import { parseFraction } from "./values.ts";

/** What the self-checks look at, from the gate: its percentile and a quarter of its TTFT tolerance. */
export interface CheckDefaults {
  percentile: PercentileKey;
  maxSkewEffect: number;
}

export const MEASURE_CHECKS: CheckDefaults = { percentile: "p95", maxSkewEffect: 0.025 };

export function parseLimits(raw: RawSettings, checks: CheckDefaults): SelfCheckLimits {
  const skewEffect = given(raw, "max-skew-effect");
  return {
    percentile: checks.percentile,
    maxSkewEffect:
      skewEffect === undefined
        ? checks.maxSkewEffect
        : parseFraction("max-skew-effect", skewEffect),
    maxOfferedDrift: readNumber(raw, "max-offered-drift"),
    maxLateSends: optionalNumber(raw, "max-late-sends"),
    maxUnsent: readNumber(raw, "max-unsent"),
    maxEventLoopDelayP99Ms: readNumber(raw, "max-event-loop-delay-ms"),
    maxClientCpu: readNumber(raw, "max-client-cpu"),
    maxSendSkewP99Ms: optionalNumber(raw, "max-send-skew-ms"),
    maxGcShare: optionalNumber(raw, "max-gc-share"),
  };
}

/** reliability-exclude: failure classes that are not the server's fault ("none" for none). */
export function parseOutcomeList(raw: RawSettings): Outcome[] {
  const classes = OUTCOMES.filter((o) => o !== "ok");
  const listed = readList(raw, "reliability-exclude", [...classes, "none"]);
  return listed.filter((o): o is (typeof classes)[number] => o !== "none");
}

/** When an endpoint counts as failing: its failure rate limit and what is not its failure. */
export function parseFailureLimit(raw: RawSettings): { maxErrorRate: number; exclude: Outcome[] } {
  return {
    maxErrorRate: readNumber(raw, "max-error-rate"),
    exclude: parseOutcomeList(raw),
  };
}
