// What a gate runs of the stress suites: the surge's shape and limits, the
// truncation replay's size and limit, the drain probe's streams.

export interface SurgeOptions {
  /** The surge's rate ÷ the baseline's capacity (or the rate). */
  factor: number;
  surgeS: number;
  /** Steady load before the surge, and after it (the recovery's window). */
  beforeS: number;
  afterS: number;
  pairs: number;
  maxRecoveryIncrease: number;
  maxFailureIncrease: number;
}

/** Absolute limits on the candidate's scaling (the budget setting's scale-up:, flaps:, cut:). */
export interface ScalingBudgets {
  /** Seconds from the step to the first added replica. */
  scaleUpS?: number;
  /** Turns of the replica count per 10 minutes of hover. */
  flaps?: number;
  /** Streams cut by scaling in, a trial. */
  cut?: number;
}

export interface ScalingOptions {
  /** The step's rate ÷ the baseline's capacity (or the rate), and how long it is held. */
  factor: number;
  holdS: number;
  /** Steady load before the step, and after the step down (scaling in happens here). */
  beforeS: number;
  afterS: number;
  /** The hover's centre (× the capacity or the rate) and length: ±10 % around it. */
  hoverFactor: number;
  hoverS: number;
  pairs: number;
  maxReactionIncrease: number;
  maxSloDrop: number;
  maxFlapIncrease: number;
  budgets: ScalingBudgets;
  /** Before each trial, the longest wait for the fleet to come back to its first count (s). */
  settleS: number;
}

export interface TruncationOptions {
  /** Requests replayed per arm. */
  replay: number;
  maxIncrease: number;
}

export interface DrainOptions {
  /** Long streams in flight when each server is stopped. */
  streams: number;
}
