// The stress suites' settings: the surge ("1.5x 30s", its pairs, windows and
// rules; refused where there is no steady rate to surge from) and the drain
// probe (only when the gate starts both servers).

import { ARMS } from "../common/arms.ts";
import { InputError, rejectValue } from "../common/errors.ts";
import type { GateOptions } from "../gate/options.ts";
import { scalingShares } from "../gate/scaling.ts";
import { SURGE_SHARES } from "../gate/surge.ts";
import { TRUNCATION_SHARES } from "../gate/truncation.ts";
import type { ServerSettings } from "../servers/lifecycle.ts";
import type {
  DrainOptions,
  ScalingOptions,
  SurgeOptions,
  TruncationOptions,
} from "../stress/options.ts";
import type { TrialOptions } from "../trial/measure.ts";
import type { ArrivalSpec } from "../workload/arrivals.ts";
import { parseScalingBudgets } from "./budget.ts";
import { MAX_RATE_PER_S } from "./rate.ts";
import { given, type RawSettings, readNumber } from "./settings.ts";
import { parseDurationS, parseNumber } from "./values.ts";

const SURGE_ACCEPTS =
  '"FACTORx DURATION", e.g. "1.5x 30s" (a factor > 1, ≤ 100, a duration > 0, ≤ 1h), or none';

/** "1.5x 30s" → the factor and the seconds; anything else is named with the whole value. */
function parseFactorDuration(
  name: string,
  raw: string,
  rule: { factorAbove: number; maxS: number; accepts: string },
): { factor: number; seconds: number } {
  const m = raw.trim().match(/^(\S+?)\s*[x×]\s+(\S+)$/i);
  try {
    if (m) {
      const factor = parseNumber(name, m[1] ?? "", { above: rule.factorAbove, max: 100 });
      return { factor, seconds: parseDurationS(name, m[2] ?? "", { above: 0, max: rule.maxS }) };
    }
  } catch {
    // Named below with the whole value.
  }
  throw rejectValue(name, raw, rule.accepts);
}

function parseSurgeValue(raw: string): { factor: number; surgeS: number } {
  const v = parseFactorDuration("surge", raw, {
    factorAbove: 1,
    maxS: 3600,
    accepts: SURGE_ACCEPTS,
  });
  return { factor: v.factor, surgeS: v.seconds };
}

const SCALING_ACCEPTS =
  '"FACTORx DURATION", e.g. "1.5x 5m" (a factor > 1, ≤ 100, a duration > 0, ≤ 2h), or none';
const HOVER_ACCEPTS =
  '"FACTORx DURATION", e.g. "1x 2m" (a factor > 0, ≤ 100, a duration > 0, ≤ 2h)';

/** The scaling scenario asked for, or undefined (its budgets then refused); every setting of it is validated. */
export function parseScaling(raw: RawSettings): ScalingOptions | undefined {
  const hover = parseFactorDuration("scaling-hover", given(raw, "scaling-hover") ?? "1x 2m", {
    factorAbove: 0,
    maxS: 7200,
    accepts: HOVER_ACCEPTS,
  });
  const budgets = parseScalingBudgets("budget", given(raw, "budget") ?? "none");
  const rest = {
    pairs: readNumber(raw, "scaling-pairs"),
    beforeS: readNumber(raw, "scaling-before"),
    afterS: readNumber(raw, "scaling-after"),
    hoverFactor: hover.factor,
    hoverS: hover.seconds,
    settleS: readNumber(raw, "scaling-settle"),
    maxReactionIncrease: readNumber(raw, "max-reaction-increase"),
    maxSloDrop: readNumber(raw, "max-scaling-slo-drop"),
    maxFlapIncrease: readNumber(raw, "max-flap-increase"),
    budgets,
  };
  const text = given(raw, "scaling");
  if (text === undefined || text === "none") {
    const set = Object.keys(budgets);
    if (set.length > 0)
      throw new InputError(
        `budget sets ${set.map((k) => (k === "scaleUpS" ? "scale-up" : k)).join(", ")}, which the scaling scenario measures, but scaling is not set; expected scaling (e.g. "1.5x 5m") or those budgets removed`,
      );
    return undefined;
  }
  const step = parseFactorDuration("scaling", text, {
    factorAbove: 1,
    maxS: 7200,
    accepts: SCALING_ACCEPTS,
  });
  return { factor: step.factor, holdS: step.seconds, ...rest };
}

/** The surge asked for, or undefined; every setting of it is validated, used or not. */
export function parseSurge(raw: RawSettings): SurgeOptions | undefined {
  const rest = {
    pairs: readNumber(raw, "surge-pairs"),
    beforeS: readNumber(raw, "surge-before"),
    afterS: readNumber(raw, "surge-after"),
    maxRecoveryIncrease: readNumber(raw, "max-recovery-increase"),
    maxFailureIncrease: readNumber(raw, "max-surge-failure-increase"),
  };
  const text = given(raw, "surge");
  if (text === undefined || text === "none") return undefined;
  return { ...parseSurgeValue(text), ...rest };
}

/**
 * The truncation replay asked for, or undefined; refused where the replay
 * cannot tell a cut from a natural end: a sampled temperature (the idle answer
 * is another sample), ignore_eos (no answer ends stop), multi-turn sessions
 * (a later turn's prompt holds the answers under load).
 */
export function parseTruncation(
  raw: RawSettings,
  trial: { temperature: number; ignoreEos: boolean; turns: number; includeUsage: boolean },
): TruncationOptions | undefined {
  const replay = readNumber(raw, "truncation-replay");
  const maxIncrease = readNumber(raw, "max-truncation-increase");
  if (replay === 0) return undefined;
  const why =
    trial.temperature !== 0
      ? `temperature = ${trial.temperature}: an idle answer is another sample, not the same answer (set temperature 0)`
      : trial.ignoreEos
        ? "ignore-eos is set: no answer ends stop, so none can have been cut short to a stop"
        : trial.turns > 1
          ? "sessions of more than one turn: a later turn's prompt holds the answers given under load"
          : !trial.includeUsage
            ? "no-usage: the answers' lengths are the server's usage counts (content chunks are no unit: a busy server packs more tokens into one)"
            : null;
  if (why) throw new InputError(`truncation-replay = ${replay} is not accepted with ${why}`);
  return { replay, maxIncrease };
}

/** The drain probe when the gate starts both servers; a note when it was asked for and cannot run. */
export function parseDrain(
  raw: RawSettings,
  servers: { startsBoth: boolean; perTrial: boolean },
): { drain: DrainOptions | undefined; notes: string[] } {
  const streams = readNumber(raw, "drain-streams");
  if (streams === 0) return { drain: undefined, notes: [] };
  if (servers.startsBoth && !servers.perTrial) return { drain: { streams }, notes: [] };
  if (!servers.startsBoth && given(raw, "drain-streams") === undefined)
    return { drain: undefined, notes: [] };
  const why = servers.startsBoth
    ? "restart is per-trial: the probe would start each server once more, a cold start, only to stop it"
    : "the gate does not start both servers (baseline-start and candidate-start), and the probe stops them itself";
  return {
    drain: undefined,
    notes: [`the drain probe is skipped: ${why} (drain-streams: 0 says nothing)`],
  };
}

/** The stress suites' rules that take a rate's share of the fail boundaries (known before the trials' options). */
export function stressShares(raw: RawSettings): number {
  const surge = parseSurge(raw) ? SURGE_SHARES : 0;
  const scaling = parseScaling(raw);
  return (
    surge +
    (scaling ? scalingShares(scaling.budgets) : 0) +
    (readNumber(raw, "truncation-replay") > 0 ? TRUNCATION_SHARES : 0)
  );
}

/** The stress suites asked for, checked against the baseline's trials and the servers; what was skipped, said. */
export function parseStress(
  raw: RawSettings,
  baseline: TrialOptions,
  servers: ServerSettings,
): {
  suites: Pick<GateOptions, "surge" | "scaling" | "truncation" | "drain">;
  notes: string[];
} {
  const surge = parseSurge(raw);
  if (surge) refuseUnsurgeable(baseline.workload.arrival, baseline.maxConcurrency, surge.factor);
  const scaling = parseScaling(raw);
  if (scaling)
    refuseUnsurgeable(
      baseline.workload.arrival,
      baseline.maxConcurrency,
      scaling.factor,
      "scaling",
    );
  const truncation = parseTruncation(raw, {
    temperature: baseline.target.temperature,
    ignoreEos: baseline.target.ignoreEos,
    turns: baseline.workload.sessions?.turns ?? 1,
    includeUsage: baseline.target.includeUsage,
  });
  const drain = parseDrain(raw, {
    startsBoth: ARMS.every((a) => servers.commands[a] !== undefined),
    perTrial: servers.restart === "per-trial",
  });
  return {
    suites: {
      ...(surge ? { surge } : {}),
      ...(scaling ? { scaling } : {}),
      ...(truncation ? { truncation } : {}),
      ...(drain.drain ? { drain: drain.drain } : {}),
    },
    notes: drain.notes,
  };
}

/** A surge steps up from the pairs' steady, open-loop rate: refused on anything else. */
export function refuseUnsurgeable(
  arrival: ArrivalSpec,
  maxConcurrency: number | undefined,
  factor: number,
  name: "surge" | "scaling" = "surge",
): void {
  const kind = arrival.kind;
  const steady = kind === "poisson" || kind === "gamma" || kind === "constant" || kind === "swept";
  if (!steady)
    throw new InputError(
      `${name} is set, but the arrivals are ${kind === "shaped" ? "a shaped rate" : kind}: a ${name === "surge" ? "surge" : "step"} steps up from one steady rate (arrival poisson, gamma or constant with a single rate, or a capacity gate) — remove ${name}, or write the shape you want as the rate and run it with measure`,
    );
  const surgePerS = "ratePerS" in arrival ? arrival.ratePerS * factor : 0;
  if (surgePerS > MAX_RATE_PER_S)
    throw new InputError(
      `${name} = ${factor}x on rate ${surgePerS / factor} is ${surgePerS} req/s, not accepted; expected at most ${MAX_RATE_PER_S} req/s, the client's limit (lower the factor or the rate)`,
    );
  if (maxConcurrency !== undefined)
    throw new InputError(
      `${name} is set with max-concurrency = ${maxConcurrency}: a cap on the requests in flight turns the step into a queue in the client — remove one of them`,
    );
}
