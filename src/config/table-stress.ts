// The stress suites' settings: a surge above capacity after the pairs
// (docs/stress.md), the scaling scenario and each arm's replica count
// (docs/autoscaling.md).

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
    help: "The tolerated increase of the share of requests due from the surge's start on that failed or (with an SLO) came back beyond it, in points, paired, as a margin.",
    accepts: { kind: "fraction", max: 1, positive: true },
  },
  {
    name: "baseline-replicas-source",
    scope: "gate",
    help: "Where the baseline's replica count is read (replicas-source's forms: prom:URL, metric:NAME, cmd:COMMAND).",
    accepts: { kind: "text", what: "prom:URL, metric:NAME, cmd:COMMAND, or none" },
  },
  {
    name: "candidate-replicas-source",
    scope: "gate",
    help: "Where the candidate's replica count is read (replicas-source's forms: prom:URL, metric:NAME, cmd:COMMAND).",
    accepts: { kind: "text", what: "prom:URL, metric:NAME, cmd:COMMAND, or none" },
  },
  {
    name: "scaling",
    scope: "gate",
    help: "After the pairs (and the surge), the scaling scenario on both arms in pairs of their own: steady, a step to FACTOR × the baseline's capacity (or × rate) held for DURATION, steady again (scale-in), a hover ±10 % around the threshold; reaction, SLO while scaling, flaps and cut streams are gated (docs/autoscaling.md; none: off).",
    accepts: {
      kind: "text",
      what: '"1.5x 5m" (a factor > 1, ≤ 100, and a duration ≤ 2h), or none',
    },
  },
  {
    name: "scaling-pairs",
    scope: "gate",
    default: "2",
    help: "Scaling pairs (a baseline and a candidate scaling trial each); the comment says how many more would decide an open rule.",
    accepts: { kind: "number", integer: true, min: 2, max: 20 },
  },
  {
    name: "scaling-before",
    scope: "gate",
    default: "30s",
    help: "Steady load before each step: the replica count the reaction is timed from.",
    accepts: { kind: "duration", min: 3, max: 3600 },
  },
  {
    name: "scaling-after",
    scope: "gate",
    default: "60s",
    help: "Steady load after the step down, where the scaler scales in: longer than its scale-down stabilisation window, or nothing scales in (streams cut are counted from here on).",
    accepts: { kind: "duration", min: 3, max: 7200 },
  },
  {
    name: "scaling-hover",
    scope: "gate",
    default: "1x 2m",
    help: "The hover after the step down: its centre (FACTOR × the capacity or rate: where the scaler's threshold is) and its length; the load swings ±10 % around it in half-periods of an eighth of it (1–15 s).",
    accepts: { kind: "text", what: '"1x 2m" (a factor > 0, ≤ 100, and a duration ≤ 2h)' },
  },
  {
    name: "scaling-settle",
    scope: "gate",
    default: "5m",
    help: "Before each scaling trial, the longest wait for the arm's fleet to come back down to the count it had before the first (read from its replicas source).",
    accepts: { kind: "duration", min: 0, max: 900 },
  },
  {
    name: "max-reaction-increase",
    scope: "gate",
    default: "50%",
    help: "The tolerated increase of the time from the step to the first added replica, paired, as a margin (like the recovery).",
    accepts: { kind: "fraction", max: 100, positive: true },
  },
  {
    name: "max-scaling-slo-drop",
    scope: "gate",
    default: "5%",
    help: "The tolerated increase, in points, of the share of requests not served within the SLO (failed or late) from the step until the scale-up completed, paired, as a margin.",
    accepts: { kind: "fraction", max: 1, positive: true },
  },
  {
    name: "max-flap-increase",
    scope: "gate",
    default: "2",
    help: "The tolerated increase of turns of the replica count (up then down, or down then up) per 10 minutes of hover, paired, as a margin.",
    accepts: { kind: "number", min: 0, max: 1000 },
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
