// The A/B gate: interleaved pairs of trials (baseline and candidate back to
// back, same seeded schedule and prompts, one arm under load at a time), then
// guards, the paired comparison of each gated metric, and one verdict.

import {
  compareMetric,
  type MetricComparison,
  type MetricSpec,
  type PairValues,
  signedPercent as signed,
} from "./compare/decide.ts";
import { type Arm, pairOrder } from "./compare/plan.ts";
import type { GateConfig, Verdict } from "./config/gate.ts";
import type { MeasureConfig } from "./config/measure.ts";
import type { Target } from "./load/client.ts";
import { OUTCOMES } from "./load/record.ts";
import type { Progress } from "./load/runner.ts";
import { type MeasureReport, measure } from "./measure.ts";
import { type PooledPercentiles, poolHistograms } from "./metrics/pool.ts";
import { compareQuality, type QualityReport } from "./quality/compare.ts";
import { type CaseRun, type QualityRunOptions, runSuite } from "./quality/run.ts";
import type { Suite } from "./quality/suite.ts";
import { ServerError, type ServerLifecycle, type StartRecord } from "./servers/lifecycle.ts";

export const RESULTS_SCHEMA = "llm-perf-gate/results@1";

export interface TrialEntry {
  pair: number;
  arm: Arm;
  /** 0 when the arm ran first in its pair. */
  position: number;
  seed: number;
  report: MeasureReport;
}

export interface GateOutcome {
  trials: TrialEntry[];
  comparisons: MetricComparison[];
  /** Why there is no performance verdict (empty when there is one). */
  guards: string[];
  verdict: Verdict;
  headline: string;
  pairs: number;
  looks: number;
  confidence_per_look: number;
  pooled: Record<Arm, Record<string, PooledPercentiles>>;
  /** Servers the gate started: readiness, cold start, logs. */
  servers: StartRecord[];
  /** The quality suite's comparison, when one ran. */
  quality: QualityReport | null;
}

export interface GateDeps {
  measure?: (config: MeasureConfig, onProgress?: (p: Progress) => void) => Promise<MeasureReport>;
  log?: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
  /** Starts, checks and stops the variants when the gate manages them. */
  servers?: ServerLifecycle;
  /** Runs quality cases against one variant (the real runner by default). */
  runSuite?: (
    target: Target,
    suite: Suite,
    options: QualityRunOptions,
    only?: Set<string>,
  ) => Promise<CaseRun[]>;
}

function metricSpecs(config: GateConfig): MetricSpec[] {
  const p = config.percentile === "p999" ? "p99.9" : config.percentile;
  const t = config.tolerances;
  const specs: MetricSpec[] = [
    { id: "goodput", label: "goodput", unit: "req/s", higherIsWorse: false, tolerance: t.goodput },
    { id: "ttft", label: `${p} TTFT`, unit: "ms", higherIsWorse: true, tolerance: t.ttft },
    { id: "itl", label: `${p} ITL`, unit: "ms", higherIsWorse: true, tolerance: t.itl },
  ];
  if (t.tpot !== undefined)
    specs.push({
      id: "tpot",
      label: `${p} TPOT`,
      unit: "ms",
      higherIsWorse: true,
      tolerance: t.tpot,
    });
  if (t.e2el !== undefined)
    specs.push({
      id: "e2el",
      label: `${p} E2EL`,
      unit: "ms",
      higherIsWorse: true,
      tolerance: t.e2el,
    });
  if (t.successRate !== undefined) {
    specs.push({
      id: "success_rate",
      label: "success rate",
      unit: "",
      higherIsWorse: false,
      tolerance: t.successRate,
    });
  }
  return specs;
}

/** One trial's value of a gated metric; undefined when the trial has no sample of it. */
export function metricValue(
  id: string,
  r: MeasureReport,
  percentile: GateConfig["percentile"],
): number | undefined {
  switch (id) {
    case "goodput":
      // Half a request per window keeps a ratio finite when an arm has no good request.
      return Math.max(r.goodput.requests_per_s, 0.5 / Math.max(r.window_s, 1e-9));
    case "success_rate":
      return Math.max(r.outcomes.ok, 0.5) / Math.max(r.scheduled, 1);
    case "ttft":
    case "itl":
    case "tpot":
    case "e2el":
      return r.metrics[`${id}_ms`][percentile] ?? undefined;
    default:
      return undefined;
  }
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

function guardsFor(config: GateConfig, trials: TrialEntry[], specs: MetricSpec[]): string[] {
  const guards: string[] = [];
  const name = (t: TrialEntry) => `pair ${t.pair + 1} ${t.arm}`;
  for (const t of trials) {
    if (!t.report.validity.valid)
      guards.push(`${name(t)}: invalid measurement: ${t.report.validity.reasons.join("; ")}`);
    if (t.report.outcomes.ok < config.minOkRequests) {
      guards.push(
        `${name(t)}: only ${t.report.outcomes.ok} ok requests (at least ${config.minOkRequests} needed)`,
      );
    }
    for (const spec of specs) {
      if (metricValue(spec.id, t.report, config.percentile) === undefined) {
        guards.push(`${name(t)}: no ${spec.label} samples (are outputs a single token?)`);
      }
    }
  }
  for (const arm of ["baseline", "candidate"] as const) {
    const mine = trials.filter((t) => t.arm === arm);
    const scheduled = mine.reduce((s, t) => s + t.report.scheduled, 0);
    const failed = mine.reduce((s, t) => s + t.report.scheduled - t.report.outcomes.ok, 0);
    if (scheduled > 0 && failed / scheduled > config.maxErrorRate) {
      const classes = OUTCOMES.filter((o) => o !== "ok")
        .map((o) => [o, mine.reduce((s, t) => s + t.report.outcomes[o], 0)] as const)
        .filter(([, c]) => c > 0)
        .map(([o, c]) => `${o} ${c}`)
        .join(", ");
      guards.push(
        `${arm}: ${pct(failed / scheduled)} of requests failed (limit ${pct(config.maxErrorRate)}): ${classes}`,
      );
    }
  }
  const pairs = new Set(trials.map((t) => t.pair));
  for (const pair of pairs) {
    const [a, b] = trials.filter((t) => t.pair === pair);
    if (a && b && a.report.workload.fingerprint !== b.report.workload.fingerprint) {
      guards.push(
        `pair ${pair + 1}: the arms ran different workloads (fingerprints ${a.report.workload.fingerprint} and ${b.report.workload.fingerprint})`,
      );
    }
  }
  return guards;
}

function compareAll(
  config: GateConfig,
  trials: TrialEntry[],
  specs: MetricSpec[],
  confidence: number,
): MetricComparison[] {
  const pairs = [...new Set(trials.map((t) => t.pair))].sort((a, b) => a - b);
  return specs.flatMap((spec) => {
    const values: PairValues[] = [];
    for (const pair of pairs) {
      const get = (arm: Arm) => {
        const t = trials.find((x) => x.pair === pair && x.arm === arm);
        return t ? metricValue(spec.id, t.report, config.percentile) : undefined;
      };
      const baseline = get("baseline");
      const candidate = get("candidate");
      if (baseline !== undefined && candidate !== undefined && baseline > 0 && candidate > 0) {
        values.push({ baseline, candidate });
      }
    }
    // A metric without one complete pair has nothing to compare (a guard says why).
    return values.length > 0
      ? [compareMetric(spec, values, config.rule, confidence, config.maxTrialCv)]
      : [];
  });
}

function headlineFor(
  verdict: Verdict,
  guards: string[],
  comparisons: MetricComparison[],
  quality: QualityReport | null,
): string {
  const describe = (c: MetricComparison) =>
    `${c.label} ${signed(c.change)} (limit ${signed(c.higher_is_worse ? c.tolerance : -c.tolerance)})`;
  switch (verdict) {
    case "error":
      return `no performance verdict: ${guards[0]?.split("\n")[0]}${guards.length > 1 ? ` (and ${guards.length - 1} more)` : ""}`;
    case "fail": {
      const metrics = comparisons.filter((c) => c.verdict === "regressed").map(describe);
      // "contract: …" / "json_schema: …": name the failing quality checks.
      const checks =
        quality?.verdict === "fail"
          ? [`quality ${quality.reasons.map((r) => r.split(":")[0]).join(", ")}`]
          : [];
      return `regressed: ${[...metrics, ...checks].join(", ")}`;
    }
    case "inconclusive":
      return `beyond the tolerance but within the noise: ${comparisons
        .filter((c) => c.verdict === "inconclusive")
        .map(describe)
        .join(", ")} — more pairs would decide`;
    default:
      return "no gated metric regressed beyond its tolerance and the noise";
  }
}

export async function runGate(config: GateConfig, deps: GateDeps = {}): Promise<GateOutcome> {
  const run = deps.measure ?? ((c, onProgress) => measure(c, onProgress ? { onProgress } : {}));
  const log = deps.log ?? (() => {});
  const sleep = deps.sleep ?? ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const specs = metricSpecs(config);
  // Pre-declared looks: the first after `trials` pairs, then one per added pair; α split evenly.
  const looks = config.maxTrials - config.trials + 1;
  const confidence = 1 - (1 - config.confidence) / looks;
  const trials: TrialEntry[] = [];
  let ran = 0;

  const runPair = async (pair: number) => {
    // Every trial runs the same seeded schedule and prompts, so each arm's
    // trials differ only by run-to-run noise, which is what the CV reports.
    const seed = config.baseline.workload.seed;
    const order = pairOrder(config.order, pair, seed);
    for (const [position, arm] of order.entries()) {
      if (ran++ > 0 && config.cooldownS > 0) await sleep(config.cooldownS * 1000);
      const armConfig = config[arm];
      await deps.servers?.beforeTrial(arm);
      log(
        `pair ${pair + 1}/${config.trials}${config.maxTrials > config.trials ? `(≤${config.maxTrials})` : ""} ${arm}: measuring ${armConfig.target.baseUrl}`,
      );
      const report = await run(armConfig);
      log(
        `  ${arm}: ${report.outcomes.ok}/${report.scheduled} ok, p95 TTFT ${report.metrics.ttft_ms.p95 ?? "–"} ms, goodput ${report.goodput.requests_per_s} req/s${report.validity.valid ? "" : " — INVALID"}`,
      );
      trials.push({ pair, arm, position, seed, report });
      await deps.servers?.afterTrial(arm, `pair ${pair + 1}`);
    }
  };

  let pairs = 0;
  let guards: string[] = [];
  let comparisons: MetricComparison[] = [];
  let serverFailure: string | undefined;
  let quality: QualityReport | null = null;
  try {
    await deps.servers?.beforeAll();
    while (pairs < config.trials) await runPair(pairs++);
    guards = guardsFor(config, trials, specs);
    comparisons = compareAll(config, trials, specs, confidence);
    while (
      guards.length === 0 &&
      pairs < config.maxTrials &&
      comparisons.some((c) => c.verdict === "inconclusive")
    ) {
      log(
        `inconclusive after ${pairs} pairs: adding a pair (look ${pairs - config.trials + 2} of ${looks})`,
      );
      await runPair(pairs++);
      guards = guardsFor(config, trials, specs);
      comparisons = compareAll(config, trials, specs, confidence);
    }
    if (guards.length === 0 && config.quality.suite)
      quality = await runQuality(config, config.quality.suite, deps, log);
  } catch (error) {
    if (!(error instanceof ServerError)) throw error;
    serverFailure = error.message;
  } finally {
    await deps.servers?.stopAll();
  }
  if (serverFailure !== undefined) {
    // The run stops where the server failed: what was measured is kept, but decides nothing.
    guards = [serverFailure, ...guardsFor(config, trials, specs)];
    comparisons = compareAll(config, trials, specs, confidence);
    pairs = new Set(trials.map((t) => t.pair)).size;
  }
  const verdict: Verdict =
    guards.length > 0
      ? "error"
      : comparisons.some((c) => c.verdict === "regressed") || quality?.verdict === "fail"
        ? "fail"
        : comparisons.some((c) => c.verdict === "inconclusive")
          ? "inconclusive"
          : "pass";
  const pooled = {} as Record<Arm, Record<string, PooledPercentiles>>;
  for (const arm of ["baseline", "candidate"] as const) {
    const mine = trials.filter((t) => t.arm === arm).map((t) => t.report.histograms);
    pooled[arm] = {
      ttft_ms: poolHistograms(mine.map((h) => h.ttft_us as string)),
      itl_ms: poolHistograms(mine.map((h) => h.itl_us as string)),
      tpot_ms: poolHistograms(mine.map((h) => h.tpot_us as string)),
      e2el_ms: poolHistograms(mine.map((h) => h.e2el_us as string)),
    };
  }
  return {
    trials,
    comparisons,
    guards,
    verdict,
    headline: headlineFor(verdict, guards, comparisons, quality),
    pairs,
    looks,
    confidence_per_look: confidence,
    pooled,
    servers: deps.servers?.starts ?? [],
    quality,
  };
}

/**
 * Runs the quality suite on each arm, one request at a time and apart from the
 * latency trials, then re-runs on the candidate the cases that newly fail a
 * contract check, to confirm them.
 */
async function runQuality(
  config: GateConfig,
  suite: Suite,
  deps: GateDeps,
  log: (line: string) => void,
): Promise<QualityReport> {
  const run = deps.runSuite ?? runSuite;
  const options: QualityRunOptions = {
    vllmSampling: config.quality.vllmSampling,
    timeoutS: config.baseline.timeoutS,
  };
  const runs = {} as Record<Arm, CaseRun[]>;
  for (const arm of ["baseline", "candidate"] as const) {
    await deps.servers?.beforeTrial(arm);
    log(`quality: ${suite.cases.length} cases on the ${arm}`);
    runs[arm] = await run(config[arm].target, suite, options);
    await deps.servers?.afterTrial(arm, "the quality suite");
  }
  const first = compareQuality(
    suite,
    runs.baseline,
    runs.candidate,
    new Map(),
    config.quality.rule,
  );
  const suspects = new Set(first.contract.map((c) => c.id));
  const reruns = new Map<string, CaseRun[]>();
  if (suspects.size > 0 && config.quality.rule.confirmReruns > 0) {
    await deps.servers?.beforeTrial("candidate");
    for (let i = 0; i < config.quality.rule.confirmReruns; i++) {
      log(
        `quality: re-running ${suspects.size} newly failing cases on the candidate (${i + 1}/${config.quality.rule.confirmReruns})`,
      );
      for (const r of await run(config.candidate.target, suite, options, suspects)) {
        reruns.set(r.id, [...(reruns.get(r.id) ?? []), r]);
      }
    }
    await deps.servers?.afterTrial("candidate", "the quality re-runs");
  }
  return compareQuality(suite, runs.baseline, runs.candidate, reruns, config.quality.rule);
}
