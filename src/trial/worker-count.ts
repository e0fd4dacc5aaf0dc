// How many worker threads a trial's schedule is split over. One worker is the
// trial in the process's own thread, as always; more split the schedule
// (request i to worker i mod N), each worker with its own HTTP pool, recorder
// and self-checks (trial/workers.ts). `auto` asks for as many as the rate
// needs at half a core each, on the cores the servers leave.

import type { Workload } from "../workload/plan.ts";

export interface WorkerSetting {
  /** A count, or auto: from the trial's rate and the cores. */
  requested: number | "auto";
  /** Cores left to servers on this machine (those the gate starts). */
  reservedCores: number;
}

export const MAX_WORKERS = 64;
export const ONE_WORKER: WorkerSetting = { requested: 1, reservedCores: 0 };

/**
 * The client's cost, measured against bench/fast-server.ts (bench/README.md:
 * 250–450 µs per request and 1.9 µs per SSE event on this project's machines),
 * rounded up for slower runners.
 */
const CPU_US_PER_REQUEST = 400;
const CPU_US_PER_EVENT = 3;
/** What one worker is given: half a core keeps its loop free to send on time. */
const CORE_SHARE_PER_WORKER = 0.5;
/** Events a request streams when it asks for no max_tokens: a guess, on the safe side. */
const UNCAPPED_EVENTS = 256;

/** What the trial's schedule asks of the client, as a share of one core. */
export function clientCoreShare(workload: Workload): number {
  const n = workload.offsetsMs.length;
  const spanS = (workload.windowStartMs + workload.windowMs) / 1000;
  if (n === 0 || !(spanS > 0)) return 0;
  let events = 0;
  for (let i = 0; i < n; i++) events += (workload.maxTokens[i] || UNCAPPED_EVENTS) + 2;
  return (n * CPU_US_PER_REQUEST + events * CPU_US_PER_EVENT) / 1e6 / spanS;
}

/**
 * Why the trial cannot be split, or undefined: a closed loop's cap and a
 * session's turns tie requests to each other across any split.
 */
export function unsplittable(o: {
  maxConcurrency: number | undefined;
  sessionTurns: number;
}): string | undefined {
  if (o.maxConcurrency !== undefined) return "max-concurrency (one cap over every request)";
  if (o.sessionTurns > 1)
    return "sessions of more than one turn (a turn waits on the previous answer)";
  return undefined;
}

/** The workers for a trial: the count asked for, or auto's from the rate and the free cores. */
export function workerCount(
  setting: WorkerSetting,
  workload: Workload,
  maxConcurrency: number | undefined,
  cores: number,
): number {
  const split = unsplittable({
    maxConcurrency,
    sessionTurns: workload.spec.sessions?.turns ?? 1,
  });
  if (split !== undefined) return 1;
  if (setting.requested !== "auto") return setting.requested;
  const free = Math.max(1, cores - setting.reservedCores);
  const wanted = Math.ceil(clientCoreShare(workload) / CORE_SHARE_PER_WORKER);
  return Math.min(MAX_WORKERS, free, Math.max(1, wanted));
}
