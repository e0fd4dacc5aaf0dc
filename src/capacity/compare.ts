// The capacity change between two swept arms. Each capacity is only known
// to lie between its arm's last passing and first failing rate, so the change
// is bounded by those brackets: a regression is called only when even the
// most favourable reading of both brackets is a drop beyond the tolerance,
// and a drop smaller than the sweep's resolution never is.

import { percent, signedPercent } from "../common/format.ts";
import type { CapacityEstimate } from "./estimate.ts";

export interface CapacityComparison {
  baseline_per_s: number | null;
  candidate_per_s: number | null;
  /** candidate ÷ baseline − 1; null when either is unknown. */
  change: number | null;
  /** The change the brackets allow, at least and at most (null: unbounded). */
  change_low: number | null;
  change_high: number | null;
  /** The tolerated drop: max-capacity-drop, or the resolution if that is larger. */
  max_drop: number;
  verdict: "pass" | "regressed" | "inconclusive";
  /** Why, in words. */
  reason: string;
}

export function compareCapacity(
  baseline: CapacityEstimate,
  candidate: CapacityEstimate,
  maxCapacityDrop: number,
  resolution: number,
): CapacityComparison {
  const maxDrop = Math.max(maxCapacityDrop, resolution);
  const b = baseline.capacity_per_s;
  const c = candidate.capacity_per_s;
  const base = {
    baseline_per_s: b,
    candidate_per_s: c,
    change: b !== null && c !== null && b > 0 ? c / b - 1 : null,
    max_drop: maxDrop,
  };
  if (b === null || baseline.pass_per_s === null) {
    return {
      ...base,
      change_low: null,
      change_high: null,
      verdict: "inconclusive",
      reason: "the baseline met its SLO at no rate tried, so there is no capacity to compare with",
    };
  }
  // Most favourable: the candidate at its first failing rate, the baseline at its last passing one.
  // A failing rate the client may have set (its trial failed its self-checks) bounds nothing above.
  const bLo = baseline.pass_per_s;
  const bHi = baseline.client_limited ? null : baseline.fail_per_s;
  const cLo = candidate.pass_per_s ?? 0;
  const cHi = candidate.client_limited ? null : candidate.fail_per_s;
  const high = cHi === null ? null : cHi / bLo - 1;
  const low = bHi === null ? null : cLo / bHi - 1;
  const bounds = { change_low: low, change_high: high };
  const range = `${low === null ? "?" : signedPercent(low)} … ${high === null ? "?" : signedPercent(high)}`;
  if (high !== null && high < -maxDrop) {
    return {
      ...bounds,
      ...base,
      verdict: "regressed",
      reason: `capacity dropped by more than ${percent(maxDrop)}: the candidate failed its SLO at ${cHi} req/s, where the baseline met it up to ${bLo} req/s (change ${range})`,
    };
  }
  if (low !== null && low >= -maxDrop) {
    return {
      ...bounds,
      ...base,
      verdict: "pass",
      reason: `no capacity drop beyond ${percent(maxDrop)} (change ${range})`,
    };
  }
  return {
    ...bounds,
    ...base,
    verdict: "inconclusive",
    reason:
      clientKnees(baseline, candidate) ??
      (bHi === null
        ? "the baseline met its SLO at every rate tried, so its capacity is only known from below"
        : `the brackets allow a drop beyond ${percent(maxDrop)} but do not show one (change ${range})`),
  };
}

/** The knees the client may have set, in words; null when both failing rates were the servers'. */
function clientKnees(baseline: CapacityEstimate, candidate: CapacityEstimate): string | null {
  const said = [
    baseline.client_limited ? `the baseline's knee ${baseline.client_limited}` : null,
    candidate.client_limited ? `the candidate's knee ${candidate.client_limited}` : null,
  ].filter((x): x is string => x !== null);
  if (said.length === 0) return null;
  return `the knee may be the client's, not the server's — ${said.join("; ")}: such a rate bounds no capacity from above, so the capacities cannot be compared there; run where the load generator has idle cores (or with more workers)`;
}
