// A rate that changes over the window: steps ("10 for 30s") and linear ramps
// ("10 to 20 over 60s"), one after another. Arrivals come from the same
// processes as a flat rate, run on a clock that ticks with the rate (a time
// change): a unit-rate process's points λ map to the times t where the
// expected arrivals so far, Λ(t), reach λ. So a Poisson shape is exactly an
// inhomogeneous Poisson process, a constant one sends the k-th request when
// Λ(t) = k, and both arms of a pair get the same seeded times.

import { at } from "../common/arrays.ts";
import type { Rng } from "./rng.ts";

/** One part of a shape: from one rate to another (equal for a step), over durationS. */
export interface RateSegment {
  fromPerS: number;
  toPerS: number;
  durationS: number;
}

/** A shape's length, seconds. */
export const shapeSeconds = (segments: readonly RateSegment[]): number =>
  segments.reduce((s, g) => s + g.durationS, 0);

/** Requests a segment expects: the area under its rate. */
const segmentArrivals = (g: RateSegment): number => ((g.fromPerS + g.toPerS) / 2) * g.durationS;

/** Requests the whole shape expects, Λ at its end. */
export const shapeArrivals = (segments: readonly RateSegment[]): number =>
  segments.reduce((s, g) => s + segmentArrivals(g), 0);

/** The mean rate over the shape, req/s. */
export function shapeMeanRate(segments: readonly RateSegment[]): number {
  const s = shapeSeconds(segments);
  return s > 0 ? shapeArrivals(segments) / s : 0;
}

/** The highest rate the shape reaches, req/s. */
export const shapePeakRate = (segments: readonly RateSegment[]): number =>
  Math.max(0, ...segments.flatMap((g) => [g.fromPerS, g.toPerS]));

/**
 * Seconds into a segment at which its expected arrivals reach `lambda`
 * (0 ≤ lambda ≤ its arrivals): the inverse of r0·t + (r1 − r0)·t²/(2D).
 */
function timeInSegment(g: RateSegment, lambda: number): number {
  const slope = (g.toPerS - g.fromPerS) / g.durationS;
  const root = Math.sqrt(Math.max(0, g.fromPerS ** 2 + 2 * slope * lambda));
  // (root − r0) ÷ slope, written without the cancellation a nearly flat ramp would suffer.
  const sum = g.fromPerS + root;
  return sum > 0 && lambda > 0 ? Math.min(g.durationS, (2 * lambda) / sum) : 0;
}

/** Seconds from the shape's start at which Λ reaches each of `lambdas` (ascending). */
export function timesOf(segments: readonly RateSegment[], lambdas: readonly number[]): number[] {
  const out: number[] = [];
  let segment = 0;
  let startS = 0;
  let before = 0;
  for (const lambda of lambdas) {
    while (segment < segments.length - 1) {
      const here = segmentArrivals(at(segments, segment));
      if (lambda < before + here) break;
      before += here;
      startS += at(segments, segment).durationS;
      segment++;
    }
    const g = segments[segment];
    if (g) out.push(startS + timeInSegment(g, lambda - before));
  }
  return out;
}

/**
 * The shape's arrivals, ms from fromMs: a constant process on the grid
 * Λ = 0, 1, 2…; Poisson and gamma as on a flat rate (exactly round(Λ)
 * arrivals, their unit gaps scaled to fill the span), then the time change.
 */
export function shapedOffsetsMs(
  segments: readonly RateSegment[],
  process: "poisson" | "gamma" | "constant",
  burstiness: number,
  fromMs: number,
  rng: Rng,
): number[] {
  const total = shapeArrivals(segments);
  const lambdas: number[] = [];
  if (process === "constant") {
    for (let k = 0; k < total - 1e-9; k++) lambdas.push(k);
  } else {
    const n = Math.round(total);
    const shape = process === "gamma" ? burstiness : 1;
    const gaps = Array.from({ length: n + 1 }, () =>
      shape === 1 ? rng.exponential(1) : rng.gamma(shape, 1 / shape),
    );
    const sum = gaps.reduce((a, b) => a + b, 0);
    let acc = 0;
    for (let i = 0; i < n; i++) {
      acc += at(gaps, i);
      lambdas.push((total * acc) / sum);
    }
  }
  const endMs = fromMs + shapeSeconds(segments) * 1000;
  return timesOf(segments, lambdas).map((s) => Math.min(endMs - 1e-6, fromMs + s * 1000));
}

/** "10 req/s for 30 s, 10 → 20 req/s over 60 s". */
export function describeShape(segments: readonly RateSegment[]): string {
  const n = (v: number) => Number(v.toPrecision(4));
  return segments
    .map((g) =>
      g.fromPerS === g.toPerS
        ? `${n(g.fromPerS)} req/s for ${n(g.durationS)} s`
        : `${n(g.fromPerS)} → ${n(g.toPerS)} req/s over ${n(g.durationS)} s`,
    )
    .join(", ");
}
