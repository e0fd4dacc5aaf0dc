// The capacity gate's first half: both arms swept on the same rates,
// interleaved, each point a full trial behind the gate's idle check; the
// capacities compared; and the rate the paired trials then run at — the
// baseline's capacity (× gate-rate-fraction), where goodput can drop.

import type { CapacityOptions, CapacityRun } from "../capacity/report.ts";
import { newSweep, planSweep, runSweep, type Sweep } from "../capacity/sweep.ts";
import { ARMS, type Arm } from "../common/arms.ts";
import type { IdleCheck } from "../servers/preflight.ts";
import type { TrialOptions, TrialReport } from "../trial/measure.ts";

/** Measures one arm once, behind the gate's cooldown, server hooks and idle check. */
export type MeasureArm = (
  arm: Arm,
  options: TrialOptions,
  what: string,
) => Promise<{ report: TrialReport; idle: IdleCheck }>;

export function planCapacity(
  options: Record<Arm, TrialOptions>,
  capacity: CapacityOptions,
  pairs: number,
): { trials: number; seconds: number; words: string } {
  const sweep = planSweep(2, options.baseline, capacity.sweep);
  const w = options.baseline.workload;
  const pairSeconds = pairs * 2 * (w.warmupS + w.durationS + 2);
  return {
    trials: sweep.trials + 2 * pairs,
    seconds: sweep.seconds + pairSeconds,
    words: `capacity gate: ${sweep.words}; then ${pairs} pairs at the baseline's capacity: ${sweep.trials + 2 * pairs} trials, ≈${Math.ceil((sweep.seconds + pairSeconds) / 60)} min plus the burst phases`,
  };
}

/** Sweeps both arms into `sweep` (kept when a cancel throws out of it). */
export async function sweepArms(
  sweep: Sweep<Arm>,
  options: Record<Arm, TrialOptions>,
  capacity: CapacityOptions,
  measureArm: MeasureArm,
  idle: CapacityRun["idle_checks"],
  deps: { nowMs(): number; log(line: string): void },
): Promise<void> {
  await runSweep(sweep, options, capacity.sweep, {
    run: async (arm, o, label) => {
      const { report, idle: check } = await measureArm(arm, o, `sweep ${label}`);
      idle.push({ arm, point: label, ...check });
      return report;
    },
    nowMs: deps.nowMs,
    log: deps.log,
  });
}

export const newArmSweep = (): Sweep<Arm> => newSweep(ARMS);

/** The arms' options for the paired trials: the sweep's arrival at the gate rate. */
export function atGateRate(
  options: Record<Arm, TrialOptions>,
  capacity: CapacityOptions,
  ratePerS: number,
): Record<Arm, TrialOptions> {
  const at = (o: TrialOptions): TrialOptions => ({
    ...o,
    workload: { ...o.workload, arrival: { kind: capacity.sweep.arrival, ratePerS } },
  });
  return { baseline: at(options.baseline), candidate: at(options.candidate) };
}
