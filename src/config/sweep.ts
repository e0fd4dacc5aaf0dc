// The settings of a rate sweep — the `sweep` command's, and the gate's with
// `capacity` — validated before any request is sent. The sweep chooses the
// rates itself, so a rate, a burst or all-at-once arrival is a mistake.

import type { SweepSettings } from "../capacity/points.ts";
import { InputError } from "../common/errors.ts";
import { defaulted, given, type RawSettings, refuseGiven } from "./settings.ts";
import { parseChoice, parseDurationS, parseFraction, parseNumber } from "./values.ts";

const SWEEP_ARRIVALS = ["poisson", "constant"] as const;

/** Fails on settings a sweep would silently ignore. */
export function checkSweepLoad(raw: RawSettings, why: string): void {
  refuseGiven(
    raw,
    ["rate", "requests", "burst-size", "burst-interval", "trace"],
    (name, v) =>
      `${name} = ${v} is not used ${why}: the sweep chooses the rates itself (remove ${name})`,
  );
  if (given(raw, "slo") === undefined) {
    throw new InputError(
      `slo is required ${why}: capacity is the highest rate that meets it, e.g. "ttft:800 tpot:50"`,
    );
  }
}

/** The settings as parseTrialOptions takes them: the sweep's arrival with a stand-in rate. */
export function withStandInRate(raw: RawSettings): RawSettings {
  return { ...raw, rate: "1" };
}

export function parseSweepSettings(raw: RawSettings): SweepSettings {
  const maxDuration = given(raw, "max-duration");
  return {
    arrival: parseChoice("arrival", defaulted(raw, "arrival"), SWEEP_ARRIVALS),
    syncRequests: parseNumber("sync-requests", defaulted(raw, "sync-requests"), {
      integer: true,
      min: 1,
      max: 10_000,
    }),
    offlineRequests: parseNumber("offline-requests", defaulted(raw, "offline-requests"), {
      integer: true,
      min: 1,
      max: 100_000,
    }),
    points: parseNumber("sweep-points", defaulted(raw, "sweep-points"), {
      integer: true,
      min: 1,
      max: 50,
    }),
    resolution: parseFraction("capacity-resolution", defaulted(raw, "capacity-resolution"), 0.5),
    minAttainment: parseFraction("min-attainment", defaulted(raw, "min-attainment")),
    maxReruns: parseNumber("max-reruns", defaulted(raw, "max-reruns"), {
      integer: true,
      min: 0,
      max: 10,
    }),
    maxDurationS:
      maxDuration === undefined
        ? undefined
        : parseDurationS("max-duration", maxDuration, { above: 0, max: 7 * 86_400 }),
  };
}
