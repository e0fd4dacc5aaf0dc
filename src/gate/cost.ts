// What a verdict cost: the pairs and trials measured, the requests, the time
// the endpoints spent under load, each side-suite's time, the servers' start
// times and the whole run — said beside every verdict, so a user who pays
// for GPU minutes sees what this one took.

import type { CapacityRun } from "../capacity/run.ts";
import { ARMS, type Arm } from "../common/arms.ts";
import type { PlanCheck } from "../compare/reach.ts";
import type { TrialEntry } from "../compare/trials.ts";
import type { StartRecord } from "../servers/lifecycle.ts";
import type { SuitePlan } from "./suite-plan.ts";
import type { SuiteId } from "./suites.ts";

export interface RunCost {
  pairs: number;
  /** Trials measured: the pairs' (re-runs included) and the capacity sweep's points. */
  trials: number;
  /** Requests scheduled in the pairs the results keep, per arm (warm-ups not counted). */
  requests: Record<Arm, number>;
  /** The endpoints under load: every trial's warm-up and window, re-runs and sweep points included (s). */
  under_load_s: number;
  /** Each side-suite's time, wall clock (s). */
  suites_s: Partial<Record<SuiteId, number>>;
  /** The servers the gate started, until each was ready, every start (s). */
  server_starts_s: number;
  /** The whole run, wall clock (s). */
  total_s: number;
  /** What the plan check predicted before the first trial (null: no pairs ran). */
  plan: PlanCheck | null;
  /** What it predicted of the item suites before their first request (absent in older files). */
  suites_plan?: SuitePlan[];
}

/** A trial's load time: its warm-up and its window (the drain after it is not load). */
const loadS = (t: TrialEntry): number => t.report.workload.warmup_s + t.report.workload.duration_s;

const round = (s: number) => Math.round(s * 10) / 10;

export function costOf(found: {
  trials: readonly TrialEntry[];
  /** The pairs run again, once per re-run. */
  reruns: readonly { pair: number }[];
  capacity: CapacityRun | null;
  suites: Partial<Record<SuiteId, number>>;
  servers: readonly StartRecord[];
  totalS: number;
  plan: PlanCheck | null;
  suitesPlan?: SuitePlan[];
}): RunCost {
  const pairs = new Set(found.trials.map((t) => t.pair));
  // A re-run repeats its pair's two trials with the same schedule as the kept ones.
  const pairLoad = (pair: number) =>
    found.trials.filter((t) => t.pair === pair).reduce((s, t) => s + loadS(t), 0);
  const points = ARMS.flatMap((arm) => found.capacity?.arms[arm].points ?? []);
  const sweepLoad = points.reduce(
    (s, p) => s + p.report.workload.warmup_s + p.report.workload.duration_s,
    0,
  );
  const underLoad =
    found.trials.reduce((s, t) => s + loadS(t), 0) +
    found.reruns.reduce((s, r) => s + pairLoad(r.pair), 0) +
    sweepLoad;
  const requests = { baseline: 0, candidate: 0 };
  for (const t of found.trials) requests[t.arm] += t.report.scheduled;
  return {
    pairs: pairs.size,
    trials: found.trials.length + 2 * found.reruns.length + points.length,
    requests,
    under_load_s: round(underLoad),
    suites_s: found.suites,
    server_starts_s: round(found.servers.reduce((s, x) => s + (x.time_to_ready_s ?? 0), 0)),
    total_s: round(found.totalS),
    plan: found.plan,
    ...(found.suitesPlan && found.suitesPlan.length > 0 ? { suites_plan: found.suitesPlan } : {}),
  };
}
