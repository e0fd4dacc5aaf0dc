// The settings of a rate sweep — the `sweep` command's, and the gate's with
// `capacity` — validated before any request is sent. The sweep chooses the
// rates itself, so a rate, a burst or all-at-once arrival is a mistake.

import type { SweepSettings } from "../capacity/points.ts";
import { InputError } from "../common/errors.ts";
import {
  defaulted,
  given,
  optionalNumber,
  type RawSettings,
  readNumber,
  refuseGiven,
} from "./settings.ts";
import { parseChoice } from "./values.ts";

const SWEEP_ARRIVALS = ["poisson", "constant"] as const;

/** The shortest window a sweep point may have (s). */
const MIN_SWEEP_WINDOW_S = 1;

/** Fails on settings a sweep would silently ignore. */
export function checkSweepLoad(raw: RawSettings, why: string): void {
  refuseGiven(
    raw,
    ["rate", "requests", "burst-size", "burst-interval", "trace"],
    (name, v) =>
      `${name} = ${v} is not used ${why}: the sweep chooses the rates itself (remove ${name})`,
  );
  // A point's window must hold its requests and a reading of the client's own CPU:
  // shorter, every point would be blamed on the client (its CPU share over a millisecond).
  const durationS = readNumber(raw, "duration");
  if (durationS < MIN_SWEEP_WINDOW_S)
    throw new InputError(
      `duration = ${defaulted(raw, "duration")} is not accepted ${why}: a sweep point's window must hold its requests and a reading of the client's CPU; expected at least ${MIN_SWEEP_WINDOW_S}s`,
    );
  if (given(raw, "slo") === undefined) {
    throw new InputError(
      `slo is required ${why}: capacity is the highest rate that meets it, e.g. "ttft:800 tpot:50"`,
    );
  }
}

export function parseSweepSettings(raw: RawSettings): SweepSettings {
  return {
    // Narrower than the setting's own choices: a sweep's rates are Poisson or constant.
    arrival: parseChoice("arrival", defaulted(raw, "arrival"), SWEEP_ARRIVALS),
    syncRequests: readNumber(raw, "sync-requests"),
    offlineRequests: readNumber(raw, "offline-requests"),
    points: readNumber(raw, "sweep-points"),
    resolution: readNumber(raw, "capacity-resolution"),
    minAttainment: readNumber(raw, "min-attainment"),
    maxReruns: readNumber(raw, "max-reruns"),
    maxDurationS: optionalNumber(raw, "max-duration"),
  };
}
