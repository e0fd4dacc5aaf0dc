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

export interface TruncationOptions {
  /** Requests replayed per arm. */
  replay: number;
  maxIncrease: number;
}

export interface DrainOptions {
  /** Long streams in flight when each server is stopped. */
  streams: number;
}
