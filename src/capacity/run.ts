// What a sweep reports: the `sweep` command's JSON report — every point's
// full measurement report, the grid, why the sweep stopped where it did, the
// capacity estimate and the two MLPerf-style labels — and the capacity
// gate's run: both arms' sweeps, compared, and the rate of its paired trials.

import type { Arm } from "../common/arms.ts";
import { formatSlo, sloRecord } from "../common/slo.ts";
import type { IdleCheck } from "../servers/preflight.ts";
import type { TrialOptions } from "../trial/measure.ts";
import { type CapacityComparison, compareCapacity } from "./compare.ts";
import { type CapacityEstimate, estimateCapacity, offlineLabel, serverLabel } from "./estimate.ts";
import { judge, roundRate, type SweepPoint, type SweepSettings } from "./points.ts";
import type { ArmSweep, Sweep } from "./sweep.ts";

export const SWEEP_SCHEMA = "llm-perf-gate/sweep@1";

export interface SweepSettingsReport {
  arrival: string;
  sync_requests: number;
  offline_requests: number;
  points: number;
  resolution: number;
  min_attainment: number;
  max_reruns: number;
  max_duration_s: number | null;
}

export function sweepSettingsReport(s: SweepSettings): SweepSettingsReport {
  return {
    arrival: s.arrival,
    sync_requests: s.syncRequests,
    offline_requests: s.offlineRequests,
    points: s.points,
    resolution: s.resolution,
    min_attainment: s.minAttainment,
    max_reruns: s.maxReruns,
    max_duration_s: s.maxDurationS ?? null,
  };
}

/** One arm's sweep as reports carry it: its points, where it stopped, its capacity. */
export interface ArmSweepReport {
  points: SweepPoint[];
  stopped: string | null;
  capacity: CapacityEstimate;
  labels: { offline: string; server: string };
}

export function armSweepReport(
  arm: ArmSweep,
  settings: SweepSettingsReport,
  slo: string,
): ArmSweepReport {
  const capacity = estimateCapacity(arm, settings.min_attainment);
  return {
    points: arm.points,
    stopped: arm.stopped,
    capacity,
    labels: {
      offline: offlineLabel(capacity),
      server: serverLabel(capacity, settings.arrival, slo),
    },
  };
}

export interface SweepReport extends ArmSweepReport {
  schema: typeof SWEEP_SCHEMA;
  created_at: string;
  target: { url: string; model: string; endpoint: string };
  slo: string;
  settings: SweepSettingsReport;
  grid: number[];
  /** Why the sweep ended before it was done (max-duration, an endpoint that refused every request), else null. */
  stopped_by: string | null;
}

export function buildSweepReport(
  arm: ArmSweep,
  sweep: { grid: number[]; stopped_by: string | null },
  options: TrialOptions,
  settings: SweepSettings,
  now: Date,
): SweepReport {
  const slo = formatSlo(sloRecord(options.slo));
  const s = sweepSettingsReport(settings);
  return {
    schema: SWEEP_SCHEMA,
    created_at: now.toISOString(),
    target: {
      url: options.target.baseUrl,
      model: options.target.model,
      endpoint: options.target.endpoint,
    },
    slo,
    settings: s,
    grid: sweep.grid,
    stopped_by: sweep.stopped_by,
    ...armSweepReport(arm, s, slo),
  };
}

export interface CapacityOptions {
  sweep: SweepSettings;
  /** The capacity drop beyond which the candidate fails. */
  maxCapacityDrop: number;
  /** The paired trials run at the baseline's capacity times this. */
  rateFraction: number;
}

export interface CapacityRun {
  settings: SweepSettingsReport & { max_capacity_drop: number; gate_rate_fraction: number };
  /** The trials and time planned before the start (time without the burst phases). */
  planned: { trials: number; seconds: number };
  grid: number[];
  arms: Record<Arm, ArmSweepReport>;
  comparison: CapacityComparison;
  /** The rate setting of the paired trials; null when there is none (no baseline capacity, or stopped). */
  gate_rate_per_s: number | null;
  /** Why the capacity gate ended early (max-duration), else null. */
  stopped_by: string | null;
  /** The idle check before each sweep point. */
  idle_checks: (IdleCheck & { arm: Arm; point: string })[];
}

/** The capacity run of what a sweep measured (all of it, or as far as it got). */
export function capacityRun(
  sweep: Sweep<Arm>,
  options: Record<Arm, TrialOptions>,
  capacity: CapacityOptions,
  planned: { trials: number; seconds: number },
  idle: CapacityRun["idle_checks"],
): CapacityRun {
  const settings = sweepSettingsReport(capacity.sweep);
  const slo = formatSlo(sloRecord(options.baseline.slo));
  const arms = {
    baseline: armSweepReport(sweep.arms.baseline, settings, slo),
    candidate: armSweepReport(sweep.arms.candidate, settings, slo),
  };
  const comparison = compareCapacity(
    arms.baseline.capacity,
    arms.candidate.capacity,
    capacity.maxCapacityDrop,
    capacity.sweep.resolution,
  );
  const base = arms.baseline.capacity.capacity_per_s;
  return {
    settings: {
      ...settings,
      max_capacity_drop: capacity.maxCapacityDrop,
      gate_rate_fraction: capacity.rateFraction,
    },
    planned,
    grid: sweep.grid,
    arms,
    comparison,
    gate_rate_per_s:
      base === null || sweep.stopped_by !== null ? null : roundRate(base * capacity.rateFraction),
    stopped_by: sweep.stopped_by,
    idle_checks: idle,
  };
}

/**
 * A capacity run decided again from its points' reports (a results file
 * another job wrote): each point judged, each arm's capacity estimated, the
 * capacities compared — nothing of the file's own judgement is kept.
 */
export function redecideCapacity(c: CapacityRun, slo: string): CapacityRun {
  const rejudged = (arm: ArmSweepReport): ArmSweep => ({
    points: arm.points.map((p) =>
      p.rate_per_s === null ? p : { ...p, judgement: judge(p.report, c.settings.min_attainment) },
    ),
    stopped: arm.stopped,
  });
  const arms = {
    baseline: armSweepReport(rejudged(c.arms.baseline), c.settings, slo),
    candidate: armSweepReport(rejudged(c.arms.candidate), c.settings, slo),
  };
  const comparison = compareCapacity(
    arms.baseline.capacity,
    arms.candidate.capacity,
    c.settings.max_capacity_drop,
    c.settings.resolution,
  );
  return { ...c, arms, comparison };
}
