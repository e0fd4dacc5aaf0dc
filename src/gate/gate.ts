// The A/B gate: each arm's preflight, then (for a capacity gate) both arms'
// sweeps, then interleaved pairs of trials (baseline and candidate back to
// back, same seeded schedule and prompt lengths, one arm under load at a
// time, each on an idle server), a pair re-run when a trial fails its
// self-checks, pairs added at the design's looks while a metric is open and
// none has regressed, and the side-suites (gate/suites.ts) — before the pairs
// (fail-fast, the default: a regression they show stops the pairs at the
// first look) or after them — then the decision and what it cost.

import { ARMS, type Arm } from "../common/arms.ts";
import { plural } from "../common/format.ts";
import type { Guard } from "../common/guard.ts";
import { decideRun, designOf, sharesOf } from "../compare/decide-run.ts";
import { type PlanCheck, perTrialOf, planCheck, planLines, withNoise } from "../compare/reach.ts";
import { type Decision, decide, undecided } from "../compare/verdict.ts";
import { ServerError } from "../servers/lifecycle.ts";
import { PreflightError } from "../servers/preflight.ts";
import type { TrialOptions } from "../trial/measure.ts";
import { CapacityPhase } from "./capacity.ts";
import { costOf, type RunCost } from "./cost.ts";
import { type GateRun, runRecord } from "./gate-run.ts";
import { Cancelled, type GateDeps, type GateOptions } from "./options.ts";
import type { SuiteContext } from "./suite.ts";
import { accuracyPlan, type SuitePlan, suitePlanLine } from "./suite-plan.ts";
import {
  addTrialEvidence,
  noSuites,
  runSuites,
  type SuiteId,
  type SuitePhase,
  type SuiteSkips,
  type SuitesFound,
  suiteFields,
  suiteOutcomes,
  suitePlanLines,
} from "./suites.ts";
import { TrialRunner } from "./trials.ts";

/** The warnings a reader must know about how the run was set up. */
export function setupWarnings(options: GateOptions): string[] {
  return [...(options.setupNotes ?? []), ...designWarnings(options)];
}

/** What the pairs' design leaves unbalanced or undecidable. */
function designWarnings(options: GateOptions): string[] {
  if (options.maxTrials < 2)
    return [
      "trials is 1: with one pair the trial-to-trial noise is unknown, so no latency or goodput metric can fail this gate — set trials to 4 (or more)",
    ];
  // A position effect δ (the second arm of a pair meets a warmer server, or a cooler one)
  // cancels only when as many pairs run each arm first.
  if (options.order === "abab")
    return [
      "order is abab: the baseline runs first in every pair, so an effect of running second is all bias in the change — abba balances it",
    ];
  if (options.order === "abba" && options.trials % 2 === 1)
    return [
      `trials is ${options.trials}, odd: every look has one more baseline-first pair than candidate-first, so an effect of running second biases the change by its 1/n — set an even trials`,
    ];
  return [];
}

/** A server or preflight failure as the guard that stops the run; anything else is rethrown. */
function stoppedBy(error: unknown): Guard | undefined {
  if (error instanceof Cancelled) return undefined;
  if (error instanceof ServerError)
    return { code: "server", message: error.message, detail: error.logTail, arm: error.arm };
  if (error instanceof PreflightError)
    return {
      code: "preflight",
      message: error.message,
      arm: error.arm,
      ...(error.detail ? { detail: error.detail } : {}),
    };
  throw error;
}

/** What the pairs left: why they stopped early (the budget), the plan check, and notes for the reader. */
interface PairsRun {
  budget: string | null;
  plan: PlanCheck;
  notes: string[];
}

/** The families still open, by label; and those given up (futile) while pairs were left. */
function openFamilies(decision: Decision): { open: string[]; futile: string[] } {
  const of = (status: string) => [
    ...decision.comparisons.filter((c) => c.status === status).map((c) => c.label),
    ...(decision.reliability?.status === status ? ["failure rate"] : []),
    ...decision.budgets.filter((b) => b.status === status).map((b) => `budget ${b.label}`),
  ];
  return { open: of("open"), futile: of("futile") };
}

/**
 * The pairs: `trials` of them, then a block of LOOK_STEP more at each look
 * while a family is open and can still be decided, up to `maxTrials`, within
 * the time budget — none added once the gate fails anyway (`failed`: its
 * capacity or a side-suite regressed). The plan check is said first.
 */
async function runPairs(
  runner: TrialRunner,
  options: GateOptions,
  armOptions: Record<Arm, TrialOptions>,
  stop: { overBudget: () => boolean; failed: boolean },
  log: (line: string) => void,
): Promise<PairsRun> {
  const { overBudget } = stop;
  const shares = sharesOf(options.decision);
  const design = designOf(options, options.decision.confidence, shares.latencies, shares.rates);
  const tolerance = options.decision.reliability.maxFailureIncrease;
  let plan = planCheck(design, perTrialOf(armOptions.baseline.workload), tolerance);
  for (const line of planLines(plan)) log(line);
  for (const u of plan.undecidable) log(`warning: ${u}`);
  const notes = [...plan.undecidable];
  let pairs = 0;
  while (pairs < options.trials && !overBudget()) await runner.runPair(pairs++, armOptions);
  let decision = decide(options.decision, runner.trials, design);
  plan = withNoise(plan, decision.comparisons, design);
  for (const line of planLines(plan).slice(2)) log(line);
  while (!stop.failed && decision.guards.length === 0 && undecided(decision) && !overBudget()) {
    const next = design.looks.find((n) => n > pairs);
    if (next === undefined) break;
    log(
      `open after ${pairs} pairs (${openFamilies(decision).open.join(", ")}): adding pairs up to ${next} (look ${design.looks.indexOf(next) + 1} of ${design.looks.length})`,
    );
    while (pairs < next && !overBudget()) await runner.runPair(pairs++, armOptions);
    decision = decide(options.decision, runner.trials, design);
  }
  const { open, futile } = openFamilies(decision);
  if (open.length === 0 && futile.length > 0 && pairs < options.maxTrials) {
    const note = `stopped at ${plural(pairs, "pair")} of ${options.maxTrials}: ${futile.join(", ")} cannot be decided within max-trials (see ${futile.length > 1 ? "their reasons" : "its reason"}), and nothing else was open`;
    log(note);
    notes.push(note);
  }
  const budget =
    overBudget() && (pairs < options.trials || undecided(decision))
      ? `max-duration ${options.capacity?.sweep.maxDurationS} s reached after ${plural(pairs, "pair")}`
      : null;
  return { budget, plan, notes };
}

/**
 * What the side-suites are given: the trials so far, the pairs' measure and
 * rate (and the baseline's capacity), and with fail-fast what regressed
 * already — the costly suites after the pairs (the surge) then skip.
 */
function suiteContext(
  runner: TrialRunner,
  atRate: Record<Arm, TrialOptions>,
  capacity: CapacityPhase | undefined,
  suites: SuitesFound,
  failFast: boolean,
): Omit<SuiteContext, "log"> {
  const failed = [...suiteOutcomes(suites).failed, ...(capacity?.regressed ? ["capacity"] : [])];
  return {
    trials: runner.trials,
    nextTrial: runner.nextTrial,
    measureArm: runner.measureArm,
    settle: runner.settle,
    atRate,
    ...(capacity?.baselineCapacityPerS ? { capacityPerS: capacity.baselineCapacityPerS } : {}),
    ...(failFast && failed.length > 0 ? { failedAlready: failed.join(", ") } : {}),
    ...(runner.stops ? { stopSamples: runner.stops.samples } : {}),
  };
}

/** The item suites' plan at the preflights' speed, said before their first request. */
function planTheSuites(
  options: GateOptions,
  runner: TrialRunner,
  log: (line: string) => void,
): SuitePlan[] {
  const preflights = {
    baseline: runner.preflights.get("baseline"),
    candidate: runner.preflights.get("candidate"),
  };
  const a = accuracyPlan(options.accuracy, preflights);
  if (!a || !options.accuracy) return [];
  log(suitePlanLine(a, options.accuracy.concurrency));
  return [a];
}

export async function runGate(options: GateOptions, deps: GateDeps = {}): Promise<GateRun> {
  const log = deps.log ?? (() => {});
  const warnings = setupWarnings(options);
  for (const w of warnings) log(`warning: ${w}`);
  for (const line of suitePlanLines(options)) log(line);
  const runner = new TrialRunner(options, deps);
  const nowMs = deps.nowMs ?? (() => performance.now());
  const startMs = nowMs();
  const maxDurationS = options.capacity?.sweep.maxDurationS;
  const overBudget = () => maxDurationS !== undefined && (nowMs() - startMs) / 1000 >= maxDurationS;
  const capacity = options.capacity
    ? new CapacityPhase(options.capacity, options.decision.minOkRequests)
    : undefined;
  let armOptions: Record<Arm, TrialOptions> = {
    baseline: options.baseline,
    candidate: options.candidate,
  };
  let stopped: Guard | undefined;
  let plan: PlanCheck | null = null;
  let suitesPlan: SuitePlan[] = [];
  const suites = noSuites();
  const suiteSeconds: Partial<Record<SuiteId, number>> = {};
  const suiteSkips: SuiteSkips = {};
  // Their verdicts do not depend on the latency trials: they run before or after them
  // (the surge after them always: it leaves a server overloaded).
  const suitesNow = (phase: SuitePhase) =>
    runSuites(
      options,
      deps,
      suiteContext(runner, armOptions, capacity, suites, options.failFast),
      suites,
      suiteSeconds,
      phase,
      suiteSkips,
    );
  try {
    await deps.servers?.beforeAll();
    // Servers started per trial are checked when they first start.
    for (const arm of ARMS) if (!deps.servers?.perTrial) await runner.ensurePreflight(arm);
    suitesPlan = planTheSuites(options, runner, log);
    if (options.failFast) await suitesNow("before");
    const atRate = capacity
      ? await capacity.run(armOptions, options.trials, runner.measureArm, { nowMs, log })
      : armOptions;
    if (atRate && capacity) armOptions = atRate;
    if (atRate) {
      const regressed = suiteOutcomes(suites).failed;
      if (regressed.length > 0)
        log(
          `${regressed.join(", ")} regressed before the pairs: ${plural(options.trials, "pair")} for the latencies, none added (fail-fast)`,
        );
      const failed = (capacity?.regressed ?? false) || regressed.length > 0;
      const ran = await runPairs(runner, options, armOptions, { overBudget, failed }, log);
      plan = ran.plan;
      warnings.push(...ran.notes);
      if (ran.budget && capacity) {
        capacity.stop = ran.budget;
        log(`${ran.budget}: stopping with what was measured`);
      }
    }
    if (options.failFast) addTrialEvidence(options, runner.trials, suites);
    // The surge needs the pairs' rate (a capacity gate that found none has none): it says so.
    await suitesNow(options.failFast ? "after" : "all");
  } catch (error) {
    // Stopped where the cancel or the failure found it: what was measured stays in the results.
    stopped = stoppedBy(error);
  } finally {
    await deps.servers?.stopAll();
  }
  const capacityRun = capacity?.result(armOptions) ?? null;
  const cost = costOf({
    trials: runner.trials,
    reruns: runner.reruns,
    capacity: capacityRun,
    suites: suiteSeconds,
    servers: deps.servers?.starts ?? [],
    totalS: (nowMs() - startMs) / 1000,
    plan,
    suitesPlan,
  });
  return assembleRun(options, deps, runner, {
    capacity: capacityRun,
    stopped,
    suites,
    skips: suiteSkips,
    warnings,
    cost,
  });
}

/** The run's results from what the phases left: the decision made once, over every trial. */
function assembleRun(
  options: GateOptions,
  deps: GateDeps,
  runner: TrialRunner,
  found: {
    capacity: GateRun["capacity"];
    stopped: Guard | undefined;
    suites: SuitesFound;
    skips: SuiteSkips;
    warnings: string[];
    cost: RunCost;
  },
): GateRun {
  const { capacity, stopped, suites } = found;
  const cancelled = deps.signal?.aborted ?? false;
  const skipped = cancelled ? "the job was cancelled" : stopped?.message;
  const decided = decideRun(options.decision, options, {
    trials: runner.trials,
    runGuards: stopped ? [stopped] : [],
    capacity: capacity
      ? { verdict: capacity.comparison.verdict, incomplete: capacity.stopped_by !== null }
      : undefined,
    apart: suiteOutcomes(suites),
    cancelled,
  });
  return runRecord({
    trials: runner.trials,
    ...decided,
    preflight: ARMS.flatMap((arm) => runner.preflights.get(arm) ?? []),
    idle_checks: runner.idle,
    reruns: runner.reruns,
    servers: deps.servers?.starts ?? [],
    ...suiteFields(options, suites, skipped, found.skips),
    warnings: found.warnings,
    cancelled_by: cancelled ? String(deps.signal?.reason ?? "a cancel") : null,
    capacity,
    cost: found.cost,
  });
}
