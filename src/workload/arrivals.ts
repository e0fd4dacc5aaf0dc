// Arrival schedules: absolute offsets (ms) from the start of a trial,
// precomputed from a seed so both arms of a pair get the same schedule.

import { at } from "../common/arrays.ts";
import type { Rng } from "./rng.ts";
import { describeShape, type RateSegment, shapedOffsetsMs } from "./shape.ts";

export type ArrivalSpec =
  | { kind: "poisson"; ratePerS: number }
  /** Gamma gaps: shape = burstiness, mean gap = 1/rate (vLLM's semantics; burstiness 1 = Poisson). */
  | { kind: "gamma"; ratePerS: number; burstiness: number }
  | { kind: "constant"; ratePerS: number }
  /** burstSize requests at once, every burstIntervalS seconds. */
  | { kind: "burst"; burstSize: number; burstIntervalS: number }
  /** count requests at the start of the phase (offline throughput). */
  | { kind: "all-at-once"; count: number }
  /**
   * A replayed trace (the workload's `trace` holds its rows): offsets are the
   * trace's from startS, × timeScale, at most maxRequests; ratePerS is the
   * mean rate of what is replayed, for the self-checks' lateness.
   */
  /**
   * A rate that changes over the window (steps and ramps, shape.ts), on one of
   * the rate-driven processes; the warm-up runs at the first segment's rate.
   * ratePerS: the mean over the shape.
   */
  | {
      kind: "shaped";
      process: "poisson" | "gamma" | "constant";
      burstiness: number;
      segments: RateSegment[];
      ratePerS: number;
    }
  /** A rate sweep's points: the sweep chooses each rate; a trial never runs on this. */
  | { kind: "swept"; process: "poisson" | "constant" }
  | {
      kind: "trace";
      name: string;
      timeScale: number;
      startS: number;
      maxRequests: number | undefined;
      ratePerS: number;
    };

export const ARRIVAL_KINDS = ["poisson", "gamma", "constant", "burst", "all-at-once"] as const;

/**
 * Offsets (ms, ascending) of the arrivals in [fromMs, toMs). Constant rates
 * and bursts run from 0 so the window continues the warm-up's grid;
 * all-at-once puts its requests at fromMs. Poisson and gamma put exactly
 * round(rate × length) arrivals into the span: their gaps, drawn as usual,
 * are scaled to fill it — for Poisson that is the process conditioned on its
 * count (uniform order statistics). Unconditioned, a short trial's count is
 * off by about 1/√n (±6 % at 300 requests), and with the same seed at every
 * rate a sweep would mistake that for the server's capacity. A shape runs
 * from fromMs for its own length (the window is as long as the shape).
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
    case "trace":
      throw new Error("internal error: a trace's offsets come from its rows (buildWorkload)");
    case "swept":
      throw new Error("internal error: a swept arrival's rate is the sweep's to choose");
    case "shaped":
      // The warm-up runs at the first rate; the shape itself starts with the window.
      return shapedOffsetsMs(spec.segments, spec.process, spec.burstiness, fromMs, rng);
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
      const spanMs = toMs - fromMs;
      const n = Math.round((spec.ratePerS * spanMs) / 1000);
      const shape = spec.kind === "gamma" ? spec.burstiness : 1;
      // n + 1 gaps: the last one runs from the n-th arrival to the span's end.
      const gaps = Array.from({ length: n + 1 }, () =>
        shape === 1 ? rng.exponential(1) : rng.gamma(shape, 1 / shape),
      );
      const total = gaps.reduce((a, b) => a + b, 0);
      let sum = 0;
      for (let i = 0; i < n; i++) {
        sum += at(gaps, i);
        out.push(fromMs + (spanMs * sum) / total);
      }
      return out;
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
    case "shaped":
      return `${spec.process} ${describeShape(spec.segments)}${spec.process === "gamma" ? `, burstiness ${spec.burstiness}` : ""}`;
    case "swept":
      return `${spec.process}, rates chosen by the capacity sweep`;
    case "trace": {
      const from = spec.startS > 0 ? ` from ${spec.startS} s` : "";
      const cap = spec.maxRequests === undefined ? "" : `, at most ${spec.maxRequests} requests`;
      return `trace ${spec.name}${from}, time × ${spec.timeScale}${cap} (≈ ${Number(spec.ratePerS.toPrecision(3))} req/s)`;
    }
  }
}
