// The contract suite inside a gate run: each arm probed one request at a time,
// apart from the latency trials, then the probes whose items differ run again
// on both arms, to tell a contract regression from a flake.

import { ARMS, type Arm } from "../common/arms.ts";
import { plural } from "../common/format.ts";
import type { TrialEntry } from "../compare/trials.ts";
import { type ContractReport, compareContract, noItems, suspectIds } from "../contract/diff.ts";
import type { ContractOptions } from "../contract/options.ts";
import {
  BUILTIN_PROBES,
  type ContractRunOptions,
  keptItem,
  runArmContract,
  under,
} from "../contract/probes.ts";
import { type FailureSample, retryAfterItems } from "../contract/rate-limits.ts";
import type { RuntimeId } from "../contract/runtime.ts";
import type { TrialOptions } from "../trial/measure.ts";
import type { GateDeps } from "./options.ts";
import type { SideSuite } from "./suite.ts";

/** The contract suite's settings as the results file records them. */
export interface ContractRecord {
  source: string;
  include: string[];
  exclude: string[];
}

/** Every failure example of an arm's trials, for the items the trials themselves give. */
function failureSamples(trials: readonly TrialEntry[], arm: Arm): FailureSample[] {
  return trials
    .filter((t) => t.arm === arm)
    .flatMap((t) => Object.values(t.report.errors).flatMap((list) => list ?? []));
}

export async function runContractSuite(
  arms: Record<Arm, TrialOptions>,
  options: ContractOptions,
  deps: GateDeps,
  log: (line: string) => void,
  trials: readonly TrialEntry[] = [],
): Promise<ContractReport | null> {
  const run = deps.runContract ?? runArmContract;
  const runOptions = (arm: Arm): ContractRunOptions => ({
    selection: options.selection,
    timeoutS: Math.min(arms[arm].timeoutS, 30),
    metrics: arms[arm].serverMetrics,
    signal: deps.signal,
  });
  const items = noItems();
  const runtimes: Record<Arm, RuntimeId | null> = { baseline: null, candidate: null };
  const seconds: Record<Arm, number> = { baseline: 0, candidate: 0 };
  for (const arm of ARMS) {
    await deps.servers?.beforeTrial(arm);
    log(`contract: probing the ${arm}`);
    const found = await run(arms[arm].target, runOptions(arm));
    items[arm] = [...found.items, ...trialItems(options, trials, arm)];
    runtimes[arm] = found.runtime;
    seconds[arm] = found.seconds;
    await deps.servers?.afterTrial(arm, "the contract suite");
  }
  if (deps.signal?.aborted) return null;
  // An item that differs is probed again on both arms: a flake on either is
  // told from a change the candidate makes every time.
  const suspects = suspectIds(items);
  const probes = new Set(
    BUILTIN_PROBES.filter((p) => suspects.some((id) => under(id, p.id))).map((p) => p.id),
  );
  const reruns = noItems();
  if (probes.size > 0) {
    for (const arm of ARMS) {
      await deps.servers?.beforeTrial(arm);
      log(`contract: re-running ${plural(probes.size, "probe")} that differ, on the ${arm}`);
      const again = await run(arms[arm].target, runOptions(arm), probes);
      reruns[arm] = again.items;
      seconds[arm] += again.seconds;
      await deps.servers?.afterTrial(arm, "the contract re-runs");
    }
  }
  if (deps.signal?.aborted) return null;
  // The trials' own evidence spans every request: it stands as its own re-run.
  for (const arm of ARMS) reruns[arm].push(...items[arm].filter(fromTrials));
  return compareContract(items, reruns, runtimes, seconds);
}

/** The items the paired trials give (retry-after on their 429s and 503s), as the selection keeps them. */
function trialItems(options: ContractOptions, trials: readonly TrialEntry[], arm: Arm) {
  return retryAfterItems(failureSamples(trials, arm)).filter((i) =>
    keptItem(options.selection, i.id),
  );
}

const fromTrials = (i: { id: string }) => i.id.startsWith("ratelimit.");

/**
 * The report with the trials' own items in place of those it had (a suite
 * run before the pairs has none), decided again: their evidence spans every
 * request, so it stands as its own re-run.
 */
export function withTrialItems(
  c: ContractReport,
  options: ContractOptions,
  trials: readonly TrialEntry[],
): ContractReport {
  const items = noItems();
  const reruns = noItems();
  for (const arm of ARMS) {
    const own = trialItems(options, trials, arm);
    items[arm] = [...c.items[arm].filter((i) => !fromTrials(i)), ...own];
    reruns[arm] = [...c.reruns[arm].filter((i) => !fromTrials(i)), ...own];
  }
  return compareContract(items, reruns, c.runtimes, c.seconds);
}

/** The contract suite as a side-suite: its diff made again from the items both arms recorded. */
export const contractSuite: SideSuite<"contract", ContractReport, ContractRecord> = {
  id: "contract",
  asked: (options) => options.contract !== undefined,
  run: (options, deps, at) =>
    options.contract
      ? runContractSuite(options, options.contract, deps, at.log, at.trials)
      : Promise.resolve(null),
  verdict: (report) => report.verdict,
  describe: (options) => {
    const c = options.contract;
    if (!c) return null;
    return { source: c.source, include: c.selection.include, exclude: c.selection.exclude };
  },
  redecide: (c) => compareContract(c.items, c.reruns, c.runtimes, c.seconds),
  afterTrials: (c, options, trials) =>
    options.contract ? withTrialItems(c, options.contract, trials) : c,
};
