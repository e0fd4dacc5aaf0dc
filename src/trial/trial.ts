// One trial, measured in this thread or split over worker threads: the count
// from the workers setting (worker-count.ts). A test's own clock keeps the
// trial in this thread (workers share only the real one).

import { availableParallelism } from "node:os";
import { buildWorkload } from "../workload/plan.ts";
import { measureInThread, type TrialDeps, type TrialOptions, type TrialReport } from "./measure.ts";
import { ONE_WORKER, workerCount } from "./worker-count.ts";
import { measureInWorkers } from "./workers.ts";

export async function measureTrial(
  options: TrialOptions,
  deps: TrialDeps = {},
): Promise<TrialReport> {
  const workload = buildWorkload(options.workload);
  const setting = options.workers ?? ONE_WORKER;
  const count = deps.clock
    ? 1
    : workerCount(setting, workload, options.maxConcurrency, availableParallelism());
  return count > 1
    ? measureInWorkers(options, deps, { count, workload })
    : measureInThread(options, deps, workload);
}
