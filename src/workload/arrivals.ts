// Arrival schedules: absolute offsets (ms) from the start of a trial,
// precomputed from a seed so both arms of a pair get the same schedule.

import type { Rng } from "./rng.ts";

export type ArrivalSpec =
  | { kind: "poisson"; ratePerS: number }
  /** Gamma gaps: shape = burstiness, mean gap = 1/rate (vLLM's semantics; burstiness 1 = Poisson). */
  | { kind: "gamma"; ratePerS: number; burstiness: number }
  | { kind: "constant"; ratePerS: number }
  /** burstSize requests at once, every burstIntervalS seconds. */
  | { kind: "burst"; burstSize: number; burstIntervalS: number }
  /** count requests at the start of the phase (offline throughput). */
  | { kind: "all-at-once"; count: number };

export const ARRIVAL_KINDS = ["poisson", "gamma", "constant", "burst", "all-at-once"] as const;

/**
 * Offsets (ms, ascending) of the arrivals in [fromMs, toMs). Rate-based
 * processes run from 0 so the window continues the warm-up's process;
 * all-at-once puts its requests at fromMs.
 */
export function arrivalOffsetsMs(
  spec: ArrivalSpec,
  fromMs: number,
  toMs: number,
  rng: Rng,
): number[] {
  const out: number[] = [];
  const push = (t: number) => {
    if (t >= fromMs && t < toMs) out.push(t);
  };
  switch (spec.kind) {
    case "all-at-once":
      for (let i = 0; i < spec.count; i++) out.push(fromMs);
      return out;
    case "constant": {
      const gapMs = 1000 / spec.ratePerS;
      for (let i = 0; i * gapMs < toMs; i++) push(i * gapMs);
      return out;
    }
    case "burst": {
      const gapMs = spec.burstIntervalS * 1000;
      for (let i = 0; i * gapMs < toMs; i++) {
        for (let j = 0; j < spec.burstSize; j++) push(i * gapMs);
      }
      return out;
    }
    case "poisson":
    case "gamma": {
      const meanGapMs = 1000 / spec.ratePerS;
      const shape = spec.kind === "gamma" ? spec.burstiness : 1;
      for (let t = 0; ; ) {
        t += shape === 1 ? rng.exponential(meanGapMs) : rng.gamma(shape, meanGapMs / shape);
        if (t >= toMs) return out;
        push(t);
      }
    }
  }
}

export function describeArrivals(spec: ArrivalSpec): string {
  switch (spec.kind) {
    case "poisson":
      return `poisson ${spec.ratePerS} req/s`;
    case "gamma":
      return `gamma ${spec.ratePerS} req/s, burstiness ${spec.burstiness}`;
    case "constant":
      return `constant ${spec.ratePerS} req/s`;
    case "burst":
      return `bursts of ${spec.burstSize} every ${spec.burstIntervalS} s`;
    case "all-at-once":
      return `${spec.count} requests at once`;
  }
}
