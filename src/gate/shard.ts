// One shard of a sharded gate: this run's slice of every trial of a plan
// fixed ahead, at plan times shared by every shard. The rule: trial k (0-based,
// over the pairs and each pair's arms in order) starts at start-at + k × slot,
// a slot being the trial's schedule, its timeout, the hard stop's 2 s grace and
// the cooldown — the longest a trial can take, so a trial never overlaps the
// next whatever the server does. There is no idle check (a shard cannot wait
// for a server the others are loading) and no re-run or look (each would need
// every shard's results): a sharded plan runs `trials` pairs, and a trial that
// fails its self-checks in any shard is invalid in the merge. The first shard
// scrapes the servers' metrics and runs the quality and contract suites after
// the trials; every shard writes its parts for the merge (gate/merge.ts).

import { Agent } from "undici";
import { ARMS, type Arm } from "../common/arms.ts";
import { pairOrder } from "../compare/plan.ts";
import type { TrialEntry } from "../compare/trials.ts";
import type { ContractReport } from "../contract/diff.ts";
import type { LoadSlice } from "../load/run.ts";
import type { Target } from "../openai/target.ts";
import type { QualityReport } from "../quality/paired.ts";
import { type ClockReading, readClock } from "../servers/clock.ts";
import { measureParts, reportOf, type TrialOptions } from "../trial/measure.ts";
import { partState, type TrialPartState, trialSpanMs } from "../trial/shard-part.ts";
import { runContractSuite } from "./contract.ts";
import type { GateRun } from "./gate-run.ts";
import { Cancelled, type GateDeps, type GateOptions, type ShardSettings } from "./options.ts";
import { runQuality } from "./quality.ts";
import { TrialRunner } from "./trials.ts";

export const SHARD_SCHEMA = "llm-perf-gate/shard@1";

export interface ShardTrial {
  pair: number;
  arm: Arm;
  position: number;
  seed: number;
  part: TrialPartState;
}

/** What a shard's results file adds for the merge. */
export interface ShardSection {
  schema: typeof SHARD_SCHEMA;
  /** Of the configuration the plan was made from (the merge checks it is its own). */
  plan_hash: string;
  index: number;
  count: number;
  start_at: string;
  slot_s: number;
  trials: ShardTrial[];
  /** Why the shard stopped before its last trial; null: it ran them all. */
  stopped: string | null;
  /** This machine's clock against the baseline server's Date header, before the first trial. */
  clock: ClockReading | null;
}

const HARD_STOP_GRACE_MS = 2000;
/** A shard this late to its first trial does not run it: its sends would all be late. */
const LATE_START_MS = 1000;

/** The longest one trial of either arm can take, plus the cooldown: the plan's slot. */
export function slotMs(options: GateOptions): number {
  const longest = Math.max(...ARMS.map((arm) => trialSpanMs(options[arm])));
  return Math.ceil(longest + HARD_STOP_GRACE_MS + options.cooldownS * 1000);
}

/** The plan's trials in order: each pair's arms in the pair's order. */
export function planTrials(options: GateOptions): { pair: number; arm: Arm; position: number }[] {
  return Array.from({ length: options.trials }, (_, pair) =>
    pairOrder(options.order, pair, options.baseline.workload.seed).map((arm, position) => ({
      pair,
      arm,
      position,
    })),
  ).flat();
}

/** The arm's options for a pair: its prompt texts those of the unsharded gate's first attempt. */
export function pairOptions(options: GateOptions, arm: Arm, pair: number): TrialOptions {
  const own = options[arm];
  return { ...own, workload: { ...own.workload, promptRound: pair * (options.maxReruns + 1) } };
}

interface ShardDeps extends GateDeps {
  /** Unix ms now (tests: a fixed clock). */
  unixNowMs?: () => number;
  /** Reads this machine's clock against the server's (tests: a stand-in). */
  readClock?: (target: Target) => Promise<ClockReading>;
}

/** The clock against the target's Date header, on a connection of its own. */
async function readShardClock(target: Target): Promise<ClockReading> {
  const dispatcher = new Agent({ connections: 1 });
  try {
    return await readClock(target, { unixNowMs: Date.now, dispatcher });
  } finally {
    await dispatcher.close();
  }
}

function describeClock(c: ClockReading): string {
  return c.offset_ms === null
    ? `clock not read: ${c.note}`
    : `clock ${c.offset_ms} ms (± ${c.within_ms} ms) against the baseline server's Date header`;
}

/** Runs the shard's slice of every trial at its plan time; its reports and parts. */
async function runSlices(
  options: GateOptions,
  shard: ShardSettings,
  deps: ShardDeps,
  found: { entries: TrialEntry[]; trials: ShardTrial[] },
): Promise<void> {
  const log = deps.log ?? (() => {});
  const slice: LoadSlice = { index: shard.index, count: shard.count };
  const slot = slotMs(options);
  // The plan's start on this process's monotonic clock.
  const startMs = performance.now() + (shard.startAtUnixMs - (deps.unixNowMs ?? Date.now)());
  const lateMs = performance.now() - startMs;
  if (lateMs > LATE_START_MS)
    throw new LateStart(`it was ready ${(lateMs / 1000).toFixed(1)} s after start-at`);
  const sleep = deps.sleep ?? ((ms) => new Promise<void>((r) => setTimeout(r, ms)));
  for (const [k, t] of planTrials(options).entries()) {
    if (deps.signal?.aborted) throw new Cancelled();
    const atMs = startMs + k * slot;
    // The trial's own load waits for its start; the scrape before it should not wait long.
    await sleep(Math.max(0, atMs - 500 - performance.now()));
    const o = pairOptions(options, t.arm, t.pair);
    const opts = shard.index === 0 ? o : { ...o, serverMetrics: null };
    log(
      `pair ${t.pair + 1}/${options.trials} ${t.arm}: shard ${shard.index}/${shard.count} measuring ${o.target.baseUrl}`,
    );
    const parts = await measureParts(opts, deps.signal ? { signal: deps.signal } : {}, {
      slice,
      startAtMs: atMs,
    });
    if (deps.signal?.aborted) throw new Cancelled();
    const report = reportOf(opts, parts, new Date());
    const seed = options.baseline.workload.seed;
    found.entries.push({ pair: t.pair, arm: t.arm, position: t.position, seed, report });
    found.trials.push({ ...t, seed, part: partState(parts, slice, report) });
    const invalid = report.validity.valid
      ? ""
      : ` — INVALID: ${report.validity.reasons.join("; ")}`;
    log(`  ${t.arm}: ${report.outcomes.ok}/${report.scheduled} ok${invalid}`);
  }
}

class LateStart extends Error {
  override name = "LateStart";
}

/** One shard's run: preflights, its slices at their plan times, then (the first shard) the suites. */
export async function runShard(
  options: GateOptions,
  shard: ShardSettings,
  planHash: string,
  deps: ShardDeps = {},
): Promise<{ run: GateRun; shard: ShardSection }> {
  const log = deps.log ?? (() => {});
  const runner = new TrialRunner(options, deps);
  const found: { entries: TrialEntry[]; trials: ShardTrial[] } = { entries: [], trials: [] };
  let stopped: string | null = null;
  let quality: QualityReport | null = null;
  let contract: ContractReport | null = null;
  let clock: ClockReading | null = null;
  try {
    for (const arm of ARMS) await runner.ensurePreflight(arm);
    clock = await (deps.readClock ?? readShardClock)(options.baseline.target);
    log(`shard ${shard.index}/${shard.count}: ${describeClock(clock)}`);
    await runSlices(options, shard, deps, found);
    if (shard.index === 0 && options.quality && !deps.signal?.aborted)
      quality = await runQuality(options, options.quality, deps, log);
    if (shard.index === 0 && options.contract && !deps.signal?.aborted)
      contract = await runContractSuite(options, options.contract, deps, log, found.entries);
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    stopped = error instanceof Cancelled ? "the job was cancelled" : error.message;
    log(`shard ${shard.index}/${shard.count} stopped: ${stopped}`);
  }
  const name = `shard ${shard.index}/${shard.count}`;
  const run: GateRun = {
    trials: found.entries,
    comparisons: [],
    reliability: null,
    budgets: [],
    guards: [
      {
        code: "shard",
        message: `${name} of a sharded run: its trials are a slice of the plan — the merge (merge-from) decides${stopped ? `; it stopped: ${stopped}` : ""}`,
      },
    ],
    verdict: stopped ? "error" : "inconclusive",
    pairs: new Set(found.entries.map((t) => t.pair)).size,
    design: null,
    preflight: ARMS.flatMap((arm) => runner.preflights.get(arm) ?? []),
    idle_checks: [],
    reruns: [],
    servers: [],
    quality,
    quality_skipped: null,
    contract,
    contract_skipped: null,
    warnings: [],
    cancelled_by: deps.signal?.aborted ? String(deps.signal.reason ?? "a cancel") : null,
    capacity: null,
  };
  return {
    run,
    shard: {
      schema: SHARD_SCHEMA,
      plan_hash: planHash,
      index: shard.index,
      count: shard.count,
      start_at: new Date(shard.startAtUnixMs).toISOString(),
      slot_s: slotMs(options) / 1000,
      trials: found.trials,
      stopped,
      clock,
    },
  };
}
