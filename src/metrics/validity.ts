// The measurement checks itself: was the load generator the bottleneck? The
// probes' readings, the send skew and the unsent count decide whether a trial
// is valid.

import type { ProbeReadings } from "../load/probes.ts";

export interface SelfCheckLimits {
  /** p99 of (dispatch − scheduled, or slot-free time when capped), ms. */
  maxSendSkewP99Ms: number;
  maxUnsent: number;
  maxEventLoopDelayP99Ms: number;
  /** GC pause time as a share of the measurement window. */
  maxGcShare: number;
  /** Client CPU time as a share of one core over the trial. */
  maxClientCpu: number;
}

export const DEFAULT_LIMITS: SelfCheckLimits = {
  maxSendSkewP99Ms: 5,
  maxUnsent: 0,
  maxEventLoopDelayP99Ms: 20,
  maxGcShare: 0.01,
  maxClientCpu: 0.95,
};

export interface Validity {
  valid: boolean;
  /** Why the trial is invalid, in words. */
  reasons: string[];
  /** Facts a reader must know that do not invalidate the trial. */
  warnings: string[];
}

export interface SelfCheckInputs {
  sendSkewP99Ms: number;
  unsent: number;
  windowMs: number;
  readings: ProbeReadings;
  /** Requests that waited for a max-concurrency slot, and the p99 wait. */
  slotWaits: number;
  slotWaitP99Ms: number;
  maxConcurrency: number | undefined;
  hardStopped: boolean;
}

const f1 = (v: number) => v.toFixed(1);
const pct = (v: number) => `${(v * 100).toFixed(1)} %`;

export function evaluateValidity(x: SelfCheckInputs, limits: SelfCheckLimits): Validity {
  const reasons: string[] = [];
  const warnings: string[] = [];
  if (x.sendSkewP99Ms > limits.maxSendSkewP99Ms) {
    reasons.push(
      `send skew p99 ${f1(x.sendSkewP99Ms)} ms exceeds ${limits.maxSendSkewP99Ms} ms: the load generator fell behind its schedule`,
    );
  }
  if (x.unsent > limits.maxUnsent) {
    reasons.push(`${x.unsent} requests were never sent in time (limit ${limits.maxUnsent})`);
  }
  const loop = x.readings.eventLoopDelayMs.p99;
  if (loop > limits.maxEventLoopDelayP99Ms) {
    reasons.push(
      `event-loop delay p99 ${f1(loop)} ms exceeds ${limits.maxEventLoopDelayP99Ms} ms: the client was too busy to read responses on time`,
    );
  }
  const gcShare = x.windowMs > 0 ? x.readings.gc.totalMs / x.windowMs : 0;
  if (gcShare > limits.maxGcShare) {
    reasons.push(`GC pauses took ${pct(gcShare)} of the window (limit ${pct(limits.maxGcShare)})`);
  }
  if (x.readings.cpu.shareOfCore > limits.maxClientCpu) {
    reasons.push(
      `the client used ${pct(x.readings.cpu.shareOfCore)} of a core (limit ${pct(limits.maxClientCpu)}): it may be the bottleneck`,
    );
  }
  if (x.hardStopped) {
    reasons.push("the trial ran into its hard deadline; outstanding requests were cut off");
  }
  if (x.slotWaits > 0) {
    warnings.push(
      `closed loop: ${x.slotWaits} requests waited for one of ${x.maxConcurrency} concurrency slots (p99 wait ${f1(x.slotWaitP99Ms)} ms); the wait counts as latency`,
    );
  }
  return { valid: reasons.length === 0, reasons, warnings };
}
