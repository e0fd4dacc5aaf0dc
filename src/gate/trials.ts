// One arm measured once, the way every gate trial and sweep point is: after
// the cooldown, the server hooks (a per-trial start), the arm's preflight
// (once) and the idle check; the measurement; then the server hooks again.
// And a pair: both arms back to back in the pair's order, run again as a
// whole when one of its trials fails its self-checks.

import type { Arm } from "../common/arms.ts";
import { compact } from "../common/format.ts";
import { latenessMatters } from "../compare/contamination.ts";
import { pairOrder } from "../compare/plan.ts";
import { type TrialEntry, trialName } from "../compare/trials.ts";
import type { RequestRecord } from "../load/record.ts";
import type { TrialContext, TrialTag } from "../requests/line.ts";
import type { IdleCheck, PreflightReport } from "../servers/preflight.ts";
import { StopSampler } from "../stress/stop-sample.ts";
import type { TrialDeps, TrialOptions, TrialReport } from "../trial/measure.ts";
import { measureTrial } from "../trial/trial.ts";
import type { IdleRecord, RerunRecord } from "./gate-run.ts";
import { Cancelled, type GateDeps, type GateOptions, REAL_CHECKS } from "./options.ts";

/**
 * A pair's invalid trials, but for those whose only fault is lateness that
 * cannot change a verdict: those are kept, valid, their reasons now warnings
 * (their contamination still widens the interval against the verdict).
 * Returns the invalid ones left, and a line per trial kept.
 */
export function keepHarmlessLateness(
  decision: GateOptions["decision"],
  entries: TrialEntry[],
): { invalid: TrialEntry[]; kept: string[] } {
  const invalid = entries.filter((e) => !e.report.validity.valid);
  const latenessOnly = invalid.every((e) => e.report.validity.lateness_only === true);
  if (invalid.length === 0 || !latenessOnly || latenessMatters(decision, entries))
    return { invalid, kept: [] };
  const lines: string[] = [];
  for (const e of invalid) {
    const v = e.report.validity;
    const kept = v.reasons.map((r) => `kept: ${r} — not enough to change a verdict`);
    e.report = {
      ...e.report,
      validity: { ...v, valid: true, reasons: [], warnings: [...v.warnings, ...kept] },
    };
    lines.push(`  ${e.arm}: ${kept.join("; ")}`);
  }
  return { invalid: [], kept: lines };
}

export class TrialRunner {
  readonly preflights = new Map<Arm, PreflightReport>();
  readonly idle: IdleRecord[] = [];
  readonly reruns: RerunRecord[] = [];
  /** The measured pairs' trials, in the order they ran (a re-run pair's last attempt). */
  readonly trials: TrialEntry[] = [];
  /** The pairs' requests that ended stop, sampled for the truncation replay (undefined: not asked). */
  readonly stops: StopSampler | undefined;
  private ran = 0;
  private readonly options: GateOptions;
  private readonly deps: GateDeps;
  private readonly log: (line: string) => void;

  constructor(options: GateOptions, deps: GateDeps) {
    this.options = options;
    this.deps = deps;
    this.log = deps.log ?? (() => {});
    const t = options.truncation;
    this.stops = t ? new StopSampler(t.replay, options.baseline.workload.seed) : undefined;
  }

  /** The number of a run of requests outside the pairs (a side-suite's), after the trials so far. */
  nextTrial = (): number => ++this.ran;

  /** The arm's preflight, before its first trial (once). */
  async ensurePreflight(arm: Arm): Promise<void> {
    if (this.preflights.has(arm)) return;
    const checks = this.deps.checks ?? REAL_CHECKS;
    const o = this.options[arm];
    const report = await checks.preflight(arm, o.target, o.timeoutS);
    this.preflights.set(arm, report);
    this.log(
      `${arm}: preflight ok, first TTFT ${compact(report.first_ttft_ms)} ms, idle ${compact(report.idle_ttft_ms)} ms`,
    );
    for (const w of report.warnings) this.log(`${arm}: ${w}`);
  }

  /**
   * The measure's dependencies: the cancel, the requests file's lines tagged
   * with the trial, and (a pair's trial) the sample of answers that ended stop.
   */
  private trialDeps(tag: TrialTag, options: TrialOptions): TrialDeps {
    const { signal, requestRecord } = this.deps;
    const arm = tag.arm;
    const stops = tag.pair === null || arm === null ? undefined : this.stops;
    const round = options.workload.promptRound;
    const lines =
      requestRecord || stops
        ? {
            onRequestLine: (r: RequestRecord, at: TrialContext) => {
              requestRecord?.(tag, r, at);
              if (arm) stops?.add(arm, round, r);
            },
          }
        : {};
    return { ...(signal ? { signal } : {}), ...lines };
  }

  /**
   * One measurement of an arm; `what` names it to the server hooks and the
   * requests file, `heading` in the log; `pair` places it in the pairs.
   */
  measureArm = async (
    arm: Arm,
    options: TrialOptions,
    what: string,
    heading = what,
    pair: { pair: number; attempt: number } | null = null,
  ): Promise<{ report: TrialReport; idle: IdleCheck }> => {
    const { signal, servers } = this.deps;
    if (signal?.aborted) throw new Cancelled();
    if (this.ran++ > 0) await this.cooldown();
    const idle = await this.ready(arm, options);
    this.log(`${heading} ${arm}: measuring ${options.target.baseUrl}`);
    const measure = this.deps.measureTrial ?? ((o, d) => measureTrial(o, d));
    const tag = {
      trial: this.ran,
      label: what,
      arm,
      pair: pair?.pair ?? null,
      attempt: pair?.attempt ?? null,
    };
    const report = await measure(options, this.trialDeps(tag, options)).catch((error: unknown) => {
      // A trial the cancel stopped (its workers before they started, say) is the cancel.
      if (signal?.aborted) throw new Cancelled();
      throw error;
    });
    // A trial cut short by the cancel is not a measurement: it is dropped.
    if (signal?.aborted) throw new Cancelled();
    this.log(`  ${arm}: ${this.summary(report)}`);
    await servers?.afterTrial(arm, what);
    return { report, idle };
  };

  private async cooldown(): Promise<void> {
    const sleep = this.deps.sleep ?? ((ms) => new Promise<void>((r) => setTimeout(r, ms)));
    if (this.options.cooldownS > 0) await sleep(this.options.cooldownS * 1000);
  }

  /** The arm's server hooks (a per-trial start), its preflight (once) and the idle check. */
  private async ready(arm: Arm, options: TrialOptions): Promise<IdleCheck> {
    await this.deps.servers?.beforeTrial(arm);
    await this.ensurePreflight(arm);
    const checks = this.deps.checks ?? REAL_CHECKS;
    const reference = this.preflights.get(arm)?.idle_ttft_ms ?? 0;
    const idle = await checks.waitIdle(
      options.target,
      reference,
      this.options.idleTimeoutS,
      options.serverMetrics,
    );
    if (idle.note) this.log(`  ${arm}: ${idle.note}`);
    return idle;
  }

  /** An arm made ready for requests outside the trials (a replay at idle): the cooldown, the hooks, the idle check. */
  settle = async (arm: Arm, options: TrialOptions): Promise<void> => {
    if (this.deps.signal?.aborted) throw new Cancelled();
    if (this.ran > 0) await this.cooldown();
    await this.ready(arm, options);
  };

  /** The pair's invalid trials, harmless lateness kept (keepHarmlessLateness). */
  private keepIfHarmless(entries: TrialEntry[]): TrialEntry[] {
    const { invalid, kept } = keepHarmlessLateness(this.options.decision, entries);
    for (const line of kept) this.log(line);
    return invalid;
  }

  private summary(report: TrialReport): string {
    const p = this.options.decision.percentile;
    const m = report.metrics;
    const invalid = report.validity.valid
      ? ""
      : ` — INVALID: ${report.validity.reasons.join("; ")}`;
    return `${report.outcomes.ok}/${report.scheduled} ok, ${p} TTFT ${compact(m.ttft_ms[p])} ms, ${p} ITL ${compact(m.itl_ms[p])} ms, goodput ${compact(report.goodput.requests_per_s)} req/s${invalid}`;
  }

  /**
   * Pair `pair` with each arm's options: both arms in the pair's order, again as
   * a whole (so both arms stay comparable) while one of its trials fails its
   * self-checks and re-runs are left.
   */
  async runPair(pair: number, armOptions: Record<Arm, TrialOptions>): Promise<void> {
    const o = this.options;
    const order = pairOrder(o.order, pair, o.baseline.workload.seed);
    const upTo = o.maxTrials > o.trials ? ` (≤ ${o.maxTrials})` : "";
    for (let attempt = 0; ; attempt++) {
      const entries: TrialEntry[] = [];
      // Each attempt of each pair its own prompt texts (same schedule and lengths): a prefix
      // cache must not serve one trial's prompts to the next and make later ones look faster.
      const promptRound = pair * (o.maxReruns + 1) + attempt;
      for (const [position, arm] of order.entries()) {
        const own = armOptions[arm];
        const options = { ...own, workload: { ...own.workload, promptRound } };
        const { report, idle } = await this.measureArm(
          arm,
          options,
          `pair ${pair + 1}`,
          `pair ${pair + 1}/${o.trials}${upTo}`,
          { pair: pair + 1, attempt },
        );
        this.idle.push({ pair, arm, ...idle });
        entries.push({ pair, arm, position, seed: o.baseline.workload.seed, report });
      }
      const invalid = this.keepIfHarmless(entries);
      if (invalid.length === 0 || attempt >= o.maxReruns) {
        this.trials.push(...entries);
        this.stops?.commit();
        return;
      }
      this.stops?.discard();
      this.reruns.push({
        pair,
        attempt: attempt + 1,
        invalid: invalid.map((e) => ({ arm: e.arm, reasons: e.report.validity.reasons })),
      });
      this.log(
        `${invalid.map(trialName).join(", ")} failed the self-checks: running pair ${pair + 1} again (${attempt + 1}/${o.maxReruns})`,
      );
    }
  }
}
