// What one scaling trial shows, read from its timeline: when the replicas
// came after the step (and when a new one first answered), what the load
// lost to the SLO until the scale-up completed, how often the count turned
// while the load hovered, and what scaling in cut. Pure: the timeline in,
// the reading out.

import type { Outcome } from "../common/outcomes.ts";
import type { TimelineBucket, TrialTimeline } from "../metrics/timeline.ts";

/** Where the phases sit in a scaling trial, seconds from its start (the warm-up's start). */
export interface ScalingSpan {
  /** The steady load before the step begins here (after the warm-up). */
  steadyFromS: number;
  /** The step up, the step down, the hover's start, the schedule's end. */
  stepS: number;
  downS: number;
  hoverS: number;
  endS: number;
}

/** A stream ended without its end: cut (or never connected) while a replica went away. */
export const CUT_OUTCOMES: readonly Outcome[] = ["truncated", "connect_error"];

export interface ScalingReading {
  /** The replica count at the step, and the most it reached before the step down; null: no count. */
  start_replicas: number | null;
  peak_replicas: number | null;
  /** Seconds from the step to the first added replica; censored: none before the step down (its length). */
  reaction_s: number | null;
  reaction_censored: boolean;
  /** Seconds from the step to the scale-up's end (the peak first reached); null: no count. */
  scaled_s: number | null;
  /** A replica that had not answered before the step: when it first answered (s from the step), and that answer's TTFT (its cold start under load); null: no replica header, or none. */
  served_s: number | null;
  served_ttft_ms: number | null;
  /** Requests due from the step until the scale-up completed, and those of them not good (failed or missed the SLO). */
  scheduled: number;
  unmet: number;
  /** Turns of the replica count while the load hovered (up then down, or down then up), and per 10 minutes. */
  flaps: number | null;
  flaps_per_10min: number | null;
  /** Times the count went down from the step down on; requests due then, and of them cut. */
  scale_ins: number | null;
  at_risk: number;
  cut: number;
  /** The bucket width: the reaction's resolution, seconds. */
  resolution_s: number;
}

/** Each bucket's replica count, the last one carried over a bucket without a sample. */
function countsOf(buckets: readonly TimelineBucket[]): (number | null)[] {
  let last: number | null = null;
  return buckets.map((b) => {
    if (typeof b.replicas === "number") last = b.replicas;
    return last;
  });
}

/** Turns of direction in a series of counts: 2 → 3 → 2 is one, 2 → 3 → 4 none. */
export function turnsOf(counts: readonly number[]): number {
  let turns = 0;
  let direction = 0;
  for (let i = 1; i < counts.length; i++) {
    const step = Math.sign((counts[i] ?? 0) - (counts[i - 1] ?? 0));
    if (step === 0) continue;
    if (direction !== 0 && step !== direction) turns++;
    direction = step;
  }
  return turns;
}

const sum = (bs: readonly TimelineBucket[], f: (b: TimelineBucket) => number) =>
  bs.reduce((s, b) => s + f(b), 0);

/** Requests due in the bucket that were not good: every one but the ok ones that met the SLO. */
const unmetIn = (b: TimelineBucket) => Math.max(0, b.offered - (b.good ?? b.offered));

/** The first answer of a replica that had not answered before the step. */
function firstNewServed(timeline: TrialTimeline, span: ScalingSpan) {
  const first = timeline.first_served;
  if (!first) return { served_s: null, served_ttft_ms: null };
  const fresh = first.find((f) => f.t_s >= span.stepS && f.t_s < span.downS);
  return fresh
    ? { served_s: fresh.t_s - span.stepS, served_ttft_ms: fresh.ttft_ms }
    : { served_s: null, served_ttft_ms: null };
}

/** The scaling trial's reading from its timeline. */
export function readScaling(timeline: TrialTimeline, span: ScalingSpan): ScalingReading {
  const w = timeline.bucket_s;
  const buckets = timeline.buckets;
  const counts = countsOf(buckets);
  const at = (i: number) => counts[i] ?? null;
  const inPhase = (fromS: number, toS: number) =>
    buckets.flatMap((b, i) => (b.t_s >= fromS && b.t_s < toS ? [i] : []));
  const before = inPhase(0, span.stepS);
  const hold = inPhase(span.stepS, span.downS);
  const start = before.length > 0 ? at(before[before.length - 1] ?? -1) : null;
  const holdCounts = hold.map(at).filter((c): c is number => c !== null);
  const peak = holdCounts.length > 0 ? Math.max(...holdCounts) : null;
  const added = start === null ? undefined : hold.find((i) => (at(i) ?? 0) > start);
  const complete = peak === null ? undefined : hold.find((i) => at(i) === peak);
  const tOf = (i: number | undefined) => (i === undefined ? null : (buckets[i]?.t_s ?? 0));
  const reactionT = tOf(added);
  const scaledT = start !== null && peak !== null && peak > start ? tOf(complete) : null;
  // Until the scale-up completed; without one, the whole hold.
  const overload = buckets.filter(
    (b) => b.t_s + w > span.stepS && b.t_s < (scaledT === null ? span.downS : scaledT + w),
  );
  const hover = inPhase(span.hoverS, span.endS)
    .map(at)
    .filter((c): c is number => c !== null);
  const after = inPhase(span.downS, span.endS);
  const atDown = hold.length > 0 ? at(hold[hold.length - 1] ?? -1) : start;
  const afterCounts = [atDown, ...after.map(at)].filter((c): c is number => c !== null);
  const tail = buckets.filter((b) => b.t_s + w > span.downS);
  const hoverLengthS = span.endS - span.hoverS;
  const flaps = start === null || hover.length === 0 ? null : turnsOf(hover);
  return {
    start_replicas: start,
    peak_replicas: peak,
    reaction_s:
      start === null
        ? null
        : reactionT === null
          ? span.downS - span.stepS
          : Math.max(0, reactionT - span.stepS),
    reaction_censored: start !== null && reactionT === null,
    scaled_s: scaledT === null ? null : Math.max(0, scaledT - span.stepS),
    ...firstNewServed(timeline, span),
    scheduled: sum(overload, (b) => b.offered),
    unmet: sum(overload, unmetIn),
    flaps,
    flaps_per_10min: flaps === null ? null : (flaps * 600) / hoverLengthS,
    scale_ins:
      start === null
        ? null
        : afterCounts.slice(1).filter((c, i) => c < (afterCounts[i] ?? c)).length,
    at_risk: sum(tail, (b) => b.offered),
    cut: sum(tail, (b) => CUT_OUTCOMES.reduce((s, o) => s + (b.failed[o] ?? 0), 0)),
    resolution_s: w,
  };
}
