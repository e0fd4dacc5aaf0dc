// The capacity gate's first half: both arms swept on the same rates,
// interleaved, each point a full trial behind the gate's idle check; the
// capacities compared; and the rate the paired trials then run at — the
// baseline's capacity (× gate-rate-fraction), where goodput can drop.

import { type CapacityOptions, type CapacityRun, capacityRun } from "../capacity/run.ts";
import { newSweep, planSweep, runSweep, type Sweep } from "../capacity/sweep.ts";
import { ARMS, type Arm } from "../common/arms.ts";
import { windowTooSmall } from "../compare/reach.ts";
import type { IdleCheck } from "../servers/preflight.ts";
import type { TrialOptions, TrialReport } from "../trial/measure.ts";

/** Measures one arm once, behind the gate's cooldown, server hooks and idle check. */
export type MeasureArm = (
  arm: Arm,
  options: TrialOptions,
  what: string,
  heading?: string,
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

/**
 * The capacity phase of a gate: both arms swept, the capacities compared,
 * and the options of the paired trials at the gate rate. What it measured
 * stays in `run` even when the sweep was cut short (a cancel, a server that
 * failed); `stop` says why the paired trials cannot run, when they cannot.
 */
export class CapacityPhase {
  readonly sweep = newArmSweep();
  readonly idle: CapacityRun["idle_checks"] = [];
  planned = { trials: 0, seconds: 0 };
  stop: string | null = null;
  private done: CapacityRun | null = null;
  private readonly capacity: CapacityOptions;

  private readonly minOkRequests: number;

  constructor(capacity: CapacityOptions, minOkRequests: number) {
    this.capacity = capacity;
    this.minOkRequests = minOkRequests;
  }

  /** Sweeps both arms; the options of the paired trials, or null when there is no rate to run them at. */
  async run(
    options: Record<Arm, TrialOptions>,
    pairs: number,
    measureArm: MeasureArm,
    deps: { nowMs(): number; log(line: string): void },
  ): Promise<Record<Arm, TrialOptions> | null> {
    const c = this.capacity;
    const plan = planCapacity(options, c, pairs);
    this.planned = { trials: plan.trials, seconds: plan.seconds };
    deps.log(plan.words);
    await sweepArms(this.sweep, options, c, measureArm, this.idle, deps);
    const run = capacityRun(this.sweep, options, c, this.planned, this.idle);
    this.done = run;
    const { baseline, candidate } = run.arms;
    deps.log(`capacity: baseline ${baseline.labels.server}; candidate ${candidate.labels.server}`);
    deps.log(`capacity: ${run.comparison.verdict}: ${run.comparison.reason}`);
    if (run.gate_rate_per_s === null) {
      this.stop =
        run.stopped_by ??
        "the baseline met its SLO at no rate tried: there is no capacity to run the paired trials at";
      return null;
    }
    const atRate = atGateRate(options, c, run.gate_rate_per_s);
    // Known only now: a window at this rate that cannot hold min-ok-requests makes every pair invalid.
    const tooSmall = windowTooSmall(atRate.baseline.workload, this.minOkRequests);
    if (tooSmall) {
      this.stop = `no pairs run at ${run.gate_rate_per_s} req/s (the baseline's capacity × gate-rate-fraction): ${tooSmall}`;
      deps.log(`capacity: ${this.stop}`);
      return null;
    }
    deps.log(
      `paired trials at ${run.gate_rate_per_s} req/s (the baseline's capacity × gate-rate-fraction ${c.rateFraction})`,
    );
    return atRate;
  }

  /** The baseline's capacity (req/s); null before the sweep or when it found none. */
  get baselineCapacityPerS(): number | null {
    return this.done?.arms.baseline.capacity.capacity_per_s ?? null;
  }

  /** The capacities compared and the candidate's regressed: the gate fails, whatever the pairs show. */
  get regressed(): boolean {
    return this.done?.comparison.verdict === "regressed";
  }

  /** The capacity run as the results record it: all of the sweep, or as far as it got. */
  result(options: Record<Arm, TrialOptions>): CapacityRun {
    const run =
      this.done ?? capacityRun(this.sweep, options, this.capacity, this.planned, this.idle);
    if (this.stop !== null && run.stopped_by === null) run.stopped_by = this.stop;
    return run;
  }
}
