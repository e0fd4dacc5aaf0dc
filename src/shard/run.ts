// One shard of a sharded gate: this run's slice of every trial of a plan
// fixed ahead, at plan times shared by every shard. The rule: trial k (0-based,
// over the pairs and each pair's arms in order) starts at start-at + k × slot,
// a slot being the trial's schedule, its timeout, the hard stop's 2 s grace,
// time to settle and scrape, and the cooldown — the longest a trial can take,
// so a trial never overlaps the next whatever the server does. There is no
// idle check (a shard cannot wait for a server the others are loading) and no
// re-run or look (each would need every shard's results): a sharded plan runs
// `trials` pairs, and a trial that fails its self-checks is invalid. The first shard
// scrapes the servers' metrics and runs the side-suites after the trials; every shard writes its parts for the merge (merge.ts).

import { setTimeout } from "node:timers/promises";
import { Agent } from "undici";
import { ARMS, type Arm } from "../common/arms.ts";
import { pairOrder } from "../compare/plan.ts";
import type { TrialEntry } from "../compare/trials.ts";
import { type GateRun, runRecord } from "../gate/gate-run.ts";
import { Cancelled, type GateDeps, type GateOptions, type ShardSettings } from "../gate/options.ts";
import { noSuites, runSuites, suiteFields } from "../gate/suites.ts";
import { TrialRunner } from "../gate/trials.ts";
import type { LoadSlice } from "../load/run.ts";
import type { Target } from "../openai/target.ts";
import { measureParts, reportOf, type TrialDeps, type TrialOptions } from "../trial/measure.ts";
import { partState, trialSpanMs } from "../trial/parts.ts";
import { type ClockReading, readClock } from "./clock.ts";
import { SHARD_SCHEMA, type ShardSection, type ShardTrial } from "./section.ts";

const HARD_STOP_GRACE_MS = 2000;
/** After the hard stop: closing connections and the probes. */
const SETTLE_MS = 500;

/**
 * The longest one scrape of the servers' metrics takes (its headers and its
 * body, each within the scraper's timeout: 1–5 s by the interval); 0 when
 * none is made.
 */
function scrapeMs(options: GateOptions): number {
  const intervals = ARMS.flatMap((arm) => options[arm].serverMetrics?.intervalS ?? []);
  if (intervals.length === 0) return 0;
  return 2 * Math.max(...intervals.map((s) => Math.max(1000, Math.min(5000, s * 1000))));
}
/** A shard this late to a trial does not run it: its sends would all be late. */
const LATE_START_MS = 1000;

/** The longest one trial of either arm can take, plus the cooldown: the plan's slot. */
export function slotMs(options: GateOptions): number {
  const longest = Math.max(...ARMS.map((arm) => trialSpanMs(options[arm])));
  // The trial's last scrape (after one still in flight) and the next trial's first.
  const settle = SETTLE_MS + 3 * scrapeMs(options);
  return Math.ceil(longest + HARD_STOP_GRACE_MS + settle + options.cooldownS * 1000);
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

/** What a shard found: its slices' reports and parts, and the trials it was too late for. */
interface Found {
  entries: TrialEntry[];
  trials: ShardTrial[];
  skipped: ShardSection["skipped"];
}

/** Sleeps until the time, or until the cancel. */
async function sleepUntil(atMs: number, deps: ShardDeps): Promise<void> {
  const ms = Math.max(0, atMs - performance.now());
  if (deps.sleep) return deps.sleep(ms);
  await setTimeout(ms, undefined, deps.signal ? { signal: deps.signal } : {}).catch(() => {});
}

/** Runs the shard's slice of every trial at its plan time; one it is late for is skipped, named. */
async function runSlices(
  options: GateOptions,
  shard: ShardSettings,
  deps: ShardDeps,
  found: Found,
) {
  const log = deps.log ?? (() => {});
  const slice: LoadSlice = { index: shard.index, count: shard.count };
  const slot = slotMs(options);
  const name = `shard ${shard.index}/${shard.count}`;
  // The plan's start on this process's monotonic clock.
  const startMs = performance.now() + (shard.startAtUnixMs - (deps.unixNowMs ?? Date.now)());
  for (const [k, t] of planTrials(options).entries()) {
    if (deps.signal?.aborted) throw new Cancelled();
    const atMs = startMs + k * slot;
    const lateMs = performance.now() - atMs;
    if (lateMs > LATE_START_MS) {
      // Its sends would all be late: a burst on the other shards' trial.
      const reason = `${name} was ready ${(lateMs / 1000).toFixed(1)} s after the trial's plan time`;
      found.skipped.push({ pair: t.pair, arm: t.arm, reason });
      log(`pair ${t.pair + 1}/${options.trials} ${t.arm}: not run: ${reason}`);
      continue;
    }
    // The trial's load waits for its start; the scrape before it is made just before.
    await sleepUntil(atMs - scrapeMs(options) - SETTLE_MS, deps);
    if (deps.signal?.aborted) throw new Cancelled();
    const o = pairOptions(options, t.arm, t.pair);
    const opts = shard.index === 0 ? o : { ...o, serverMetrics: null, replicas: null };
    log(`pair ${t.pair + 1}/${options.trials} ${t.arm}: ${name} measuring ${o.target.baseUrl}`);
    // This shard's requests of the trial, in its own requests file, tagged as a single run's.
    const tag = {
      trial: k + 1,
      label: `pair ${t.pair + 1}`,
      arm: t.arm,
      pair: t.pair + 1,
      attempt: 0,
    };
    const record = deps.requestRecord;
    const trialDeps: TrialDeps = {
      ...(deps.signal ? { signal: deps.signal } : {}),
      ...(record ? { onRequestLine: (r, at) => record(tag, r, at) } : {}),
    };
    const parts = await measureParts(opts, trialDeps, { slice, startAtMs: atMs });
    if (deps.signal?.aborted) throw new Cancelled();
    const report = reportOf(opts, parts, new Date());
    const seed = options.baseline.workload.seed;
    found.entries.push({ pair: t.pair, arm: t.arm, position: t.position, seed, report });
    found.trials.push({ ...t, seed, part: partState(parts, slice) });
    const invalid = report.validity.valid
      ? ""
      : ` — INVALID: ${report.validity.reasons.join("; ")}`;
    log(`  ${t.arm}: ${report.outcomes.ok}/${report.scheduled} ok${invalid}`);
  }
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
  const found: Found = { entries: [], trials: [], skipped: [] };
  let stopped: string | null = null;
  const suites = noSuites();
  let clock: ClockReading | null = null;
  try {
    for (const arm of ARMS) await runner.ensurePreflight(arm);
    clock = await (deps.readClock ?? readShardClock)(options.baseline.target);
    log(`shard ${shard.index}/${shard.count}: ${describeClock(clock)}`);
    await runSlices(options, shard, deps, found);
    if (shard.index === 0)
      await runSuites(
        options,
        deps,
        // Numbered after every trial of the plan, as a single run numbers them after its pairs.
        { trials: found.entries, nextTrial: () => planTrials(options).length + runner.nextTrial() },
        suites,
      );
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    stopped = error instanceof Cancelled ? "the job was cancelled" : error.message;
    log(`shard ${shard.index}/${shard.count} stopped: ${stopped}`);
  }
  const name = `shard ${shard.index}/${shard.count}`;
  const run: GateRun = runRecord({
    trials: found.entries,
    guards: [
      {
        code: "shard",
        message: `${name} of a sharded run: its trials are a slice of the plan — the merge (merge-from) decides${stopped ? `; it stopped: ${stopped}` : ""}`,
      },
    ],
    verdict: stopped ? "error" : "inconclusive",
    preflight: ARMS.flatMap((arm) => runner.preflights.get(arm) ?? []),
    ...suiteFields(options, suites, null),
    cancelled_by: deps.signal?.aborted ? String(deps.signal.reason ?? "a cancel") : null,
  });
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
      skipped: found.skipped,
      stopped,
      clock,
    },
  };
}
