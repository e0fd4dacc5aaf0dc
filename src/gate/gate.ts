// The A/B gate: each arm's preflight, then interleaved pairs of trials
// (baseline and candidate back to back, same seeded schedule and prompts, one
// arm under load at a time, each on an idle server), a pair re-run when a
// trial fails its self-checks, pairs added while a metric is inconclusive
// (pre-declared looks), then the quality suite, and the decision.

import { type CapacityOptions, type CapacityRun, capacityRun } from "../capacity/report.ts";
import { ARMS, type Arm } from "../common/arms.ts";
import { compact, plural } from "../common/format.ts";
import type { Guard } from "../common/guard.ts";
import { decideRun, lookConfidence } from "../compare/decide-run.ts";
import { type Order, pairOrder } from "../compare/plan.ts";
import { type TrialEntry, trialName } from "../compare/trials.ts";
import { type Decision, type DecisionOptions, decide, undecided } from "../compare/verdict.ts";
import type { Target } from "../openai/target.ts";
import type { QualityReport } from "../quality/paired.ts";

import type { ServerMetricsOptions } from "../servermetrics/scraper.ts";
import { ServerError, type Servers } from "../servers/lifecycle.ts";
import {
  type IdleCheck,
  PreflightError,
  type PreflightReport,
  preflight,
  waitIdle,
} from "../servers/preflight.ts";
import { measureTrial, type TrialOptions, type TrialReport } from "../trial/measure.ts";
import { atGateRate, type MeasureArm, newArmSweep, planCapacity, sweepArms } from "./capacity.ts";
import type { GateRun, IdleRecord, RerunRecord } from "./gate-run.ts";
import { type QualityDeps, type QualityOptions, runQuality } from "./quality.ts";

export interface GateOptions {
  baseline: TrialOptions;
  candidate: TrialOptions;
  /** Pairs before the first look. */
  trials: number;
  /** Pairs at most: one more per look while a metric is inconclusive. */
  maxTrials: number;
  order: Order;
  cooldownS: number;
  /** Times a pair is run again when one of its trials fails its self-checks. */
  maxReruns: number;
  /** How long the idle check before a trial may wait for a busy server. */
  idleTimeoutS: number;
  decision: DecisionOptions;
  /** undefined: no quality suite. */
  quality: QualityOptions | undefined;
  /** undefined: a gate at the configured rate; else sweep both arms, then pairs at the baseline's capacity. */
  capacity: CapacityOptions | undefined;
}

/** The checks of a server before trials: stand-ins in tests that measure nothing real. */
export interface ServerChecks {
  preflight(arm: Arm, target: Target, timeoutS: number): Promise<PreflightReport>;
  waitIdle(
    target: Target,
    idleTtftMs: number,
    timeoutS: number,
    metrics: ServerMetricsOptions | null,
  ): Promise<IdleCheck>;
}

export const REAL_CHECKS: ServerChecks = { preflight, waitIdle };

export interface GateDeps extends QualityDeps {
  measureTrial?: (options: TrialOptions, deps: { signal?: AbortSignal }) => Promise<TrialReport>;
  /** Aborted when the job is cancelled: no trial starts after it, the running one ends. */
  signal?: AbortSignal;
  log?: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
  /** A monotonic clock (ms) for the capacity gate's max-duration. */
  nowMs?: () => number;
  /** Starts, checks and stops the variants when the gate manages them. */
  servers?: Servers;
  checks?: ServerChecks;
}

export async function runGate(options: GateOptions, deps: GateDeps = {}): Promise<GateRun> {
  const run = deps.measureTrial ?? ((o, d) => measureTrial(o, d));
  const signal = deps.signal;
  /** Thrown where a cancelled run stops; caught below. */
  const cancelled = new Error("cancelled");
  const log = deps.log ?? (() => {});
  const sleep = deps.sleep ?? ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const checks = deps.checks ?? REAL_CHECKS;
  const { looks, perLook: confidence } = lookConfidence(options.decision.confidence, options);
  const trials: TrialEntry[] = [];
  const preflights = new Map<Arm, PreflightReport>();
  const idle: IdleRecord[] = [];
  const reruns: RerunRecord[] = [];
  let ran = 0;
  const warnings: string[] = [];
  if (options.maxTrials < 2) {
    warnings.push(
      "trials is 1: with one pair the trial-to-trial noise is unknown, so no latency or goodput metric can fail this gate — set trials to 3 or more",
    );
  }
  for (const w of warnings) log(`warning: ${w}`);

  const ensurePreflight = async (arm: Arm) => {
    if (preflights.has(arm)) return;
    const report = await checks.preflight(arm, options[arm].target, options[arm].timeoutS);
    preflights.set(arm, report);
    log(
      `${arm}: preflight ok, first TTFT ${compact(report.first_ttft_ms)} ms, idle ${compact(report.idle_ttft_ms)} ms`,
    );
    for (const w of report.warnings) log(`${arm}: ${w}`);
  };

  /** `what` names the trial to the server hooks; `heading` shows the progress. */
  const measureArm = async (
    arm: Arm,
    armOptions: TrialOptions,
    what: string,
    heading = what,
  ): ReturnType<MeasureArm> => {
    if (signal?.aborted) throw cancelled;
    if (ran++ > 0 && options.cooldownS > 0) await sleep(options.cooldownS * 1000);
    await deps.servers?.beforeTrial(arm);
    await ensurePreflight(arm);
    const reference = preflights.get(arm)?.idle_ttft_ms ?? 0;
    const idleCheck = await checks.waitIdle(
      armOptions.target,
      reference,
      options.idleTimeoutS,
      armOptions.serverMetrics,
    );
    if (idleCheck.note) log(`  ${arm}: ${idleCheck.note}`);
    log(`${heading} ${arm}: measuring ${armOptions.target.baseUrl}`);
    const report = await run(armOptions, signal ? { signal } : {});
    const p = options.decision.percentile;
    // A trial cut short by the cancel is not a measurement: it is dropped.
    if (signal?.aborted) throw cancelled;
    log(
      `  ${arm}: ${report.outcomes.ok}/${report.scheduled} ok, ${p} TTFT ${compact(report.metrics.ttft_ms[p])} ms, ${p} ITL ${compact(report.metrics.itl_ms[p])} ms, goodput ${compact(report.goodput.requests_per_s)} req/s${report.validity.valid ? "" : ` — INVALID: ${report.validity.reasons.join("; ")}`}`,
    );
    await deps.servers?.afterTrial(arm, what);
    return { report, idle: idleCheck };
  };

  // The paired trials' settings: as configured, or at the baseline's capacity.
  let trialOptions: Record<Arm, TrialOptions> = {
    baseline: options.baseline,
    candidate: options.candidate,
  };

  const runTrial = async (pair: number, position: number, arm: Arm): Promise<TrialEntry> => {
    const upTo = options.maxTrials > options.trials ? `(≤${options.maxTrials})` : "";
    // Each pair its own prompt texts (same schedule and lengths): a prefix cache
    // must not serve one pair's prompts to the next and make later pairs look faster.
    const own = trialOptions[arm];
    const { report, idle: check } = await measureArm(
      arm,
      { ...own, workload: { ...own.workload, promptRound: pair } },
      `pair ${pair + 1}`,
      `pair ${pair + 1}/${options.trials}${upTo}`,
    );
    idle.push({ pair, arm, ...check });
    return { pair, arm, position, seed: options.baseline.workload.seed, report };
  };

  const runPair = async (pair: number) => {
    // Every trial runs the same seeded schedule and prompt lengths (the texts are
    // new each pair), so each arm's trials differ only by run-to-run noise, which
    // is what the CV reports.
    const order = pairOrder(options.order, pair, options.baseline.workload.seed);
    for (let attempt = 0; ; attempt++) {
      const entries: TrialEntry[] = [];
      for (const [position, arm] of order.entries())
        entries.push(await runTrial(pair, position, arm));
      const invalid = entries.filter((e) => !e.report.validity.valid);
      if (invalid.length === 0 || attempt >= options.maxReruns) {
        trials.push(...entries);
        return;
      }
      // The whole pair again, so that both arms of a pair stay comparable.
      reruns.push({
        pair,
        attempt: attempt + 1,
        invalid: invalid.map((e) => ({ arm: e.arm, reasons: e.report.validity.reasons })),
      });
      log(
        `${invalid.map(trialName).join(", ")} failed the self-checks: running pair ${pair + 1} again (${attempt + 1}/${options.maxReruns})`,
      );
    }
  };

  const nowMs = deps.nowMs ?? (() => performance.now());
  const startMs = nowMs();
  const maxDurationS = options.capacity?.sweep.maxDurationS;
  const overBudget = () => maxDurationS !== undefined && (nowMs() - startMs) / 1000 >= maxDurationS;
  const sweep = options.capacity ? newArmSweep() : undefined;
  const sweepIdle: CapacityRun["idle_checks"] = [];
  let planned = { trials: 0, seconds: 0 };
  let capacity: CapacityRun | null = null;
  /** Why the paired trials did not run (or not all): the capacity gate's reasons. */
  let capacityStop: string | null = null;

  const runCapacity = async (c: CapacityOptions, s: NonNullable<typeof sweep>) => {
    const plan = planCapacity(trialOptions, c, options.trials);
    planned = { trials: plan.trials, seconds: plan.seconds };
    log(plan.words);
    await sweepArms(s, trialOptions, c, measureArm, sweepIdle, { nowMs, log });
    capacity = capacityRun(s, trialOptions, c, planned, sweepIdle);
    const { baseline, candidate } = capacity.arms;
    log(`capacity: baseline ${baseline.labels.server}; candidate ${candidate.labels.server}`);
    log(`capacity: ${capacity.comparison.verdict}: ${capacity.comparison.reason}`);
    if (capacity.gate_rate_per_s === null) {
      capacityStop =
        capacity.stopped_by ??
        "the baseline met its SLO at no rate tried: there is no capacity to run the paired trials at";
      return;
    }
    trialOptions = atGateRate(trialOptions, c, capacity.gate_rate_per_s);
    log(
      `paired trials at ${capacity.gate_rate_per_s} req/s (the baseline's capacity × gate-rate-fraction ${c.rateFraction})`,
    );
  };

  let pairs = 0;
  let decision: Decision = { guards: [], comparisons: [], reliability: null };
  let stopped: Guard | undefined;
  let quality: QualityReport | null = null;
  let qualitySkipped: string | null = null;
  try {
    await deps.servers?.beforeAll();
    // Servers started per trial are checked when they first start.
    for (const arm of ARMS) if (!deps.servers?.perTrial) await ensurePreflight(arm);
    if (options.capacity && sweep) await runCapacity(options.capacity, sweep);
    if (capacityStop === null) {
      while (pairs < options.trials && !overBudget()) await runPair(pairs++);
      decision = decide(options.decision, trials, confidence);
      while (
        decision.guards.length === 0 &&
        pairs < options.maxTrials &&
        undecided(decision) &&
        !overBudget()
      ) {
        log(
          `inconclusive after ${pairs} pairs: adding a pair (look ${pairs - options.trials + 2} of ${looks})`,
        );
        await runPair(pairs++);
        decision = decide(options.decision, trials, confidence);
      }
      if (overBudget() && (pairs < options.trials || undecided(decision))) {
        capacityStop = `max-duration ${maxDurationS} s reached after ${plural(pairs, "pair")}`;
        log(`${capacityStop}: stopping with what was measured`);
      }
    }
    // Its verdict does not depend on the latency trials: it runs whatever they found.
    if (options.quality && !signal?.aborted)
      quality = await runQuality(options, options.quality, deps, log);
  } catch (error) {
    if (error === cancelled) {
      // Stopped where the signal found it: what was measured stays in the results.
    } else if (error instanceof ServerError) {
      stopped = { code: "server", message: error.message, detail: error.logTail, arm: error.arm };
    } else if (error instanceof PreflightError) {
      stopped = { code: "preflight", message: error.message, arm: error.arm };
      if (error.detail) stopped.detail = error.detail;
    } else {
      throw error;
    }
  } finally {
    await deps.servers?.stopAll();
  }
  // A sweep cut short (cancel, a server that failed) still shows what it measured.
  if (options.capacity && sweep && capacity === null)
    capacity = capacityRun(sweep, trialOptions, options.capacity, planned, sweepIdle);
  const finalCapacity: CapacityRun | null = capacity;
  if (finalCapacity && capacityStop !== null && finalCapacity.stopped_by === null)
    finalCapacity.stopped_by = capacityStop;
  const wasCancelled = signal?.aborted ?? false;
  // A run stopped early (a cancel, a server that failed) keeps what it measured.
  if (wasCancelled || stopped) pairs = new Set(trials.map((t) => t.pair)).size;
  if (options.quality && !quality) {
    if (wasCancelled) qualitySkipped = "not run: the job was cancelled";
    else if (stopped) qualitySkipped = `not run: ${stopped.message}`;
  }
  const decided = decideRun(options.decision, options, {
    trials,
    runGuards: stopped ? [stopped] : [],
    capacity: finalCapacity
      ? {
          verdict: finalCapacity.comparison.verdict,
          incomplete: finalCapacity.stopped_by !== null,
        }
      : undefined,
    qualityFailed: quality?.verdict === "fail",
    cancelled: wasCancelled,
  });
  return {
    trials,
    ...decided,
    pairs,
    preflight: ARMS.flatMap((arm) => preflights.get(arm) ?? []),
    idle_checks: idle,
    reruns,
    servers: deps.servers?.starts ?? [],
    quality,
    quality_skipped: qualitySkipped,
    warnings,
    cancelled_by: wasCancelled ? String(signal?.reason ?? "a cancel") : null,
    capacity: finalCapacity,
  };
}
