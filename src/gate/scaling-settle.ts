// Between scaling trials: each arm's fleet let back down to the count it had
// before the first trial, read from its replicas source (polled, bounded by
// scaling-settle), so each trial starts from the same fleet; a source that
// cannot be read before the first trial is named, and its arm runs without it.

import type { Arm } from "../common/arms.ts";
import { errorMessage } from "../common/errors.ts";
import { REAL_READ, readReplicas } from "../replicas/read.ts";
import { describeReplicasSource } from "../replicas/source.ts";
import type { TrialOptions } from "../trial/measure.ts";
import type { GateDeps } from "./options.ts";

/** How often the fleet's count is read while it settles between trials (ms). */
const SETTLE_POLL_MS = 2000;

/** One arm's replica count now, or why it could not be read. */
async function countNow(o: TrialOptions, deps: GateDeps): Promise<number | string> {
  if (!o.replicas) return "no replicas source";
  try {
    return await readReplicas(o.replicas, deps.readReplicas ?? REAL_READ);
  } catch (error) {
    return `the replicas source ${describeReplicasSource(o.replicas)} ${errorMessage(error)}`;
  }
}

/** Waits (up to settleS) until the arm's count is back at `floor`; a note when it is not. */
export async function settleFleet(
  arm: Arm,
  o: TrialOptions,
  floor: number,
  settleS: number,
  deps: GateDeps,
): Promise<string | null> {
  const sleep = deps.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  // Polls, not a clock: settleS is a bound on the waits, however long the readings take.
  let polls = Math.ceil((settleS * 1000) / SETTLE_POLL_MS);
  let count = await countNow(o, deps);
  while (typeof count === "number" && count > floor && polls-- > 0 && !deps.signal?.aborted) {
    await sleep(SETTLE_POLL_MS);
    count = await countNow(o, deps);
  }
  if (typeof count === "string") return null;
  return count > floor
    ? `the ${arm}'s fleet was still at ${count} replicas (not ${floor}) after ${settleS} s: its trial started from there`
    : null;
}

/** Each arm's count before the first trial: the floor it settles to; an unreadable source is named and left out. */
export async function startCounts(
  atRate: Record<Arm, TrialOptions>,
  deps: GateDeps,
  log: (line: string) => void,
): Promise<{ options: Record<Arm, TrialOptions>; floors: Partial<Record<Arm, number>> }> {
  const options = { ...atRate };
  const floors: Partial<Record<Arm, number>> = {};
  for (const arm of ["baseline", "candidate"] as const) {
    if (!atRate[arm].replicas) continue;
    const count = await countNow(atRate[arm], deps);
    if (typeof count === "number") floors[arm] = count;
    else {
      log(`scaling: ${arm}: ${count}; the checks that need a replica count are skipped`);
      options[arm] = { ...atRate[arm], replicas: null };
    }
  }
  return { options, floors };
}
