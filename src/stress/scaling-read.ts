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
  /** The hover's length (s): a turn's weight per 10 minutes. */
  hover_s: number;
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

/** Requests due in [fromS, toS) and those of them not good: the SLO while scaling, over a window both arms of a pair share. */
export function sloOver(
  timeline: TrialTimeline,
  fromS: number,
  toS: number,
): Pick<ScalingReading, "scheduled" | "unmet"> {
  const w = timeline.bucket_s;
  const window = timeline.buckets.filter((b) => b.t_s + w > fromS && b.t_s < toS);
  return { scheduled: sum(window, (b) => b.offered), unmet: sum(window, unmetIn) };
}

/** The end of a pair's SLO window: the later arm's scale-up end (its bucket's end), or the step down when either has none. */
export function overloadEndS(
  span: ScalingSpan,
  bucketS: number,
  ends: readonly (number | null)[],
): number {
  if (ends.some((e) => e === null)) return span.downS;
  return Math.min(span.downS, span.stepS + Math.max(...ends.map((e) => e ?? 0)) + bucketS);
}

/** The replica count's fields when there is no count to read them from. */
const NO_COUNT = {
  start_replicas: null,
  peak_replicas: null,
  reaction_s: null,
  reaction_censored: false,
  scaled_s: null,
  flaps: null,
  flaps_per_10min: null,
  scale_ins: null,
} as const;

/** What the count shows: the reaction, the scale-up's end, the hover's turns, the scale-ins. */
function countReading(timeline: TrialTimeline, span: ScalingSpan) {
  const w = timeline.bucket_s;
  const buckets = timeline.buckets;
  const counts = countsOf(buckets);
  const at = (i: number) => counts[i] ?? null;
  // A bucket wider than a second may hold a boundary: before is wholly before it, a phase is what overlaps it.
  const overlapping = (fromS: number, toS: number) =>
    buckets.flatMap((b, i) => (b.t_s + w > fromS && b.t_s < toS ? [i] : []));
  const before = buckets.flatMap((b, i) => (b.t_s + w <= span.stepS ? [i] : []));
  const hold = overlapping(span.stepS, span.downS);
  const start = before.length > 0 ? at(before[before.length - 1] ?? -1) : null;
  if (start === null) return NO_COUNT;
  const known = (is: number[]) => is.map(at).filter((c): c is number => c !== null);
  const peak = Math.max(start, ...known(hold));
  const added = hold.find((i) => (at(i) ?? 0) > start);
  const complete = hold.find((i) => at(i) === peak);
  const sinceStep = (i: number | undefined) =>
    i === undefined ? null : Math.max(0, (buckets[i]?.t_s ?? 0) - span.stepS);
  const reaction = sinceStep(added);
  const hover = known(overlapping(span.hoverS, span.endS));
  const afterDown = known([hold[hold.length - 1] ?? -1, ...overlapping(span.downS + w, span.endS)]);
  const flaps = hover.length === 0 ? null : turnsOf(hover);
  return {
    start_replicas: start,
    peak_replicas: peak,
    reaction_s: reaction ?? span.downS - span.stepS,
    reaction_censored: reaction === null,
    scaled_s: peak > start ? sinceStep(complete) : null,
    flaps,
    flaps_per_10min: flaps === null ? null : (flaps * 600) / (span.endS - span.hoverS),
    scale_ins: afterDown.slice(1).filter((c, i) => c < (afterDown[i] ?? c)).length,
  };
}

/**
 * The scaling trial's reading from its timeline; `counted` false (its source
 * failed part-way) leaves every count's field null rather than read a count
 * frozen at its last sample. The SLO window ends at `sloToS` (a pair's
 * shared end), else at this trial's own scale-up end.
 */
export function readScaling(
  timeline: TrialTimeline,
  span: ScalingSpan,
  counted = true,
  sloToS?: number,
): ScalingReading {
  const w = timeline.bucket_s;
  const count = counted ? countReading(timeline, span) : NO_COUNT;
  const ownEnd = overloadEndS(span, w, [count.scaled_s]);
  const tail = timeline.buckets.filter((b) => b.t_s + w > span.downS);
  return {
    ...count,
    ...firstNewServed(timeline, span),
    ...sloOver(timeline, span.stepS, sloToS ?? ownEnd),
    hover_s: span.endS - span.hoverS,
    at_risk: sum(tail, (b) => b.offered),
    cut: sum(tail, (b) => CUT_OUTCOMES.reduce((s, o) => s + (b.failed[o] ?? 0), 0)),
    resolution_s: w,
  };
}
