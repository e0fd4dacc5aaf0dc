// The A/B gate: interleaved pairs of trials (baseline and candidate back to
// back, same seeded schedule and prompts, one arm under load at a time), with
// added pairs while a metric is inconclusive (pre-declared looks), then the
// quality suite, and the decision.

import { compact } from "../common/format.ts";
import type { MetricComparison } from "../compare/decide.ts";
import type { Guard } from "../compare/guards.ts";
import { type Order, pairOrder } from "../compare/plan.ts";
import type { TrialEntry } from "../compare/trials.ts";
import { type DecisionOptions, decide, overallVerdict } from "../compare/verdict.ts";
import type { Progress } from "../load/runner.ts";
import { type MeasureOptions, type MeasureReport, measure } from "../measure/measure.ts";
import type { QualityReport } from "../quality/paired.ts";
import type { GateRun } from "../report/results.ts";
import { ServerError, type Servers } from "../servers/lifecycle.ts";
import { type QualityDeps, type QualityOptions, runQuality } from "./quality.ts";

export interface GateOptions {
  baseline: MeasureOptions;
  candidate: MeasureOptions;
  /** Pairs before the first look. */
  trials: number;
  /** Pairs at most: one more per look while a metric is inconclusive. */
  maxTrials: number;
  order: Order;
  cooldownS: number;
  decision: DecisionOptions;
  /** undefined: no quality suite. */
  quality: QualityOptions | undefined;
}

export interface GateDeps extends QualityDeps {
  measure?: (options: MeasureOptions, onProgress?: (p: Progress) => void) => Promise<MeasureReport>;
  log?: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
  /** Starts, checks and stops the variants when the gate manages them. */
  servers?: Servers;
}

export async function runGate(options: GateOptions, deps: GateDeps = {}): Promise<GateRun> {
  const run = deps.measure ?? ((o) => measure(o));
  const log = deps.log ?? (() => {});
  const sleep = deps.sleep ?? ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  // Pre-declared looks: the first after `trials` pairs, then one per added pair; α split evenly.
  const looks = options.maxTrials - options.trials + 1;
  const confidence = 1 - (1 - options.decision.confidence) / looks;
  const trials: TrialEntry[] = [];
  let ran = 0;

  const runPair = async (pair: number) => {
    // Every trial runs the same seeded schedule and prompts, so each arm's
    // trials differ only by run-to-run noise, which is what the CV reports.
    const seed = options.baseline.workload.seed;
    for (const [position, arm] of pairOrder(options.order, pair, seed).entries()) {
      if (ran++ > 0 && options.cooldownS > 0) await sleep(options.cooldownS * 1000);
      await deps.servers?.beforeTrial(arm);
      const upTo = options.maxTrials > options.trials ? `(≤${options.maxTrials})` : "";
      log(
        `pair ${pair + 1}/${options.trials}${upTo} ${arm}: measuring ${options[arm].target.baseUrl}`,
      );
      const report = await run(options[arm]);
      log(
        `  ${arm}: ${report.outcomes.ok}/${report.scheduled} ok, p95 TTFT ${compact(report.metrics.ttft_ms.p95)} ms, goodput ${compact(report.goodput.requests_per_s)} req/s${report.validity.valid ? "" : " — INVALID"}`,
      );
      trials.push({ pair, arm, position, seed, report });
      await deps.servers?.afterTrial(arm, `pair ${pair + 1}`);
    }
  };

  let pairs = 0;
  let decision: { guards: Guard[]; comparisons: MetricComparison[] } = {
    guards: [],
    comparisons: [],
  };
  let serverGuard: Guard | undefined;
  let quality: QualityReport | null = null;
  try {
    await deps.servers?.beforeAll();
    while (pairs < options.trials) await runPair(pairs++);
    decision = decide(options.decision, trials, confidence);
    while (
      decision.guards.length === 0 &&
      pairs < options.maxTrials &&
      decision.comparisons.some((c) => c.verdict === "inconclusive")
    ) {
      log(
        `inconclusive after ${pairs} pairs: adding a pair (look ${pairs - options.trials + 2} of ${looks})`,
      );
      await runPair(pairs++);
      decision = decide(options.decision, trials, confidence);
    }
    if (decision.guards.length === 0 && options.quality)
      quality = await runQuality(options, options.quality, deps, log);
  } catch (error) {
    if (!(error instanceof ServerError)) throw error;
    serverGuard = { code: "server", message: error.message, detail: error.logTail, arm: error.arm };
  } finally {
    await deps.servers?.stopAll();
  }
  if (serverGuard) {
    // The run stops where the server failed: what was measured is kept, but decides nothing.
    decision = decide(options.decision, trials, confidence);
    decision.guards.unshift(serverGuard);
    pairs = new Set(trials.map((t) => t.pair)).size;
  }
  return {
    trials,
    comparisons: decision.comparisons,
    guards: decision.guards,
    verdict: overallVerdict(decision.guards, decision.comparisons, quality?.verdict === "fail"),
    pairs,
    looks,
    confidence_per_look: confidence,
    servers: deps.servers?.starts ?? [],
    quality,
  };
}
