// The stress suites' settings: a surge above capacity after the pairs
// (docs/stress.md).

import type { Setting } from "./setting.ts";

export const STRESS_SETTINGS = [
  {
    name: "surge",
    scope: "gate",
    help: "After the pairs, a surge on both arms in pairs of their own: steady at the pairs' rate, FACTOR × the baseline's capacity (or × rate) for DURATION, steady again; the time to recover and the failures from the surge on are gated (none: off).",
    accepts: {
      kind: "text",
      what: '"1.5x 30s" (a factor > 1, ≤ 100, and a duration ≤ 1h), or none',
    },
  },
  {
    name: "surge-pairs",
    scope: "gate",
    default: "4",
    help: "Surge pairs (a baseline and a candidate surge trial each).",
    accepts: { kind: "number", integer: true, min: 2, max: 20 },
  },
  {
    name: "surge-before",
    scope: "gate",
    default: "20s",
    help: "Steady load before each surge: the level recovery is judged against.",
    accepts: { kind: "duration", min: 3, max: 3600 },
  },
  {
    name: "surge-after",
    scope: "gate",
    default: "60s",
    help: "Steady load after each surge: a recovery later than this is censored (at least this long).",
    accepts: { kind: "duration", min: 3, max: 3600 },
  },
  {
    name: "max-recovery-increase",
    scope: "gate",
    default: "25%",
    help: "The tolerated increase of the time to recover after the surge, paired, as a margin (like the latencies).",
    accepts: { kind: "fraction", max: 10, positive: true },
  },
  {
    name: "max-surge-failure-increase",
    scope: "gate",
    default: "5%",
    help: "The tolerated increase of the share of requests failed from the surge's start on, in points, paired, as a margin.",
    accepts: { kind: "fraction", max: 1, positive: true },
  },
  {
    name: "truncation-replay",
    scope: "gate",
    default: "0",
    help: "After the pairs, replay at idle this many of each arm's requests that ended stop under load (twice each, one at a time, temperature 0): an answer materially longer at idle was cut short by load (0: off).",
    accepts: { kind: "number", integer: true, min: 0, max: 500 },
  },
  {
    name: "max-truncation-increase",
    scope: "gate",
    default: "5%",
    help: "The tolerated increase of the share of answers cut short by load (net of the idle-vs-idle floor), in points; a fail also needs Fisher's exact test.",
    accepts: { kind: "fraction", max: 1, positive: true },
  },
  {
    name: "drain-streams",
    scope: "gate",
    default: "8",
    help: "When the gate starts both servers: the last stop of each is a probe, with this many long streams in flight — a candidate that cuts streams the baseline completes, or ends uncleanly where it did not, fails (0: off).",
    accepts: { kind: "number", integer: true, min: 0, max: 64 },
  },
] as const satisfies readonly Setting[];
