// The rate sweep of one endpoint, or of two interleaved: one request at a
// time (the unloaded latency), all at once (the maximum throughput), then
// open-loop rates between the two, ascending, the same for every arm and
// run back to back in alternating order; an arm goes no higher once a rate
// overloads it. Then each arm's bracket (last passing, first failing rate)
// is bisected until it is narrower than the resolution.

import { at, recordOf } from "../common/arrays.ts";
import { compact, percent } from "../common/format.ts";
import { OUTCOMES } from "../common/outcomes.ts";
import type { TrialOptions, TrialReport } from "../trial/measure.ts";
import {
  bracketOf,
  judge,
  needsRefinement,
  pointOptions,
  rateGrid,
  roundRate,
  type SweepPhase,
  type SweepPoint,
  type SweepSettings,
} from "./points.ts";

export interface ArmSweep {
  points: SweepPoint[];
  /** Why the arm went no higher than it did; null: it ran the whole grid. */
  stopped: string | null;
}

export interface Sweep<A extends string> {
  arms: Record<A, ArmSweep>;
  /** The open-loop rates every arm was offered, ascending. */
  grid: number[];
  /** Why the sweep ended before it was done (max-duration), else null. */
  stopped_by: string | null;
  /** The arm whose endpoint failed every synchronous request: nothing was swept (its failure, not the client's). */
  refused_by?: A;
}

/** Bisection steps per arm at most, whatever the resolution. */
export const MAX_REFINEMENTS = 8;

export function newSweep<A extends string>(arms: readonly A[]): Sweep<A> {
  return {
    arms: recordOf(arms, () => ({ points: [], stopped: null })),
    grid: [],
    stopped_by: null,
  };
}

export interface SweepDeps<A extends string> {
  /** Measures one point (the gate adds its idle check, cooldown and server hooks). */
  run(arm: A, options: TrialOptions, label: string): Promise<TrialReport>;
  nowMs(): number;
  log(line: string): void;
}

const label = (phase: SweepPhase, rate: number | null) =>
  rate === null ? phase : `${phase === "refine" ? "refine " : ""}${rate} req/s`;

function describePoint(p: SweepPoint): string {
  const r = p.report;
  const base = `${r.outcomes.ok}/${r.scheduled} ok, ${compact(r.throughput.requests_per_s)} req/s achieved, p95 TTFT ${compact(r.metrics.ttft_ms.p95)} ms`;
  if (p.judgement === "invalid") return `${base} — INVALID: ${r.validity.reasons.join("; ")}`;
  if (p.rate_per_s === null) return base;
  return `${base}, SLO attainment ${percent(r.goodput.attainment)}: ${p.judgement}`;
}

class OverBudget extends Error {
  override name = "OverBudget";
}

/** An endpoint that failed every request of the synchronous phase: there is no rate to sweep. */
class EndpointRefused extends Error {
  override name = "EndpointRefused";
  readonly arm: string;
  constructor(arm: string, message: string) {
    super(message);
    this.arm = arm;
  }
}

/** Why no synchronous request came back ok, in the outcome classes' words; null when one did (or none was sent). */
export function refusedEverything(arm: string, r: TrialReport): string | null {
  const sent = r.scheduled - r.outcomes.unsent;
  if (r.outcomes.ok > 0 || sent === 0) return null;
  const classes = OUTCOMES.filter((o) => o !== "ok" && o !== "unsent" && r.outcomes[o] > 0)
    .map((o) => `${r.outcomes[o]} ${o}`)
    .join(", ");
  const who = arm === "endpoint" ? "the endpoint" : `the ${arm}'s endpoint`;
  return `${who} failed every synchronous request (${sent} of ${sent}: ${classes}) — the endpoint's failure, not the client's: no rate was swept`;
}

/** One sweep in progress: its points measured into `sweep`, phase by phase. */
class SweepRun<A extends string> {
  private readonly arms: A[];
  private readonly startMs: number;
  private readonly sweep: Sweep<A>;
  private readonly base: Record<A, TrialOptions>;
  private readonly settings: SweepSettings;
  private readonly deps: SweepDeps<A>;

  constructor(
    sweep: Sweep<A>,
    base: Record<A, TrialOptions>,
    settings: SweepSettings,
    deps: SweepDeps<A>,
  ) {
    this.sweep = sweep;
    this.base = base;
    this.settings = settings;
    this.deps = deps;
    this.arms = Object.keys(sweep.arms).filter((a): a is A => a in sweep.arms);
    this.startMs = deps.nowMs();
  }

  /** The arms in the order of step i: alternating, so neither always goes first. */
  order(i: number): A[] {
    return i % 2 === 0 ? this.arms : [...this.arms].reverse();
  }

  /** One point, measured again while it fails its self-checks and re-runs are left. */
  async measure(arm: A, phase: SweepPhase, rate: number | null): Promise<SweepPoint> {
    const { settings, deps } = this;
    for (let attempt = 0; ; attempt++) {
      const spentS = (deps.nowMs() - this.startMs) / 1000;
      if (settings.maxDurationS !== undefined && spentS >= settings.maxDurationS)
        throw new OverBudget();
      const report = await deps.run(
        arm,
        pointOptions(this.base[arm], settings, phase, rate),
        label(phase, rate),
      );
      // No SLO applies to the synchronous and offline phases: measured, or invalid.
      const anchor = report.validity.valid ? "measured" : "invalid";
      const judgement = rate === null ? anchor : judge(report, settings.minAttainment);
      const point: SweepPoint = { phase, rate_per_s: rate, judgement, report };
      this.sweep.arms[arm].points.push(point);
      deps.log(`  ${arm} ${label(phase, rate)}: ${describePoint(point)}`);
      // One at a time and unloaded, nothing came back: the endpoint refuses, no load will change
      // it — once its re-runs (a server still starting) came back the same.
      const refused = phase === "synchronous" ? refusedEverything(arm, report) : null;
      if (refused && attempt >= settings.maxReruns) throw new EndpointRefused(arm, refused);
      if (!refused && (judgement !== "invalid" || attempt >= settings.maxReruns)) return point;
      deps.log(
        `  ${arm}: measuring ${label(phase, rate)} again (${attempt + 1}/${settings.maxReruns})`,
      );
    }
  }

  throughputOf(arm: A, phase: SweepPhase): number | undefined {
    return this.sweep.arms[arm].points.find((p) => p.phase === phase && p.judgement === "measured")
      ?.report.throughput.requests_per_s;
  }

  /** Synchronous and offline on every arm; the grid between the two. */
  async anchors(): Promise<void> {
    for (const [i, phase] of (["synchronous", "offline"] as const).entries()) {
      for (const arm of this.order(i)) await this.measure(arm, phase, null);
    }
    const sync = Math.min(
      ...this.arms.map((a) => this.throughputOf(a, "synchronous") ?? Number.POSITIVE_INFINITY),
    );
    const offline = Math.max(...this.arms.map((a) => this.throughputOf(a, "offline") ?? 0));
    this.sweep.grid = rateGrid(Number.isFinite(sync) ? sync : 0, offline, this.settings.points);
    this.deps.log(`sweep rates: ${this.sweep.grid.join(", ")} req/s`);
  }

  private active = (arm: A) => this.sweep.arms[arm].stopped === null;

  /** One grid rate on an arm; an overloaded or invalid point stops its escalation. */
  private async escalate(rate: number, arm: A): Promise<void> {
    const a = this.sweep.arms[arm];
    const p = await this.measure(arm, "rate", rate);
    const r = p.report;
    if (p.judgement === "overload") {
      a.stopped = `stopped escalating at ${rate} req/s: ${r.outcomes.censored > 0 ? `${r.outcomes.censored} requests cut off at the timeout` : `SLO attainment ${percent(r.goodput.attainment)}, below half of min-attainment`}`;
    } else if (p.judgement === "invalid") {
      a.stopped = `stopped at ${rate} req/s: the trial failed its self-checks ${this.settings.maxReruns + 1} times (${r.validity.reasons.join("; ")})`;
    }
  }

  /**
   * The grid's rates, ascending, on every arm still going; then, the offline
   * burst can understate what an open loop sustains: while an arm has not
   * failed yet, on in grid steps, up to twice the grid's range.
   */
  async ascend(): Promise<void> {
    const sweep = this.sweep;
    for (const [i, rate] of sweep.grid.entries()) {
      for (const arm of this.order(i)) if (this.active(arm)) await this.escalate(rate, arm);
      if (!this.arms.some(this.active)) break;
    }
    const grid = [...sweep.grid];
    const step = grid.length >= 2 ? at(grid, 1) - at(grid, 0) : (grid[0] ?? 1);
    const unbounded = (arm: A) =>
      this.active(arm) && bracketOf(sweep.arms[arm].points).fail === undefined;
    for (let k = 1; k <= this.settings.points && this.arms.some(unbounded); k++) {
      const rate = roundRate((grid.at(-1) ?? 0) + k * step);
      sweep.grid.push(rate);
      for (const arm of this.order(grid.length + k - 1))
        if (unbounded(arm)) await this.escalate(rate, arm);
    }
  }

  /** Each arm's bracket bisected until it is narrower than the resolution. */
  async refine(): Promise<void> {
    const blocked = new Set<A>();
    const open = (arm: A) =>
      !blocked.has(arm) &&
      needsRefinement(
        bracketOf(this.sweep.arms[arm].points),
        this.settings.resolution,
        this.throughputOf(arm, "synchronous") ?? 0,
      );
    for (let round = 0; round < MAX_REFINEMENTS; round++) {
      const todo = this.order(round).filter(open);
      if (todo.length === 0) break;
      for (const arm of todo) {
        const b = bracketOf(this.sweep.arms[arm].points);
        const hi = b.fail?.rate_per_s ?? Number.NaN;
        const lo = b.pass?.rate_per_s ?? 0;
        const mid = roundRate((lo + hi) / 2);
        // Three significant digits cannot split it further.
        if (!(mid > lo && mid < hi)) blocked.add(arm);
        else if ((await this.measure(arm, "refine", mid)).judgement === "invalid") blocked.add(arm);
      }
    }
  }

  /** Trials measured so far, over all arms. */
  get trials(): number {
    return this.arms.reduce((n, a) => n + this.sweep.arms[a].points.length, 0);
  }
}

/**
 * Runs the sweep into `sweep` (so a cancel that throws out of `run` leaves
 * what was measured there).
 */
export async function runSweep<A extends string>(
  sweep: Sweep<A>,
  base: Record<A, TrialOptions>,
  settings: SweepSettings,
  deps: SweepDeps<A>,
): Promise<void> {
  const run = new SweepRun(sweep, base, settings, deps);
  try {
    await run.anchors();
    await run.ascend();
    await run.refine();
  } catch (error) {
    if (error instanceof EndpointRefused) {
      sweep.stopped_by = error.message;
      sweep.refused_by = error.arm as A;
    } else if (error instanceof OverBudget)
      sweep.stopped_by = `max-duration ${settings.maxDurationS} s reached after ${run.trials} trials`;
    else throw error;
    deps.log(`sweep: ${sweep.stopped_by}; stopping with what was measured`);
  }
}

export function planSweep(
  arms: number,
  base: TrialOptions,
  settings: SweepSettings,
): { trials: number; seconds: number; words: string } {
  // The knee lies within a grid step (1/points of the range); halving it to the resolution.
  const refinements = Math.max(
    0,
    Math.min(MAX_REFINEMENTS, Math.ceil(Math.log2(1 / settings.points / settings.resolution))),
  );
  const openLoop = settings.points + refinements;
  const perTrialS = base.workload.warmupS + base.workload.durationS + 2;
  const trials = arms * (2 + openLoop);
  const seconds = arms * openLoop * perTrialS;
  return {
    trials,
    seconds,
    words: `${trials} trials planned (${arms} × (synchronous + offline + ${settings.points} rates + ≈${refinements} refinements)), ≈${Math.ceil(seconds / 60)} min plus the two burst phases`,
  };
}
