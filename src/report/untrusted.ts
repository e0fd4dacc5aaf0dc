// A results file from another job (report mode: the privileged half of the
// fork recipe reads what an unprivileged job wrote) is untrusted input. It is
// validated against the versioned results schema before anything is read
// from it; its strings are neutralized so that no mention, link, image or
// HTML can reach a comment; and its decision — comparisons, reliability,
// guards, verdict, headline — is recomputed from its trials, never read.

import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import schema from "../../schemas/results.schema.json" with { type: "json" };
import { compareCapacity } from "../capacity/compare.ts";
import { judge } from "../capacity/points.ts";
import { armSweepReport, type CapacityRun } from "../capacity/report.ts";
import type { ArmSweep } from "../capacity/sweep.ts";
import { errorMessage, InputError } from "../common/errors.ts";
import type { Guard } from "../common/guard.ts";
import { type DecisionOptions, decide, overallVerdict } from "../compare/verdict.ts";
import { mcnemarOneSided } from "../quality/paired.ts";
import { headlineFor } from "./headline.ts";
import { type GateResults, pooledPercentiles } from "./results.ts";

const validate = new Ajv2020({ allErrors: false, strict: false }).compile(schema);

/** Markup a string from the file must not carry into a comment. */
export function neutralize(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replace(/@(?=[\w-])/g, "@\u200b") // no @mention
    .replaceAll("![", "!\u200b[") // no image
    .replaceAll("](", "]\u200b(") // no link target
    .replace(/\b(https?|ftp):\/\//gi, "$1:/\u200b/") // no autolink
    .replace(/\bwww\./gi, "www\u200b.");
}

function neutralizeDeep<T>(value: T): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return neutralize(v);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === "object" && v !== null)
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

function describe(e: ErrorObject | undefined): string {
  if (!e) return "invalid";
  const allowed =
    e.keyword === "enum" || e.keyword === "const"
      ? `: ${JSON.stringify((e.params as { allowedValues?: unknown; allowedValue?: unknown }).allowedValues ?? (e.params as { allowedValue?: unknown }).allowedValue)}`
      : "";
  return `${e.instancePath || "(the file)"} ${e.message}${allowed}`;
}

/** Guards that no trial data can show again: they come from how the run went. */
const RUN_GUARDS = new Set(["server", "preflight", "configuration", "results_file"]);

/** The quality verdict, from the per-check counts and the confirmed contract failures. */
function qualityFailed(r: GateResults): boolean {
  const q = r.quality;
  const rule = r.config?.quality?.rule;
  if (!q || !rule) return false;
  const kindFails = q.kinds.some((k) => {
    const effect = k.n > 0 ? (k.b - k.c) / k.n : 0;
    const p = mcnemarOneSided(k.b, k.c);
    return (p <= rule.alpha && effect >= rule.min_effect) || effect >= rule.large_effect;
  });
  const gatedDisagreement = q.agreement.gated && q.agreement.differing.length > 0;
  return kindFails || gatedDisagreement || q.contract.some((c) => c.confirmed);
}

/** A capacity run's judgements, estimates, labels and comparison, from its points' reports. */
function recomputeCapacity(c: CapacityRun, slo: string): CapacityRun {
  const rejudged = (arm: ArmSweep): ArmSweep => ({
    ...arm,
    points: arm.points.map((p) =>
      p.rate_per_s === null ? p : { ...p, judgement: judge(p.report, c.settings.min_attainment) },
    ),
  });
  const arms = {
    baseline: armSweepReport(rejudged(c.arms.baseline), c.settings, slo),
    candidate: armSweepReport(rejudged(c.arms.candidate), c.settings, slo),
  };
  const comparison = compareCapacity(
    arms.baseline.capacity,
    arms.candidate.capacity,
    c.settings.max_capacity_drop,
    c.settings.resolution,
  );
  return { ...c, arms, comparison };
}

/** Validates, neutralizes and re-decides a results file another job wrote. */
export function trustResults(parsed: unknown, source: string): GateResults {
  if (!validate(parsed)) {
    throw new InputError(
      `${source} is not a valid results file: ${describe(validate.errors?.[0])}`,
    );
  }
  // The schema has just checked every field this reads.
  const r = neutralizeDeep(parsed as unknown as GateResults);
  const warnings = [...r.warnings];
  const runGuards = r.guards.filter((g) => RUN_GUARDS.has(g.code));
  let guards: Guard[] = runGuards;
  let verdict = r.verdict;
  const config = r.config;
  if (config) {
    const looks = Math.max(1, config.max_trials - config.trials + 1);
    const confidence = 1 - (1 - config.confidence) / looks;
    const options: DecisionOptions = {
      percentile: config.percentile,
      tolerances: config.tolerances,
      rule: config.decision_rule === "confirm" ? "confirm" : "significant-and-material",
      confidence: config.confidence,
      maxErrorRate: config.max_error_rate,
      maxTrialCv: config.max_trial_cv,
      minOkRequests: config.min_ok_requests,
      reliability: {
        maxFailureIncrease: config.max_failure_increase,
        exclude: config.reliability_exclude,
      },
    };
    const decision = decide(options, r.trials, confidence);
    decision.guards.unshift(...runGuards);
    // Files from before capacity gates have no such field.
    r.capacity ??= null;
    if (r.capacity) {
      r.capacity = recomputeCapacity(r.capacity, config.slo);
      decision.capacity = {
        verdict: r.capacity.comparison.verdict,
        incomplete: r.capacity.stopped_by !== null,
      };
    }
    guards = decision.guards;
    const qualityVerdict = qualityFailed(r) ? "fail" : "pass";
    if (r.quality && r.quality.verdict !== qualityVerdict) {
      warnings.push(
        `the results file said the quality verdict was ${r.quality.verdict}; recomputed from its counts: ${qualityVerdict}`,
      );
      r.quality.verdict = qualityVerdict;
    }
    verdict = overallVerdict(decision, qualityVerdict === "fail", r.cancelled_by !== null);
    Object.assign(r, {
      comparisons: decision.comparisons,
      reliability: decision.reliability,
      looks,
      confidence_per_look: confidence,
    });
  } else {
    verdict = "error";
    if (guards.length === 0)
      guards = [{ code: "configuration", message: "the results file holds no configuration" }];
  }
  if (verdict !== r.verdict) {
    warnings.push(`the results file said ${r.verdict}; recomputed from its trials: ${verdict}`);
  }
  const results: GateResults = { ...r, guards, verdict, warnings };
  results.headline = headlineFor(results);
  try {
    results.pooled = pooledPercentiles(results.trials);
  } catch (error) {
    results.pooled = null;
    warnings.push(`the trials' histograms could not be read: ${errorMessage(error)}`);
  }
  return results;
}
