// One point of a rate sweep: the measurement it asks for, and what it says
// about the SLO. A point passes when its trial is valid and at least
// min-attainment of its scheduled requests met the SLO.

import type { TrialOptions, TrialReport } from "../trial/measure.ts";

/**
 * - synchronous: one request at a time (the unloaded latency)
 * - offline: all at once (the maximum throughput, no latency bound)
 * - rate: an open-loop rate of the sweep's grid
 * - refine: an open-loop rate between an arm's last passing and first failing rate
 */
export type SweepPhase = "synchronous" | "offline" | "rate" | "refine";

export interface SweepSettings {
  /** The open-loop points' arrival process. */
  arrival: "poisson" | "constant";
  syncRequests: number;
  offlineRequests: number;
  /** Open-loop rates between the synchronous and the offline throughput. */
  points: number;
  /** Refinement stops once (first failing − last passing) ÷ last passing is below this. */
  resolution: number;
  /** Share of scheduled requests that must meet the SLO for a rate to pass. */
  minAttainment: number;
  /** Runs of a point again when its trial fails its self-checks. */
  maxReruns: number;
  /** Wall-clock budget of the sweep (and of the capacity gate); undefined: none. */
  maxDurationS: number | undefined;
}

/**
 * - pass: valid, attainment ≥ min-attainment
 * - fail: below it — valid, or invalid but missing it even counted from the
 *   actual sends (the client's lateness cannot explain the miss)
 * - overload: a fail below half of min-attainment or with requests cut off at
 *   the timeout: the sweep goes no higher
 * - invalid: the trial failed its self-checks and its lateness may explain
 *   the result (the client, not the server)
 * - measured: a valid synchronous or offline phase (no SLO applies to them)
 */
export type Judgement = "pass" | "fail" | "overload" | "invalid" | "measured";

export interface SweepPoint {
  phase: SweepPhase;
  /** The offered rate (req/s); null for the synchronous and offline phases. */
  rate_per_s: number | null;
  judgement: Judgement;
  report: TrialReport;
}

export function judge(report: TrialReport, minAttainment: number): Judgement {
  const attainment = report.validity.valid
    ? report.goodput.attainment
    : missedOnTime(report, minAttainment);
  if (attainment === null) return "invalid";
  if (report.outcomes.censored > 0 || attainment < minAttainment / 2) return "overload";
  return attainment >= minAttainment ? "pass" : "fail";
}

/**
 * An invalid point whose lateness cannot explain its SLO miss: counted from
 * when each request was actually sent, it still misses min-attainment — its
 * attainment so counted; null when the client's lateness may explain it (or
 * requests never went out). Bisection above the knee on a busy machine then
 * goes on instead of stopping at the first late point.
 */
function missedOnTime(report: TrialReport, minAttainment: number): number | null {
  const onTime = report.goodput.good_on_time;
  if (typeof onTime !== "number" || report.outcomes.unsent > 0 || report.scheduled === 0)
    return null;
  const attainment = onTime / report.scheduled;
  return attainment < minAttainment ? attainment : null;
}

/** The phases that run all at once: they take longer than one request's timeout. */
const BURST_TIMEOUT_FACTOR = 4;

/**
 * The prompt texts of a phase's point: its own per rate (the same for both arms
 * at a rate), apart from the paired trials' rounds (0, 1, … per pair), so no
 * point meets another's prompts in a prefix cache.
 */
function roundOf(phase: SweepPhase, ratePerS: number | null): number {
  if (phase === "synchronous") return 999_998;
  if (phase === "offline") return 999_999;
  return 1_000_000 + Math.round((ratePerS ?? 0) * 1000);
}

/** The measurement of a phase, from the arm's own settings. */
export function pointOptions(
  base: TrialOptions,
  settings: SweepSettings,
  phase: SweepPhase,
  ratePerS: number | null,
): TrialOptions {
  const workload = { ...base.workload, promptRound: roundOf(phase, ratePerS) };
  switch (phase) {
    case "synchronous":
      // One at a time: every request waits for the previous one, so each gets its own timeout.
      return {
        ...base,
        workload: {
          ...workload,
          warmupS: 0,
          arrival: { kind: "all-at-once", count: settings.syncRequests },
        },
        maxConcurrency: 1,
        timeoutS: base.timeoutS * settings.syncRequests,
      };
    case "offline":
      return {
        ...base,
        workload: {
          ...workload,
          warmupS: 0,
          arrival: { kind: "all-at-once", count: settings.offlineRequests },
        },
        timeoutS: base.timeoutS * BURST_TIMEOUT_FACTOR,
      };
    case "rate":
    case "refine":
      if (ratePerS === null) throw new Error(`internal error: a ${phase} point without a rate`);
      return {
        ...base,
        workload: { ...workload, arrival: { kind: settings.arrival, ratePerS } },
      };
  }
}

/** Rates shown and sent: three significant digits, so both arms and every reader see the same. */
export function roundRate(ratePerS: number): number {
  return Number(ratePerS.toPrecision(3));
}

/**
 * The open-loop grid: `points` rates evenly spaced above the synchronous
 * throughput, up to the offline throughput (GuideLLM's sweep).
 */
export function rateGrid(syncPerS: number, offlinePerS: number, points: number): number[] {
  const lo = Math.max(syncPerS, 0);
  const hi = offlinePerS > lo ? offlinePerS : Math.max(lo * 2, 1);
  const rates: number[] = [];
  for (let i = 1; i <= points; i++) {
    const r = roundRate(lo + ((hi - lo) * i) / points);
    if (r > 0 && !rates.includes(r)) rates.push(r);
  }
  return rates;
}

/** The highest passing open-loop rate, and the lowest rate above it that did not pass. */
export interface Bracket {
  pass: SweepPoint | undefined;
  fail: SweepPoint | undefined;
}

export function bracketOf(points: readonly SweepPoint[]): Bracket {
  const rated = (p: SweepPoint): number => p.rate_per_s ?? Number.NaN;
  const open = points
    .filter((p) => p.rate_per_s !== null && p.judgement !== "invalid")
    .sort((a, b) => rated(a) - rated(b));
  let pass: SweepPoint | undefined;
  for (const p of open) if (p.judgement === "pass") pass = p;
  const floor = pass?.rate_per_s ?? 0;
  const fail = open.find((p) => p.judgement !== "pass" && rated(p) > floor);
  return { pass, fail };
}

/** Whether the bracket is still wider than the resolution (relative to its passing end). */
export function needsRefinement(b: Bracket, resolution: number, floorPerS: number): boolean {
  if (!b.fail) return false;
  const hi = b.fail.rate_per_s ?? Number.NaN;
  const lo = b.pass?.rate_per_s ?? 0;
  // No passing rate: refine down towards the synchronous throughput, no lower.
  if (lo === 0) return hi > Math.max(floorPerS, 0) * (1 + resolution) && hi > 0.01;
  return (hi - lo) / lo > resolution;
}
