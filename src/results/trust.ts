// A results file from another job (report mode: the privileged half of the
// fork recipe reads what an unprivileged job wrote) is untrusted input. It is
// validated against the versioned results schema before anything is read
// from it; its strings are neutralized so that no mention, link, image or
// HTML can reach a comment; and its decision — comparisons, reliability,
// guards, verdict, headline — is recomputed from its trials, never read.

import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import schema from "../../schemas/results.schema.json" with { type: "json" };
import { redecideCapacity } from "../capacity/run.ts";
import { errorMessage, InputError } from "../common/errors.ts";
import { nonFiniteReason } from "../common/finite.ts";
import { zeroOutcomes } from "../common/outcomes.ts";
import { formatSlo } from "../common/slo.ts";
import { decideRun } from "../compare/decide-run.ts";
import type { DecisionOptions } from "../compare/verdict.ts";
import type { GateRun } from "../gate/gate-run.ts";
import { recordedShares, redecideSuites, suiteOutcomes, suitesOf } from "../gate/suites.ts";
import {
  type ConfigDescription,
  type GateResults,
  pooledPercentiles,
  RESULTS_SCHEMA,
} from "./model.ts";

const validate = new Ajv2020({ allErrors: false, strict: false }).compile<GateResults>(schema);

const EARLIER_SCHEMA = "llm-perf-gate/results@3";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A results@3 file in today's shape, before it is validated: the quality
 * suite's strict tier was named `contract` (the name of another suite), and
 * the contract suite's fields could be absent. Anything else is left as it
 * is, for the schema to judge.
 */
function fromEarlierSchema(parsed: unknown): unknown {
  if (!isObject(parsed) || parsed.schema !== EARLIER_SCHEMA) return parsed;
  const quality = isObject(parsed.quality)
    ? {
        ...Object.fromEntries(Object.entries(parsed.quality).filter(([k]) => k !== "contract")),
        strict: parsed.quality.contract,
        reasons: Array.isArray(parsed.quality.reasons)
          ? parsed.quality.reasons.map((r) =>
              isObject(r) && r.check === "contract" ? { ...r, check: "strict" } : r,
            )
          : parsed.quality.reasons,
      }
    : parsed.quality;
  return {
    ...parsed,
    schema: RESULTS_SCHEMA,
    quality,
    contract: parsed.contract ?? null,
    contract_skipped: parsed.contract_skipped ?? null,
    accuracy: null,
    accuracy_skipped: null,
  };
}

/** Files from before an outcome class existed count it as 0 (the schema requires only the older ones). */
function withEveryOutcome(r: GateResults): GateResults {
  const fill = (report: { outcomes: Record<string, number> }) => {
    report.outcomes = { ...zeroOutcomes(), ...report.outcomes };
  };
  for (const t of r.trials) fill(t.report);
  for (const arm of Object.values(r.capacity?.arms ?? {}))
    for (const p of arm.points) fill(p.report);
  return r;
}

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

/** The most specific error: a "null or an object" that fails inside the object says where. */
function deepest(errors: readonly ErrorObject[] | null | undefined): ErrorObject | undefined {
  return [...(errors ?? [])].sort((a, b) => b.instancePath.length - a.instancePath.length)[0];
}

/** Guards that no trial data can show again: they come from how the run went. */
const RUN_GUARDS = new Set([
  "server",
  "preflight",
  "configuration",
  "results_file",
  "unfinished",
  "shard",
  "clock_skew",
]);

/** The rules decided apart that take a rate's share of the fail boundaries (each suite's, as recorded). */
function apartOf(config: ConfigDescription): { apartRates?: number } {
  const rates = recordedShares(config);
  return rates > 0 ? { apartRates: rates } : {};
}

function decisionOptionsOf(config: ConfigDescription): DecisionOptions {
  return {
    percentile: config.percentile,
    tolerances: config.tolerances,
    rule: config.decision_rule === "confirm" ? "confirm" : "margin",
    confidence: config.confidence,
    maxErrorRate: config.max_error_rate,
    maxTrialCv: config.max_trial_cv,
    minOkRequests: config.min_ok_requests,
    reliability: {
      maxFailureIncrease: config.max_failure_increase,
      exclude: config.reliability_exclude,
    },
    // Files from before budgets have none.
    budgets: config.budgets ?? {},
    ...apartOf(config),
  };
}

/** The run decided again from its own trials, capacity points and side-suites' evidence. */
function redecide(r: GateResults, config: ConfigDescription, warnings: string[]): GateResults {
  const runGuards = r.guards.filter((g) => RUN_GUARDS.has(g.code));
  // Files from before capacity gates have no such field.
  const capacity = r.capacity ? redecideCapacity(r.capacity, formatSlo(config.slo)) : null;
  const suites = redecideSuites(suitesOf(r), config, warnings);
  const decided = decideRun(
    decisionOptionsOf(config),
    { trials: config.trials, maxTrials: config.max_trials },
    {
      trials: r.trials,
      runGuards,
      capacity: capacity
        ? { verdict: capacity.comparison.verdict, incomplete: capacity.stopped_by !== null }
        : undefined,
      apart: suiteOutcomes(suites),
      cancelled: r.cancelled_by !== null,
    },
  );
  return { ...r, ...decided, capacity, ...suites };
}

/**
 * Validates, neutralizes and re-decides a results file another job wrote; its
 * headline is written anew (`headline` words a run, report/headline.ts).
 */
export function trustResults(
  parsed: unknown,
  source: string,
  headline: (run: GateRun) => string,
): GateResults {
  const nonFinite = nonFiniteReason(parsed);
  if (nonFinite) throw new InputError(`${source} is not a valid results file: ${nonFinite}`);
  const current = fromEarlierSchema(parsed);
  if (!validate(current)) {
    throw new InputError(
      `${source} is not a valid results file: ${describe(deepest(validate.errors))}`,
    );
  }
  // The schema has just checked every field this reads.
  const r = withEveryOutcome(neutralizeDeep(current));
  const warnings = [...r.warnings];
  const decided: GateResults = r.config
    ? redecide(r, r.config, warnings)
    : {
        ...r,
        // The suites' reports read again from their own evidence: nothing else of them is trusted.
        ...redecideSuites(suitesOf(r), {}, warnings),
        verdict: "error",
        budgets: [],
        guards: r.guards.some((g) => RUN_GUARDS.has(g.code))
          ? r.guards.filter((g) => RUN_GUARDS.has(g.code))
          : [{ code: "configuration", message: "the results file holds no configuration" }],
      };
  if (decided.verdict !== r.verdict) {
    warnings.push(
      `the results file said ${r.verdict}; recomputed from its trials: ${decided.verdict}`,
    );
  }
  const results: GateResults = { ...decided, warnings };
  results.headline = headline(results);
  try {
    results.pooled = pooledPercentiles(results.trials);
  } catch (error) {
    results.pooled = null;
    warnings.push(`the trials' histograms could not be read: ${errorMessage(error)}`);
  }
  return results;
}
