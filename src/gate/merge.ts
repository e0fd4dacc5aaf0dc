// The merge of a sharded gate: every shard's results file checked to belong to
// this plan (its hash, one file per shard, none missing), each trial's parts
// added up exactly (trial/shard-part.ts), and the decision made over the
// merged trials as a single run makes it. Quality and contract come from the
// first shard, which ran them.

import { errorMessage } from "../common/errors.ts";
import type { Guard } from "../common/guard.ts";
import { decideRun } from "../compare/decide-run.ts";
import type { TrialEntry } from "../compare/trials.ts";
import type { ContractReport } from "../contract/diff.ts";
import type { QualityReport } from "../quality/paired.ts";
import type { PreflightReport } from "../servers/preflight.ts";
import { mergedReport, mergeParts } from "../trial/shard-part.ts";
import type { GateRun } from "./gate-run.ts";
import type { GateOptions } from "./options.ts";
import { pairOptions, planTrials, SHARD_SCHEMA, type ShardSection } from "./shard.ts";

/** A shard's results file as read: its name (path) and its parsed JSON. */
export interface ShardFile {
  name: string;
  data: unknown;
}

/** A set of shard files that cannot be merged: the file and the reason. */
export class MergeError extends Error {
  override name = "MergeError";
}

interface Shard {
  name: string;
  section: ShardSection;
  results: Record<string, unknown>;
}

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/** A shard section's shape, as far as the checks read it (its parts are read in checkParts). */
const isSection = (x: unknown): x is ShardSection =>
  isObject(x) &&
  x.schema === SHARD_SCHEMA &&
  Array.isArray(x.trials) &&
  Number.isInteger(x.index) &&
  Number.isInteger(x.count) &&
  typeof x.plan_hash === "string";

function shardOf(file: ShardFile, planHash: string): Shard {
  const results = isObject(file.data) ? file.data : {};
  const s = results.shard;
  if (!isSection(s))
    throw new MergeError(
      `${file.name} is not a shard's results file (it has no shard section of ${SHARD_SCHEMA})`,
    );
  if (s.plan_hash !== planHash)
    throw new MergeError(
      `${file.name} is shard ${s.index}/${s.count} of another plan: its plan hash ${s.plan_hash.slice(0, 12)} is not this configuration's ${planHash.slice(0, 12)} (same settings and seed on every shard and the merge)`,
    );
  return { name: file.name, section: s, results };
}

/** The shards in index order: all of one plan, each once, none missing. */
function checkSet(files: ShardFile[], planHash: string, where: string): Shard[] {
  if (files.length === 0) throw new MergeError(`no shard results file in ${where}`);
  const shards = files.map((f) => shardOf(f, planHash));
  const [first] = shards;
  if (!first) throw new MergeError(`no shard results file in ${where}`);
  const count = first.section.count;
  const byIndex = new Map<number, Shard>();
  for (const s of shards) {
    const { index, count: n, start_at } = s.section;
    if (n !== count || start_at !== first.section.start_at)
      throw new MergeError(
        `${s.name} is shard ${index}/${n} starting ${start_at}, but ${first.name} is of ${count} shards starting ${first.section.start_at}: not one run`,
      );
    const twin = byIndex.get(index);
    if (twin)
      throw new MergeError(`shard ${index}/${count} is given twice: ${twin.name} and ${s.name}`);
    byIndex.set(index, s);
  }
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !byIndex.has(i));
  if (missing.length > 0)
    throw new MergeError(
      `${missing.map((i) => `shard ${i}/${count}`).join(", ")} ${missing.length === 1 ? "is" : "are"} missing from ${where} (found ${[...byIndex.keys()].sort((a, b) => a - b).join(", ")})`,
    );
  return [...byIndex.values()].sort((a, b) => a.section.index - b.section.index);
}

/** Each shard's parts read once alone, so a malformed one is named by its file. */
function checkParts(options: GateOptions, shards: Shard[]): void {
  for (const s of shards)
    for (const t of s.section.trials) {
      try {
        mergeParts(pairOptions(options, t.arm, t.pair), [t.part]);
      } catch (error) {
        throw new MergeError(
          `${s.name}: pair ${t.pair + 1} ${t.arm} cannot be read: ${errorMessage(error)}`,
        );
      }
    }
}

/** The plan's trials, each merged from the shards that measured it; one a shard lacks is invalid. */
function mergedTrials(options: GateOptions, shards: Shard[], now: Date): TrialEntry[] {
  const entries: TrialEntry[] = [];
  for (const t of planTrials(options)) {
    const found = shards.map((s) => ({
      s,
      trial: s.section.trials.find((x) => x.pair === t.pair && x.arm === t.arm),
    }));
    const parts = found.flatMap((f) => (f.trial ? [f.trial.part] : []));
    if (parts.length === 0) continue;
    const report = mergedReport(pairOptions(options, t.arm, t.pair), parts, now);
    const lacking = found
      .filter((f) => !f.trial)
      .map(
        ({ s }) =>
          `shard ${s.section.index}/${s.section.count}: not measured (${s.section.stopped ?? "absent from its file"})`,
      );
    if (lacking.length > 0)
      report.validity = {
        ...report.validity,
        valid: false,
        lateness_only: false,
        reasons: [...report.validity.reasons, ...lacking],
      };
    entries.push({ ...t, seed: options.baseline.workload.seed, report });
  }
  return entries;
}

/** Shards' clocks further apart than this did not send on one schedule: the run is invalid. */
export const MAX_CLOCK_SKEW_MS = 50;

/**
 * The shards' clocks compared through the baseline server's Date header: the
 * furthest apart, beyond the limit by more than their brackets, is a guard.
 */
export function clockCheck(sections: readonly ShardSection[]): {
  guard: Guard | null;
  note: string;
} {
  const name = (s: ShardSection) => `shard ${s.index}/${s.count}`;
  const read = sections.filter(
    (s) => s.clock?.offset_ms !== null && s.clock?.offset_ms !== undefined,
  );
  const unread = sections
    .filter((s) => !read.includes(s))
    .map((s) => `${name(s)} (${s.clock?.note ?? "not read"})`);
  if (read.length < 2 || unread.length > 0)
    return {
      guard: null,
      note: `the shards' clocks were not compared: not read on ${unread.join(", ")}`,
    };
  const by = (s: ShardSection) => s.clock?.offset_ms ?? 0;
  const lo = read.reduce((a, b) => (by(b) < by(a) ? b : a));
  const hi = read.reduce((a, b) => (by(b) > by(a) ? b : a));
  const skewMs = Math.round((by(hi) - by(lo)) * 10) / 10;
  const withinMs = Math.round(((lo.clock?.within_ms ?? 0) + (hi.clock?.within_ms ?? 0)) * 10) / 10;
  const note = `the shards' clocks are within ${skewMs} ms (± ${withinMs} ms) of each other, against the baseline server's Date header (limit ${MAX_CLOCK_SKEW_MS} ms)`;
  if (skewMs - withinMs <= MAX_CLOCK_SKEW_MS) return { guard: null, note };
  return {
    guard: {
      code: "clock_skew",
      message: `${name(lo)}'s clock is ${skewMs} ms (± ${withinMs} ms) ahead of ${name(hi)}'s, against the baseline server's Date header: beyond ${MAX_CLOCK_SKEW_MS} ms the shards did not send on one schedule — synchronize the runners' clocks (NTP)`,
    },
    note,
  };
}

/** The merged run: the shards' trials merged, and decided over as one run. */
export function mergeShards(
  options: GateOptions,
  planHash: string,
  files: ShardFile[],
  at: { where: string; now: Date },
): GateRun {
  const shards = checkSet(files, planHash, at.where);
  checkParts(options, shards);
  const trials = mergedTrials(options, shards, at.now);
  // The first shard ran the suites; its file is as trusted as the shards' parts.
  const first = shards[0]?.results ?? {};
  const quality = isObject(first.quality) ? (first.quality as unknown as QualityReport) : null;
  const contract = isObject(first.contract) ? (first.contract as unknown as ContractReport) : null;
  const stopped = shards.filter((s) => s.section.stopped !== null);
  const clock = clockCheck(shards.map((s) => s.section));
  const decided = decideRun(
    options.decision,
    { trials: options.trials, maxTrials: options.trials },
    {
      trials,
      runGuards: clock.guard ? [clock.guard] : [],
      capacity: undefined,
      qualityFailed: quality?.verdict === "fail",
      contractFailed: contract?.verdict === "fail",
      cancelled: false,
    },
  );
  return {
    trials,
    ...decided,
    pairs: new Set(trials.map((t) => t.pair)).size,
    preflight: Array.isArray(first.preflight) ? (first.preflight as PreflightReport[]) : [],
    idle_checks: [],
    reruns: [],
    servers: [],
    quality,
    quality_skipped: options.quality && !quality ? "not run: the first shard did not run it" : null,
    contract,
    contract_skipped:
      options.contract && !contract ? "not run: the first shard did not run it" : null,
    warnings: [
      `merged from ${shards.length} shards (${at.where}); ${clock.note}`,
      ...stopped.map(
        (s) => `shard ${s.section.index}/${s.section.count} stopped early: ${s.section.stopped}`,
      ),
    ],
    cancelled_by: null,
    capacity: null,
  };
}
