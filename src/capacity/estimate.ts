// An arm's capacity from its sweep: the highest valid rate whose SLO
// attainment is at least min-attainment, interpolated towards the first rate
// above it that fell short; and the two figures MLPerf reports, which must not
// be confused: Offline (maximum throughput, no latency bound) and Server (the
// highest rate of the arrival process that meets the latency bounds).

import { compact, percent } from "../common/format.ts";
import { bracketOf, type SweepPoint } from "./points.ts";
import type { ArmSweep } from "./sweep.ts";

export interface CapacityEstimate {
  /** The rate where attainment reaches min-attainment; null when no rate met the SLO. */
  capacity_per_s: number | null;
  /** The highest rate that met the SLO, and the lowest above it that did not (null: none). */
  pass_per_s: number | null;
  fail_per_s: number | null;
  /** How the capacity was found, in words. */
  method: string;
  /** A rate below the capacity failed: the curve is noisy near the knee. */
  non_monotone: boolean;
  /**
   * Why the failing rate may be the client's knee, not the server's: its trial
   * failed its self-checks (late sends, a held event loop, a saturated or
   * starved client CPU) — it then bounds no capacity from above; null: a
   * server's failure (absent in older files).
   */
  client_limited?: string | null;
  /** One request at a time: throughput and the unloaded latency (from the actual send). */
  synchronous: {
    requests_per_s: number;
    ttft_p50_ms: number | null;
    e2el_p50_ms: number | null;
  } | null;
  /** All at once: the maximum throughput. */
  offline: { requests_per_s: number; output_tokens_per_s: number } | null;
}

const measured = (points: readonly SweepPoint[], phase: SweepPoint["phase"]) =>
  points.find((p) => p.phase === phase && p.judgement === "measured")?.report;

/**
 * Signs at a failing point that the load generator's machine set the knee,
 * whatever the limits the self-checks were given: this share of its sends late,
 * or its event loop held this long at p99. On an idle 2-core machine the knee
 * mock's failing points show ≤ 4 % late and ≤ 3 ms; beside two busy loops
 * ≤ 5 % and ≤ 4.5 ms; with a test run beside those too, 25–40 % and 9–10 ms,
 * the knees 15 % lower than the mock's model (test/capacity/capacity-gate.test.ts).
 */
export const BUSY_LATE_SHARE = 0.2;
export const BUSY_LOOP_P99_MS = 8;

/** Why a failing point may be the client's knee, in words; null: the server's (a hard deadline is its slowness). */
function clientLimited(fail: SweepPoint): string | null {
  const v = fail.report.validity;
  const signs = v.valid ? [] : v.reasons.filter((r) => !r.includes("hard deadline"));
  const late = v.late_sends / Math.max(1, fail.report.scheduled);
  if (v.valid && late >= BUSY_LATE_SHARE)
    signs.push(
      `${percent(late, 0)} of its sends were late${v.late_send_ms === null ? "" : ` by more than ${v.late_send_ms.toFixed(1)} ms`}`,
    );
  if (v.valid && v.event_loop_delay_ms.p99 >= BUSY_LOOP_P99_MS)
    signs.push(`its event loop was held ${v.event_loop_delay_ms.p99} ms at p99`);
  if (signs.length === 0) return null;
  return `at ${fail.rate_per_s} req/s: ${v.valid ? "the machine was busy" : "the trial failed its self-checks"} (${signs.join("; ")})`;
}

export function estimateCapacity(arm: ArmSweep, minAttainment: number): CapacityEstimate {
  const { pass, fail } = bracketOf(arm.points);
  const sync = measured(arm.points, "synchronous");
  const offline = measured(arm.points, "offline");
  const base = {
    pass_per_s: pass?.rate_per_s ?? null,
    fail_per_s: fail?.rate_per_s ?? null,
    client_limited: fail ? clientLimited(fail) : null,
    non_monotone: arm.points.some(
      (p) =>
        p.rate_per_s !== null &&
        (p.judgement === "fail" || p.judgement === "overload") &&
        p.rate_per_s < (pass?.rate_per_s ?? 0),
    ),
    synchronous: sync
      ? {
          requests_per_s: sync.throughput.requests_per_s,
          ttft_p50_ms: sync.metrics.ttft_service_ms.p50,
          e2el_p50_ms: sync.metrics.e2el_service_ms.p50,
        }
      : null,
    offline: offline
      ? {
          requests_per_s: offline.throughput.requests_per_s,
          output_tokens_per_s: offline.throughput.output_tokens_per_s,
        }
      : null,
  };
  const at = (p: SweepPoint) => `${p.rate_per_s} req/s (${percent(p.report.goodput.attainment)})`;
  if (!pass) {
    return {
      ...base,
      capacity_per_s: null,
      method: fail
        ? `no rate met the SLO; the lowest tried, ${at(fail)}, did not`
        : "no open-loop rate was measured",
    };
  }
  const lo = pass.rate_per_s as number;
  if (!fail) {
    return {
      ...base,
      capacity_per_s: lo,
      method: `at least ${lo} req/s: the highest rate tried met the SLO (${percent(pass.report.goodput.attainment)})`,
    };
  }
  const hi = fail.rate_per_s as number;
  const a1 = pass.report.goodput.attainment;
  const a2 = fail.report.goodput.attainment;
  const share = a1 > a2 ? Math.min(1, Math.max(0, (a1 - minAttainment) / (a1 - a2))) : 0;
  return {
    ...base,
    capacity_per_s: Number((lo + (hi - lo) * share).toPrecision(3)),
    method: `interpolated to ${percent(minAttainment)} attainment between ${at(pass)} and ${at(fail)}`,
  };
}

/** MLPerf's Offline figure. */
export function offlineLabel(e: CapacityEstimate): string {
  return e.offline
    ? `Offline: ${compact(e.offline.requests_per_s)} req/s, ${compact(e.offline.output_tokens_per_s)} tok/s`
    : "Offline: not measured";
}

/** MLPerf's Server figure, with the arrival process and the SLO it holds for. */
export function serverLabel(e: CapacityEstimate, arrival: string, slo: string): string {
  const process = arrival === "poisson" ? "Poisson" : arrival;
  const value =
    e.capacity_per_s === null
      ? e.fail_per_s === null
        ? "not measured"
        : `below ${e.fail_per_s} req/s`
      : `${e.fail_per_s === null ? "≥ " : ""}${compact(e.capacity_per_s)} req/s`;
  return `Server (${process}, SLO ${slo}): ${value}`;
}
