// The merge of a sharded gate: every shard's results file checked to belong to
// this plan (its hash, one file per shard, none missing, each part the slice
// its file says), each trial's parts added up exactly (trial/parts.ts),
// the shards' clocks compared, and the decision made over the merged trials
// as a single run makes it. The side-suites, preflight and the servers'
// metrics come from the first shard, which ran and scraped them. The files
// reach here validated and neutralized (commands/gate/shards.ts).

import type { ARMS } from "../common/arms.ts";
import { errorMessage } from "../common/errors.ts";
import type { Guard } from "../common/guard.ts";
import { decideRun } from "../compare/decide-run.ts";
import type { TrialEntry } from "../compare/trials.ts";
import { setupWarnings } from "../gate/gate.ts";
import { type GateRun, runRecord } from "../gate/gate-run.ts";
import type { GateOptions } from "../gate/options.ts";
import { type SuitesFound, suiteFields, suiteOutcomes } from "../gate/suites.ts";
import { keepHarmlessLateness } from "../gate/trials.ts";
import type { ReplicasRecord } from "../replicas/sampler.ts";
import type { PreflightReport } from "../servers/preflight.ts";
import { measuredInSlice, type TrialReport } from "../trial/measure.ts";
import { mergedReport, mergeParts, trialWorkload } from "../trial/parts.ts";
import { pairOptions, planTrials } from "./run.ts";
import type { ShardSection } from "./section.ts";

/** A shard's results file, read, validated and neutralized: its section and what the run found. */
export interface ShardFile {
  name: string;
  section: ShardSection;
  /** The file's results (validated as a results file): the first shard's suites, preflight, scrapes. */
  results: {
    trials: {
      pair: number;
      arm: string;
      report: Pick<TrialReport, "server_metrics" | "replicas">;
    }[];
    preflight: PreflightReport[];
    suites: SuitesFound;
  };
}

/** A set of shard files that cannot be merged: the file and the reason. */
export class MergeError extends Error {
  override name = "MergeError";
}

/** The shards in index order: all of this plan and one run, each once, none missing. */
function checkSet(files: ShardFile[], planHash: string, where: string): ShardFile[] {
  const [first] = files;
  if (!first) throw new MergeError(`no shard results file in ${where}`);
  const byIndex = new Map<number, ShardFile>();
  for (const f of files) {
    const { index, count, start_at, plan_hash } = f.section;
    if (plan_hash !== planHash)
      throw new MergeError(
        `${f.name} is shard ${index}/${count} of another plan: its plan hash ${plan_hash.slice(0, 12)} is not this configuration's ${planHash.slice(0, 12)} (the same settings and seed on every shard and the merge)`,
      );
    if (index >= count || count !== first.section.count || start_at !== first.section.start_at)
      throw new MergeError(
        `${f.name} is shard ${index}/${count} starting ${start_at}, but ${first.name} is of ${first.section.count} shards starting ${first.section.start_at}: not one run`,
      );
    if (f.section.slot_s !== first.section.slot_s)
      throw new MergeError(
        `${f.name} ran trials ${f.section.slot_s} s apart, ${first.name} ${first.section.slot_s} s: not one schedule (the same metrics settings on every shard)`,
      );
    const twin = byIndex.get(index);
    if (twin)
      throw new MergeError(`shard ${index}/${count} is given twice: ${twin.name} and ${f.name}`);
    byIndex.set(index, f);
  }
  const count = first.section.count;
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !byIndex.has(i));
  if (missing.length > 0)
    throw new MergeError(
      `${missing.map((i) => `shard ${i}/${count}`).join(", ")} ${missing.length === 1 ? "is" : "are"} missing from ${where} (found ${[...byIndex.keys()].sort((a, b) => a - b).join(", ")})`,
    );
  return [...byIndex.values()].sort((a, b) => a.section.index - b.section.index);
}

/** Each (pair, arm)'s workload, built once: its seed, schedule and prompts. */
class Workloads {
  private readonly built = new Map<string, ReturnType<typeof trialWorkload>>();
  private readonly options: GateOptions;

  constructor(options: GateOptions) {
    this.options = options;
  }

  of(pair: number, arm: (typeof ARMS)[number]): ReturnType<typeof trialWorkload> {
    const key = `${pair}/${arm}`;
    let w = this.built.get(key);
    if (!w) {
      w = trialWorkload(pairOptions(this.options, arm, pair));
      this.built.set(key, w);
    }
    return w;
  }
}

/**
 * Each file's trials: of the plan, each once, each part its file's slice
 * with an outcome for every request of it, and readable alone.
 */
function checkParts(options: GateOptions, shards: ShardFile[], workloads: Workloads): void {
  for (const f of shards) {
    const { index, count } = f.section;
    const seen = new Set<string>();
    const fail = (what: string) => new MergeError(`${f.name}: ${what}`);
    for (const t of f.section.trials) {
      const key = `pair ${t.pair + 1} ${t.arm}`;
      if (t.pair >= options.trials || seen.has(key))
        throw fail(
          `${key} is not a trial of the plan's ${options.trials} pairs, or is there twice`,
        );
      seen.add(key);
      const { slice, recorder, never_due } = t.part;
      if (slice.index !== index || slice.count !== count)
        throw fail(
          `${key} is slice ${slice.index}/${slice.count}, not the file's ${index}/${count}`,
        );
      const w = workloads.of(t.pair, t.arm);
      const outcomes = Object.values(recorder.outcomes).reduce((a, b) => a + b, 0);
      const measured = measuredInSlice(w, slice);
      if (outcomes + never_due !== measured)
        throw fail(
          `${key} holds ${outcomes + never_due} outcomes for the ${measured} requests of its slice`,
        );
      try {
        mergeParts(pairOptions(options, t.arm, t.pair), [t.part], w);
      } catch (error) {
        throw fail(`${key} cannot be read: ${errorMessage(error)}`);
      }
    }
  }
}

/**
 * The plan's trials, each merged from every shard's part, in plan order;
 * one a shard did not measure is merged from the others and invalid, naming
 * the shard and why. One no shard measured is a run guard, naming why.
 */
function mergedTrials(
  options: GateOptions,
  shards: ShardFile[],
  at: { workloads: Workloads; now: Date },
): { entries: TrialEntry[]; unmeasured: Guard[] } {
  const entries: TrialEntry[] = [];
  const unmeasured: Guard[] = [];
  for (const t of planTrials(options)) {
    const found = shards.map((s) => ({
      s,
      trial: s.section.trials.find((x) => x.pair === t.pair && x.arm === t.arm),
    }));
    const parts = found.flatMap((f) => (f.trial ? [f.trial.part] : []));
    if (parts.length === 0) {
      unmeasured.push({
        code: "shard",
        message: `pair ${t.pair + 1} ${t.arm} was measured by no shard: ${shards.map((s) => notMeasured(s, t)).join("; ")}`,
        arm: t.arm,
        pair: t.pair,
      });
      continue;
    }
    const scraped = shards[0]?.results.trials.find((x) => x.pair === t.pair && x.arm === t.arm);
    const report = mergedReport(pairOptions(options, t.arm, t.pair), parts, {
      workload: at.workloads.of(t.pair, t.arm),
      serverMetrics: scraped?.report.server_metrics ?? null,
      now: at.now,
      replicas: replicasRecord(scraped?.report.replicas),
    });
    const lacking = found.filter((f) => !f.trial).map(({ s }) => notMeasured(s, t));
    if (lacking.length > 0)
      report.validity = {
        ...report.validity,
        valid: false,
        lateness_only: false,
        reasons: [...report.validity.reasons, ...lacking],
      };
    entries.push({ ...t, seed: options.baseline.workload.seed, report });
  }
  return { entries, unmeasured };
}

/** Why a shard has no part of a trial, in words naming it. */
function notMeasured(s: ShardFile, t: { pair: number; arm: string }): string {
  const { index, count, skipped, stopped } = s.section;
  const why =
    skipped.find((x) => x.pair === t.pair && x.arm === t.arm)?.reason ??
    (stopped ? `it stopped: ${stopped}` : "absent from its file");
  return `shard ${index}/${count}: not measured (${why})`;
}

/** Each pair's harmless lateness kept, as a single run keeps it. */
function keepHarmless(options: GateOptions, trials: TrialEntry[]): void {
  for (let pair = 0; pair < options.trials; pair++)
    keepHarmlessLateness(
      options.decision,
      trials.filter((t) => t.pair === pair),
    );
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
  const unreadNote = unread.length > 0 ? `; not read on ${unread.join(", ")}` : "";
  if (read.length < 2)
    return { guard: null, note: `the shards' clocks were not compared${unreadNote}` };
  const by = (s: ShardSection) => s.clock?.offset_ms ?? 0;
  const lo = read.reduce((a, b) => (by(b) < by(a) ? b : a));
  const hi = read.reduce((a, b) => (by(b) > by(a) ? b : a));
  const skewMs = Math.round((by(hi) - by(lo)) * 10) / 10;
  const withinMs = Math.round(((lo.clock?.within_ms ?? 0) + (hi.clock?.within_ms ?? 0)) * 10) / 10;
  const note = `the shards' clocks are within ${skewMs} ms (± ${withinMs} ms) of each other, against the baseline server's Date header (limit ${MAX_CLOCK_SKEW_MS} ms)${unreadNote}`;
  if (skewMs - withinMs <= MAX_CLOCK_SKEW_MS) return { guard: null, note };
  return {
    guard: {
      code: "clock_skew",
      message: `${name(lo)}'s clock is ${skewMs} ms (± ${withinMs} ms) ahead of ${name(hi)}'s, against the baseline server's Date header: beyond ${MAX_CLOCK_SKEW_MS} ms the shards did not send on one schedule — synchronize the runners' clocks (NTP)`,
    },
    note,
  };
}

/** A run guard per shard that stopped: the plan did not run whole. */
function stoppedGuards(shards: ShardFile[]): Guard[] {
  return shards.flatMap((s) =>
    s.section.stopped === null
      ? []
      : [
          {
            code: "shard" as const,
            message: `shard ${s.section.index}/${s.section.count} stopped before the end of the plan: ${s.section.stopped}`,
          },
        ],
  );
}

/** The merged run: the shards' trials merged, and decided over as one run. */
export function mergeShards(
  options: GateOptions,
  planHash: string,
  files: ShardFile[],
  at: { where: string; now: Date },
): GateRun {
  const shards = checkSet(files, planHash, at.where);
  const workloads = new Workloads(options);
  checkParts(options, shards, workloads);
  const { entries: trials, unmeasured } = mergedTrials(options, shards, {
    workloads,
    now: at.now,
  });
  keepHarmless(options, trials);
  const [{ results: first }] = shards as [ShardFile, ...ShardFile[]];
  const clock = clockCheck(shards.map((s) => s.section));
  const decided = decideRun(
    options.decision,
    { trials: options.trials, maxTrials: options.trials },
    {
      trials,
      runGuards: [...stoppedGuards(shards), ...unmeasured, ...(clock.guard ? [clock.guard] : [])],
      capacity: undefined,
      apart: suiteOutcomes(first.suites),
      cancelled: false,
    },
  );
  return runRecord({
    trials,
    ...decided,
    preflight: first.preflight,
    ...suiteFields(options, first.suites, "the first shard did not run it"),
    warnings: [
      ...setupWarnings(options),
      `merged from ${shards.length} shards (${at.where}); ${clock.note}`,
    ],
  });
}

/** The first shard's replicas record as its file holds it, when it has that shape (a shard's file is input). */
function replicasRecord(r: unknown): ReplicasRecord | null {
  if (typeof r !== "object" || r === null) return null;
  const { source, samples, error } = Object.fromEntries(Object.entries(r));
  return typeof source === "string" &&
    typeof samples === "number" &&
    (error === null || typeof error === "string")
    ? { source: source.slice(0, 300), samples, error: error === null ? null : error.slice(0, 2000) }
    : null;
}
