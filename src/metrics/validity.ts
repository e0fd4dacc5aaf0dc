// The measurement checks itself: did the load generator's own lateness or
// busyness change what it measured? A trial is judged by what the client's
// lateness did to the numbers that decide — the gated latency percentile and
// the offered load — not by the machine's worst millisecond. Absolute limits
// (send-skew p99, GC share) stay available as options.

import { percent, plural } from "../common/format.ts";
import { type PercentileKey, percentileLabel } from "../common/percentiles.ts";
import type { ProbeReadings } from "../load/probes.ts";
import { OPEN_LIMIT } from "../load/record.ts";

export interface SelfCheckLimits {
  /** The percentile the gate decides on; the skew effect is checked there. */
  percentile: PercentileKey;
  /**
   * Largest relative shift of TTFT or E2EL at that percentile caused by late
   * sends before the trial is re-run whatever the verdict (smaller shifts only
   * widen the verdict's interval, compare/metric.ts).
   */
  maxSkewEffect: number;
  /** Largest relative difference between requests scheduled and sent in a window: the offered load changed. */
  maxOfferedDrift: number;
  /** Optional: largest share of sends later than max(a tenth of the mean gap, 1 ms). */
  maxLateSends: number | undefined;
  maxUnsent: number;
  /** Event-loop delay p99, ms: late reads inflate TTFT and ITL in a way we cannot subtract. */
  maxEventLoopDelayP99Ms: number;
  /** Client CPU time as a share of one core over the trial. */
  maxClientCpu: number;
  /** Optional absolute limits: p99 of (dispatch − scheduled, or slot-free time when capped), ms … */
  maxSendSkewP99Ms: number | undefined;
  /** … and GC pause time as a share of the measurement window. */
  maxGcShare: number | undefined;
}

export interface Validity {
  valid: boolean;
  /** Why the trial is invalid, in words naming the setting and the likely cause. */
  reasons: string[];
  /** Facts a reader must know that do not invalidate the trial. */
  warnings: string[];
  /**
   * Invalid only because late sends moved the gated percentile: the gate may
   * keep the trial when that cannot change a verdict (compare/contamination.ts).
   */
  lateness_only?: boolean;
}

/** Where the offered load strayed most from the schedule. */
export interface OfferedDrift {
  /** (sent − scheduled) / scheduled in that window. */
  drift: number;
  /** The window's start, s from the first window, and its length. */
  at_s: number;
  window_s: number;
  scheduled: number;
  sent: number;
}

/** Windows with fewer scheduled requests than this are not judged (one request is not a load change). */
const MIN_WINDOW_REQUESTS = 10;

/** The window where sent and scheduled counts differ most, relative to the scheduled. */
export function worstDrift(
  windows: ReadonlyMap<number, { scheduled: number; sent: number }>,
  windowMs: number,
): OfferedDrift | null {
  const keys = [...windows.keys()].sort((a, b) => a - b);
  const first = keys[0];
  if (first === undefined) return null;
  let worst: OfferedDrift | null = null;
  for (const k of keys) {
    const w = windows.get(k);
    if (!w || w.scheduled < MIN_WINDOW_REQUESTS) continue;
    const drift = (w.sent - w.scheduled) / w.scheduled;
    if (worst === null || Math.abs(drift) > Math.abs(worst.drift))
      worst = {
        drift,
        at_s: ((k - first) * windowMs) / 1000,
        window_s: windowMs / 1000,
        scheduled: w.scheduled,
        sent: w.sent,
      };
  }
  return worst;
}

/** A latency percentile as measured and as it would be had every send been on time. */
export interface SkewPair {
  scheduled: number | null;
  onTime: number | null;
  /** The scheduled-basis value is a lower bound (censored): the shift cannot be told. */
  censored: boolean;
  /** Half the spread of the neighbouring ranks: how finely the samples resolve the percentile. */
  resolutionMs: number | null;
}

export interface SelfCheckInputs {
  sendSkewP99Ms: number;
  ttft: SkewPair;
  e2el: SkewPair;
  lateSends: number;
  lateSendMs: number | undefined;
  /** The window whose sent count strayed furthest from its scheduled count; null: not checked. */
  offeredDrift: OfferedDrift | null;
  scheduled: number;
  unsent: number;
  /** Of them, those due when the client already held its limit of open requests. */
  openLimited: number;
  windowMs: number;
  readings: ProbeReadings;
  /** Requests that waited for a max-concurrency slot, and the p99 wait. */
  slotWaits: number;
  slotWaitP99Ms: number;
  maxConcurrency: number | undefined;
  hardStopped: boolean;
}

const f1 = (v: number) => v.toFixed(1);
const OPEN_LIMIT_WORDS = `${OPEN_LIMIT.requests.toLocaleString("en-US")} requests or ${OPEN_LIMIT.bodyBytes / 2 ** 20} MiB of request bodies in one process, shared by its worker threads`;

/**
 * A shift below this is within the resolution of a shared machine's scheduler
 * (timers and wake-ups up to 2 ms late, bench/README.md): never called the
 * client's lateness.
 */
export const SKEW_EFFECT_FLOOR_MS = 2;

/** The relative shift late sends caused at the percentile, or null when it cannot be told. */
export function skewEffect(p: SkewPair): number | null {
  if (p.censored || p.scheduled === null || p.onTime === null || p.onTime <= 0) return null;
  return p.scheduled / p.onTime - 1;
}

/** The shortest window whose CPU share can say the client was the bottleneck (ms). */
export const MIN_CPU_WINDOW_MS = 250;

/** Why the client was late, as far as its own CPU use tells. */
function cause(readings: ProbeReadings): string {
  const cpu = readings.cpu.shareOfCore;
  if (cpu >= 0.8)
    return `the load generator was saturated: client CPU ${percent(cpu, 0)} of a core`;
  if (cpu < 0.25)
    return `the machine was busy: client CPU ${percent(cpu, 0)}, so another process held the core`;
  return `the client's event loop was held up (delay max ${f1(readings.eventLoopDelayMs.max)} ms, client CPU ${percent(cpu, 0)})`;
}

export function evaluateValidity(x: SelfCheckInputs, limits: SelfCheckLimits): Validity {
  const lateness = skewReasons(x, limits);
  const reasons = [...lateness, ...otherReasons(x, limits)];
  const warnings: string[] = [];
  if (x.slotWaits > 0) {
    warnings.push(
      `closed loop: ${plural(x.slotWaits, "request")} waited for a free concurrency slot (max-concurrency ${x.maxConcurrency}) (p99 wait ${f1(x.slotWaitP99Ms)} ms); the wait counts as latency`,
    );
  }
  const latenessOnly = reasons.length > 0 && reasons.length === lateness.length;
  return { valid: reasons.length === 0, reasons, warnings, lateness_only: latenessOnly };
}

/** What late sends did to TTFT and E2EL at the gated percentile, beyond max-skew-effect. */
function skewReasons(x: SelfCheckInputs, limits: SelfCheckLimits): string[] {
  const reasons: string[] = [];
  const p = percentileLabel(limits.percentile);
  for (const [name, pair] of [
    ["TTFT", x.ttft],
    ["E2EL", x.e2el],
  ] as const) {
    const effect = skewEffect(pair);
    const shiftMs = (pair.scheduled ?? 0) - (pair.onTime ?? 0);
    // Beyond a quarter of the tolerance, and beyond what the samples resolve at all.
    const noticeableMs = Math.max(SKEW_EFFECT_FLOOR_MS, pair.resolutionMs ?? 0);
    if (effect !== null && effect > limits.maxSkewEffect && shiftMs > noticeableMs) {
      reasons.push(
        `late sends moved ${p} ${name} by +${percent(effect)} (+${f1(shiftMs)} ms; limit max-skew-effect ${percent(limits.maxSkewEffect)}): ${cause(x.readings)}`,
      );
    }
  }
  return reasons;
}

/** Every other self-check: the offered load, the sends, the event loop, GC, CPU, the deadline. */
function otherReasons(x: SelfCheckInputs, limits: SelfCheckLimits): string[] {
  const reasons: string[] = [];
  const drift = x.offeredDrift;
  if (drift && Math.abs(drift.drift) > limits.maxOfferedDrift) {
    reasons.push(
      `the offered load changed: ${drift.sent} requests went out in the ${f1(drift.window_s)} s window at +${f1(drift.at_s)} s where ${drift.scheduled} were scheduled (${drift.drift >= 0 ? "+" : "−"}${percent(Math.abs(drift.drift))}; limit max-offered-drift ${percent(limits.maxOfferedDrift)}): ${cause(x.readings)}`,
    );
  }
  const maxLate = limits.maxLateSends;
  if (
    maxLate !== undefined &&
    x.lateSendMs !== undefined &&
    x.lateSends > Math.max(1, Math.floor(maxLate * x.scheduled))
  ) {
    reasons.push(
      `${x.lateSends} of ${x.scheduled} sends were more than ${f1(x.lateSendMs)} ms late (limit max-late-sends ${percent(maxLate)}): ${cause(x.readings)}`,
    );
  }
  if (limits.maxSendSkewP99Ms !== undefined && x.sendSkewP99Ms > limits.maxSendSkewP99Ms) {
    reasons.push(
      `send skew p99 ${f1(x.sendSkewP99Ms)} ms exceeds max-send-skew-ms ${limits.maxSendSkewP99Ms}: ${cause(x.readings)}`,
    );
  }
  if (x.unsent > limits.maxUnsent) {
    // Past the open limit the server answered slower than the load arrived, whatever the CPU did.
    const why =
      x.openLimited > 0
        ? `${x.openLimited} of them were due while the client held its limit of open requests (${OPEN_LIMIT_WORDS}): the server answered slower than the load arrived (lower the rate, or shorten the timeout), or the prompts are too long to hold that many at once`
        : cause(x.readings);
    reasons.push(
      `${plural(x.unsent, "request was", "requests were")} never sent in time (limit max-unsent ${limits.maxUnsent}): ${why}`,
    );
  }
  const loop = x.readings.eventLoopDelayMs.p99;
  if (loop > limits.maxEventLoopDelayP99Ms) {
    reasons.push(
      `event-loop delay p99 ${f1(loop)} ms exceeds max-event-loop-delay-ms ${limits.maxEventLoopDelayP99Ms}: responses were read late; ${cause(x.readings)}`,
    );
  }
  const gcShare = x.windowMs > 0 ? x.readings.gc.totalMs / x.windowMs : 0;
  if (limits.maxGcShare !== undefined && gcShare > limits.maxGcShare) {
    reasons.push(
      `GC pauses took ${percent(gcShare)} of the window (limit max-gc-share ${percent(limits.maxGcShare)})`,
    );
  }
  // Over a window of a few milliseconds (every request refused at once) the share is the
  // trial's own start-up, not load: it would blame the client for the endpoint's refusals.
  if (
    x.readings.cpu.wallMs >= MIN_CPU_WINDOW_MS &&
    x.readings.cpu.shareOfCore > limits.maxClientCpu
  ) {
    reasons.push(
      `the client used ${percent(x.readings.cpu.shareOfCore)} of a core (limit max-client-cpu ${percent(limits.maxClientCpu)}): it may be the bottleneck`,
    );
  }
  if (x.hardStopped) {
    reasons.push("the trial ran into its hard deadline; outstanding requests were cut off");
  }
  return reasons;
}
