// What one surge trial shows, read from its timeline: how long the server took
// to recover after the surge, what it failed meanwhile and how (a fast 503 or
// 429 sheds load; a timeout queues it), and how deep its queue grew. Pure: the
// timeline in, the reading out.

import { OUTCOMES, type Outcome } from "../common/outcomes.ts";
import type { TimelineBucket, TrialTimeline } from "../metrics/timeline.ts";

/** Where the surge sits in its trial, seconds from the trial's start (the warm-up's start). */
export interface SurgeSpan {
  /** The surge's start: the warm-up and the steady load before it. */
  startS: number;
  /** Its end: the steady load after it begins. */
  endS: number;
  /** The schedule's end (what ends later falls in the timeline's last bucket). */
  scheduleEndS: number;
  /** The steady window before the surge begins here (after the warm-up). */
  steadyFromS: number;
}

/** Consecutive buckets that must be back within the target: one good second is not a recovery. */
export const SETTLED_BUCKETS = 3;
/** A per-second p95 this far above the steady level is still the surge's (no SLO set). */
export const LEVEL_SLACK = 0.1;
/** The steady level: this percentile of the steady seconds' p95 TTFTs (their own noise included). */
const LEVEL_PERCENTILE = 90;
/** Refusals that shed load at once rather than queue it. */
const SHED: readonly Outcome[] = ["overloaded", "rate_limited", "rate_limited_quota"];

export interface SurgeReading {
  /** Seconds from the surge's end until SETTLED_BUCKETS buckets in a row were within the target; censored: never, the window's length. */
  recovery_s: number | null;
  recovery_censored: boolean;
  /** The p95 TTFT a recovered second keeps within (ms); null: no steady second to set it. */
  target_ttft_ms: number | null;
  target_from: "slo" | "steady";
  /** The steady level before the surge (ms). */
  steady_ttft_p95_ms: number | null;
  /** Requests due from the surge's start on, and those of them that failed (by the class), ended from then on. */
  scheduled: number;
  failed: number;
  /** Of the requests due from the surge's start on: those not good — failed, or ok but beyond the SLO (goodput attainment); absent in older files. */
  unmet?: number;
  failed_by_class: Partial<Record<Outcome, number>>;
  /** Of the failed: refused at once (503, 529, 429) — load shed — and timed out — load queued. */
  shed: number;
  timed_out: number;
  /** The server's deepest queue from the surge's start on (its gauge); null: not scraped. */
  peak_waiting: number | null;
  /** The bucket width: the recovery's resolution, seconds. */
  resolution_s: number;
}

/** Nearest-rank percentile (0–100) of non-empty values. */
function nearestRank(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length - 1e-9));
  return sorted[rank - 1] ?? Number.NaN;
}

const failuresIn = (b: TimelineBucket, but: readonly Outcome[] = []) =>
  OUTCOMES.reduce((sum, o) => sum + (but.includes(o) ? 0 : (b.failed[o] ?? 0)), 0);

/** The p95 TTFT a recovered second keeps within: the SLO when the steady load met it, else the steady level + 10 %. */
function targetOf(
  steady: readonly TimelineBucket[],
  sloTtftMs: number | undefined,
): Pick<SurgeReading, "target_ttft_ms" | "target_from" | "steady_ttft_p95_ms"> {
  const p95s = steady.flatMap((b) => (b.ttft_p95_ms === null ? [] : [b.ttft_p95_ms]));
  if (p95s.length === 0)
    return { target_ttft_ms: null, target_from: "steady", steady_ttft_p95_ms: null };
  const level = nearestRank(p95s, LEVEL_PERCENTILE);
  if (sloTtftMs !== undefined && level <= sloTtftMs)
    return { target_ttft_ms: sloTtftMs, target_from: "slo", steady_ttft_p95_ms: level };
  return {
    target_ttft_ms: level * (1 + LEVEL_SLACK),
    target_from: "steady",
    steady_ttft_p95_ms: level,
  };
}

/**
 * Seconds from the surge's end to the first of SETTLED_BUCKETS buckets in a row
 * whose requests' p95 TTFT is within the target and where nothing failed but
 * timeouts (a timeout ends a timeout later: it is its own due second's, which
 * has no TTFT from it); censored at the schedule's end.
 */
function recoveryOf(
  after: readonly TimelineBucket[],
  span: SurgeSpan,
  targetMs: number,
): { recovery_s: number; recovery_censored: boolean } {
  const good = (b: TimelineBucket | undefined) =>
    b !== undefined &&
    b.ttft_p95_ms !== null &&
    b.ttft_p95_ms <= targetMs &&
    failuresIn(b, ["censored"]) === 0;
  for (let i = 0; i + SETTLED_BUCKETS <= after.length; i++) {
    if (after.slice(i, i + SETTLED_BUCKETS).every(good))
      return {
        recovery_s: Math.max(0, (after[i]?.t_s ?? 0) - span.endS),
        recovery_censored: false,
      };
  }
  return { recovery_s: span.scheduleEndS - span.endS, recovery_censored: true };
}

/** The surge trial's reading: its recovery, its failures from the surge on, its queue. */
export function readSurge(
  timeline: TrialTimeline,
  span: SurgeSpan,
  sloTtftMs: number | undefined,
): SurgeReading {
  const w = timeline.bucket_s;
  const buckets = timeline.buckets;
  const steady = buckets.filter((b) => b.t_s >= span.steadyFromS && b.t_s + w <= span.startS);
  const after = buckets.filter((b) => b.t_s >= span.endS && b.t_s + w <= span.scheduleEndS);
  // The bucket the surge starts in is the surge's: its failures are.
  const from = buckets.filter((b) => b.t_s + w > span.startS);
  const target = targetOf(steady, sloTtftMs);
  const failedByClass: Partial<Record<Outcome, number>> = {};
  for (const b of from)
    for (const o of OUTCOMES) {
      const n = b.failed[o];
      if (n) failedByClass[o] = (failedByClass[o] ?? 0) + n;
    }
  const count = (classes: readonly Outcome[]) =>
    classes.reduce((s, o) => s + (failedByClass[o] ?? 0), 0);
  const waiting = from.flatMap((b) => (typeof b.waiting === "number" ? [b.waiting] : []));
  const recovery =
    target.target_ttft_ms === null
      ? { recovery_s: null, recovery_censored: false }
      : recoveryOf(after, span, target.target_ttft_ms);
  return {
    ...recovery,
    ...target,
    scheduled: from.reduce((s, b) => s + b.offered, 0),
    failed: from.reduce((s, b) => s + failuresIn(b), 0),
    // Queued past the SLO and shed at once are one loss to the user: goodput's, by due time.
    unmet: from.reduce(
      (s, b) => s + (b.good === undefined ? failuresIn(b) : Math.max(0, b.offered - b.good)),
      0,
    ),
    failed_by_class: failedByClass,
    shed: count(SHED),
    timed_out: count(["censored"]),
    peak_waiting: waiting.length > 0 ? Math.max(...waiting) : null,
    resolution_s: w,
  };
}
