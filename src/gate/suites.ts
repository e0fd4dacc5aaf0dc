// The side-suites: families measured apart from the paired trials, on both
// arms — quality (structured output), contract (the API's wire contract),
// accuracy (what the model answers), … One list: the gate and a shard run it,
// every run's record holds each suite's report (or why it did not run), the
// verdict takes the ids of those that failed or stayed open, and a results
// file re-decides each from its evidence. A new suite is one entry in it: the
// ids, the reports' and settings' types and every null-filled record derive
// from the list.

import { at } from "../common/arrays.ts";
import type { TrialEntry } from "../compare/trials.ts";
import { accuracySuite } from "./accuracy.ts";
import { contractSuite } from "./contract.ts";
import { drainSuite } from "./drain.ts";
import { judgeSuite } from "./judge.ts";
import type { GateDeps, GateOptions } from "./options.ts";
import { qualitySuite } from "./quality.ts";
import { scalingSuite } from "./scaling.ts";
import type { SideSuite, SuiteContext, SuiteVerdict } from "./suite.ts";
import { surgeSuite } from "./surge.ts";
import { truncationSuite } from "./truncation.ts";

/**
 * Every side-suite, in the order they run (test/gate/suites.test.ts: one for
 * each id): the cheapest first — the contract's probes, the quality cases —
 * so that with fail-fast a regression they confirm skips the costly ones.
 */
const SUITES = [
  contractSuite,
  qualitySuite,
  accuracySuite,
  judgeSuite,
  // After the pairs: the replay at idle first, then the scaling scenario (its fleets start
  // from the count the pairs left), then the surge (it leaves a server overloaded).
  truncationSuite,
  scalingSuite,
  surgeSuite,
  // Last: it stops the servers.
  drainSuite,
] as const;

type AnySuite = (typeof SUITES)[number];
export type SuiteId = AnySuite["id"];

type ReportOf<S> = S extends SideSuite<string, infer R, unknown> ? R : never;
type RecordedOf<S> = S extends SideSuite<string, unknown, infer C> ? C : never;

/** Each suite's report. */
export type SuiteReports = { [K in SuiteId]: ReportOf<Extract<AnySuite, { id: K }>> };
/** Each suite's settings, as the results file records them. */
export type SuiteRecords = { [K in SuiteId]: RecordedOf<Extract<AnySuite, { id: K }>> };

export const SUITE_IDS: readonly SuiteId[] = SUITES.map((s) => s.id);

/** Each suite's report, null where it did not run. */
export type SuitesFound = { [K in SuiteId]: SuiteReports[K] | null };

/** What a run records of its suites: each report, and why one that was asked for did not run. */
export type SuiteFields = SuitesFound & { [K in SuiteId as `${K}_skipped`]: string | null };

/** The recorded settings of each suite (null: not asked for). */
export type SuiteConfig = { [K in SuiteId]: SuiteRecords[K] | null };

/** One suite as the loops below take it: its typed parts bound to the run's records. */
interface Bound {
  id: SuiteId;
  afterPairs: boolean;
  costly: boolean;
  asked(options: GateOptions): boolean;
  planLine(options: GateOptions): string | null;
  runInto(
    options: GateOptions,
    deps: GateDeps,
    at: Omit<SuiteContext, "log">,
    found: SuitesFound,
  ): Promise<void>;
  verdictIn(found: SuitesFound): SuiteVerdict | null;
  /** Its report with the trials' evidence added (a suite run before them). */
  refreshInto(options: GateOptions, trials: readonly TrialEntry[], found: SuitesFound): void;
  describeInto(options: GateOptions, config: SuiteConfig): void;
  sharesIn(recorded: Partial<SuiteConfig>): number;
  redecideInto(
    found: SuitesFound,
    recorded: Partial<SuiteConfig>,
    into: SuitesFound,
  ): string | null;
}

function bind<K extends SuiteId>(suite: SideSuite<K, SuiteReports[K], SuiteRecords[K]>): Bound {
  const id: K = suite.id;
  return {
    id,
    afterPairs: suite.afterPairs ?? false,
    costly: suite.costly ?? false,
    asked: suite.asked,
    planLine: (options) => (suite.asked(options) ? (suite.planLine?.(options) ?? null) : null),
    runInto: async (options, deps, at, found) => {
      found[id] = await suite.run(options, deps, { log: deps.log ?? (() => {}), ...at });
    },
    verdictIn: (found) => {
      const report = found[id];
      return report ? suite.verdict(report) : null;
    },
    refreshInto: (options, trials, found) => {
      const report = found[id];
      if (report && suite.afterTrials) found[id] = suite.afterTrials(report, options, trials);
    },
    describeInto: (options, config) => {
      config[id] = suite.describe(options);
    },
    sharesIn: (recorded) => {
      const r = recorded[id];
      return r && suite.alphaShares ? suite.alphaShares(r) : 0;
    },
    redecideInto: (found, recorded, into) => {
      const report = found[id];
      if (!report) return null;
      const again = suite.redecide(report, recorded[id] ?? null);
      into[id] = again;
      const [was, now] = [suite.verdict(report), suite.verdict(again)];
      return was === now
        ? null
        : `the results file said the ${id} verdict was ${was}; recomputed from its evidence: ${now}`;
    },
  };
}

const SIDE_SUITES: readonly Bound[] = SUITES.map((s) => bind(s));

/** Whether a record has a value for every key (what a loop that fills it cannot tell the compiler). */
function hasEvery<Key extends string, T>(
  record: Partial<Record<Key, T>>,
  keys: readonly Key[],
): record is Record<Key, T> {
  return keys.every((k) => k in record);
}

/** A value for every key, from its place in the list. */
function fill<Key extends string, T>(
  keys: readonly Key[],
  value: (i: number) => T,
): Record<Key, T> {
  const record: Partial<Record<Key, T>> = {};
  keys.forEach((key, i) => {
    record[key] = value(i);
  });
  if (!hasEvery(record, keys)) throw new Error("internal error: a suite id without a value");
  return record;
}

/** Every suite id, null: no report (or no settings) for any. */
export const noSuites = (): SuitesFound => fill(SUITE_IDS, () => null);

const SKIPPED_KEYS = SUITE_IDS.map((id): `${SuiteId}_skipped` => `${id}_skipped`);

/** Each suite's `_skipped` field, from its id. */
const skippedFields = (why: (id: SuiteId) => string | null) =>
  fill(SKIPPED_KEYS, (i) => why(at(SUITE_IDS, i)));

/** No suite run, none skipped. */
export const noSuiteFields = (): SuiteFields => ({ ...noSuites(), ...skippedFields(() => null) });

/** What each suite asked for will cost, in the plan check's words. */
export const suitePlanLines = (options: GateOptions): string[] =>
  SIDE_SUITES.flatMap((s) => s.planLine(options) ?? []);

/** Which suites a call runs: those that may run before the pairs, those that run after them, or all. */
export type SuitePhase = "before" | "after" | "all";

const inPhase = (suite: Bound, phase: SuitePhase) =>
  phase === "all" || suite.afterPairs === (phase === "after");

/** Why a suite was asked for and not run, by id (a costly one after a confirmed regression, with fail-fast). */
export type SuiteSkips = Partial<Record<SuiteId, string>>;

/** What regressed already, in words (the gate's own findings, then the suites'); null: nothing. */
function regressedSoFar(at: Omit<SuiteContext, "log">, found: SuitesFound): string | null {
  const failed = [
    ...(at.failedAlready ? [at.failedAlready] : []),
    ...suiteOutcomes(found).failed.filter((id) => !at.failedAlready?.includes(id)),
  ];
  return failed.length > 0 ? failed.join(", ") : null;
}

/**
 * Runs every suite asked for in the phase, one after another, until a cancel,
 * each report into `found` as it ends: a later suite that throws (a server
 * that died) leaves the earlier ones' reports in the run's record. Each one's
 * time (seconds, wall clock) goes into `seconds`. With fail-fast, a costly
 * suite after a confirmed regression is not run, and `skips` says why.
 */
export async function runSuites(
  options: GateOptions,
  deps: GateDeps,
  at: Omit<SuiteContext, "log">,
  found: SuitesFound,
  seconds: Partial<Record<SuiteId, number>> = {},
  phase: SuitePhase = "all",
  skips: SuiteSkips = {},
): Promise<void> {
  const nowMs = deps.nowMs ?? (() => performance.now());
  for (const suite of SIDE_SUITES) {
    if (!inPhase(suite, phase) || !suite.asked(options) || deps.signal?.aborted) continue;
    const regressed = options.failFast && suite.costly ? regressedSoFar(at, found) : null;
    if (regressed !== null) {
      skips[suite.id] = `${regressed} regressed before it (fail-fast)`;
      deps.log?.(`${suite.id}: not run: ${skips[suite.id]}`);
      continue;
    }
    const started = nowMs();
    try {
      await suite.runInto(options, deps, at, found);
    } finally {
      seconds[suite.id] = Math.round(nowMs() - started) / 1000;
    }
  }
}

/** The suites' reports with the paired trials' own evidence added (they ran before the trials). */
export function addTrialEvidence(
  options: GateOptions,
  trials: readonly TrialEntry[],
  found: SuitesFound,
): void {
  for (const suite of SIDE_SUITES) suite.refreshInto(options, trials, found);
}

/** The run's suite fields: each report, and for one asked for that did not run, why (`notRun`). */
export function suiteFields(
  options: GateOptions,
  found: SuitesFound,
  notRun: string | null | undefined,
  skips: SuiteSkips = {},
): SuiteFields {
  const skipped = (id: SuiteId): string | null => {
    if (!SIDE_SUITES.some((s) => s.id === id && s.asked(options)) || found[id]) return null;
    const why = skips[id] ?? notRun;
    return why ? `not run: ${why}` : null;
  };
  return { ...found, ...skippedFields(skipped) };
}

/** The suites' verdicts as the run's decision takes them: the ids of those failed and still open. */
export function suiteOutcomes(found: SuitesFound): { failed: SuiteId[]; open: SuiteId[] } {
  const ids = (v: SuiteVerdict) =>
    SIDE_SUITES.filter((s) => s.verdictIn(found) === v).map((s) => s.id);
  return { failed: ids("fail"), open: ids("inconclusive") };
}

/** Each suite's settings as the results file records them. */
export function describeSuites(options: GateOptions): SuiteConfig {
  const config: SuiteConfig = fill(SUITE_IDS, () => null);
  for (const s of SIDE_SUITES) s.describeInto(options, config);
  return config;
}

/** The rates' shares of the fail α the suites' rules hold, from the settings a results file records. */
export const recordedShares = (recorded: Partial<SuiteConfig>): number =>
  SIDE_SUITES.reduce((n, s) => n + s.sharesIn(recorded), 0);

/**
 * Each suite's report decided again from its own evidence under the settings
 * the file records; a verdict that differs from the file's is a warning.
 */
export function redecideSuites(
  found: SuitesFound,
  recorded: Partial<SuiteConfig>,
  warnings: string[],
): SuitesFound {
  const again = noSuites();
  for (const s of SIDE_SUITES) {
    const warning = s.redecideInto(found, recorded, again);
    if (warning) warnings.push(warning);
  }
  return again;
}

/** The suites' reports of a run's record (null where a file has none). */
export function suitesOf(run: Partial<SuitesFound>): SuitesFound {
  const found = noSuites();
  const copy = <K extends SuiteId>(id: K) => {
    found[id] = run[id] ?? null;
  };
  for (const id of SUITE_IDS) copy(id);
  return found;
}
