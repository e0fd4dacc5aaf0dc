// Measures one endpoint: workload → open-loop trial → metrics → report. The
// CLI's `measure` and each trial of the gate run this.

import { median } from "simple-statistics";
import { formatSlo, type Slo, sloRecord } from "../common/slo.ts";
import { type Progress, runLoad } from "../load/run.ts";
import { type Clock, MONOTONIC } from "../load/scheduler.ts";
import { TrialRecorder } from "../metrics/recorder.ts";
import { summarizeTrial, type TrialSummary } from "../metrics/summary.ts";
import type { SelfCheckLimits } from "../metrics/validity.ts";
import type { Target } from "../openai/target.ts";
import {
  type FetchMetrics,
  metricsFetcher,
  type ServerMetrics,
  type ServerMetricsOptions,
  TrialScrape,
} from "../servermetrics/scraper.ts";
import type { ArrivalSpec } from "../workload/arrivals.ts";
import {
  buildWorkload,
  countedBy,
  describeWorkload,
  intendedPromptTokens,
  measuredCount,
  sessionTurn,
  turnsIn,
  type WorkloadDescription,
  type WorkloadSpec,
} from "../workload/plan.ts";

export const MEASURE_SCHEMA = "llm-perf-gate/measure@2";

/** What one measurement needs: where, what load, and its limits. */
export interface TrialOptions {
  target: Target;
  workload: WorkloadSpec;
  timeoutS: number;
  maxConcurrency: number | undefined;
  slo: Slo;
  limits: SelfCheckLimits;
  /** The server's /metrics, scraped beside the trial; null: not scraped. */
  serverMetrics: ServerMetricsOptions | null;
}

export interface SessionSummary {
  turns: number;
  /** Measured sessions (those that started in the window). */
  started: number;
  /** Every turn ok. */
  completed: number;
  /** Ended by a failed turn (its later turns never fell due). */
  failed: number;
  /** Median TTFT (ms, from when the turn was due) of the ok requests of each turn; null: none. */
  ttft_p50_ms_by_turn: (number | null)[];
}

export interface TrialReport extends TrialSummary {
  schema: typeof MEASURE_SCHEMA;
  created_at: string;
  target: { url: string; model: string; endpoint: string };
  workload: WorkloadDescription & {
    max_concurrency: number | null;
    timeout_s: number;
    slo: string;
    include_usage: boolean;
    fingerprint: string;
    warmup_requests: number;
  };
  /** Multi-turn sessions: how they ended, and TTFT per turn (turn 1 vs later shows the prefix cache). */
  sessions: SessionSummary | null;
  /** The server's own view of the trial, from its /metrics; null: not scraped. */
  server_metrics: ServerMetrics | null;
}

/**
 * A send later than this changes the offered load: a tenth of the mean gap
 * between arrivals, at least 1 ms. Bursts have no gap to keep: not checked.
 */
export function lateSendMs(arrival: ArrivalSpec): number | undefined {
  if (arrival.kind === "burst" || arrival.kind === "all-at-once" || arrival.kind === "swept")
    return undefined;
  return Math.max(1, 1000 / arrival.ratePerS / 10);
}

export interface TrialDeps {
  clock?: Clock;
  onProgress?: (p: Progress) => void;
  now?: () => Date;
  /** Cancels the trial (it ends as at its hard deadline). */
  signal?: AbortSignal;
  /** GETs the server's metrics page (tests: a recorded one). */
  fetchMetrics?: FetchMetrics;
}

export async function measureTrial(
  options: TrialOptions,
  deps: TrialDeps = {},
): Promise<TrialReport> {
  const workload = buildWorkload(options.workload);
  const recorder = new TrialRecorder(
    options.slo,
    options.timeoutS * 1000,
    lateSendMs(options.workload.arrival),
  );
  let lastMeasuredEndMs = Number.NaN;
  const turns = options.workload.sessions?.turns ?? 1;
  const ttftByTurn: number[][] = Array.from({ length: turns }, () => []);
  const ended = { completed: 0, failed: 0 };
  const prompt = { intended: 0, server: 0, requests: 0, countedBy: countedBy(options.workload) };
  // A dataset's prompts are counted once each (a tokenizer's encode is not free).
  const intendedOf = new Map<number, number>();
  const intended = (i: number) => {
    const e = workload.datasetIndex[i] as number;
    if (e < 0) return intendedPromptTokens(workload, i);
    if (!intendedOf.has(e)) intendedOf.set(e, intendedPromptTokens(workload, i));
    return intendedOf.get(e) as number;
  };
  const clock = deps.clock ?? MONOTONIC;
  const fetcher = options.serverMetrics && !deps.fetchMetrics ? metricsFetcher() : undefined;
  const scrape = options.serverMetrics
    ? new TrialScrape(options.serverMetrics, options.target.model, {
        fetch: deps.fetchMetrics ?? (fetcher?.fetch as FetchMetrics),
        now: () => clock.now(),
      })
    : undefined;
  await scrape?.start();
  let run: Awaited<ReturnType<typeof runLoad>>;
  try {
    run = await runLoad({
      target: options.target,
      workload,
      timeoutS: options.timeoutS,
      maxConcurrency: options.maxConcurrency,
      onRequest: (r) => {
        const tokenizer = options.workload.tokenizer;
        if (tokenizer && r.usageCompletionTokens === undefined && r.text !== undefined)
          r.countedCompletionTokens = tokenizer.count(r.text);
        // Only a session's next turn needs the text; nothing else keeps it.
        if (!options.workload.sessions) r.text = undefined;
        recorder.add(r);
        if (options.workload.sessions) {
          const { session, turn } = sessionTurn(workload, r.index);
          if (r.outcome === "ok") {
            ttftByTurn[turn]?.push(r.firstOutputMs - r.scheduledMs);
            if (turn === turnsIn(workload, session) - 1) ended.completed++;
          } else ended.failed++;
        }
        // A later turn's prompt is its history too, which the workload cannot know ahead.
        if (r.usagePromptTokens !== undefined && workload.turnOf[r.index] === 0) {
          prompt.intended += intended(r.index);
          prompt.server += r.usagePromptTokens;
          prompt.requests++;
        }
        if (!(r.endMs <= lastMeasuredEndMs)) lastMeasuredEndMs = r.endMs;
      },
      ...(deps.onProgress ? { onProgress: deps.onProgress } : {}),
      ...(deps.clock ? { clock: deps.clock } : {}),
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
  } catch (error) {
    await scrape?.finish(0, 0);
    await fetcher?.close();
    throw error;
  }
  const windowStartMs = run.startMs + workload.windowStartMs;
  const serverMetrics =
    (await scrape?.finish(windowStartMs, windowStartMs + workload.windowMs)) ?? null;
  await fetcher?.close();
  // Offline throughput (all-at-once) is over the time the burst took; every
  // other arrival process is over its scheduled window.
  const windowS =
    options.workload.arrival.kind === "all-at-once"
      ? Math.max(0, (lastMeasuredEndMs - (run.startMs + workload.windowStartMs)) / 1000)
      : options.workload.durationS;
  const summary = summarizeTrial(recorder, {
    windowS,
    readings: run.readings,
    hardStopped: run.hardStopped,
    maxConcurrency: options.maxConcurrency,
    limits: options.limits,
    slo: options.slo,
    promptTokens: prompt,
  });
  // Every request has an outcome, but a session's turns after it ended never fell due.
  if (summary.scheduled + run.neverDue !== measuredCount(workload)) {
    throw new Error(
      `internal error: ${summary.scheduled} outcomes and ${run.neverDue} turns never due for ${measuredCount(workload)} requests`,
    );
  }
  const w = options.workload;
  return {
    schema: MEASURE_SCHEMA,
    created_at: (deps.now?.() ?? new Date()).toISOString(),
    target: {
      url: options.target.baseUrl,
      model: options.target.model,
      endpoint: options.target.endpoint,
    },
    workload: {
      ...describeWorkload(w),
      max_concurrency: options.maxConcurrency ?? null,
      timeout_s: options.timeoutS,
      slo: formatSlo(sloRecord(options.slo)),
      include_usage: options.target.includeUsage,
      fingerprint: workload.fingerprint,
      warmup_requests: workload.warmupCount,
    },
    sessions: options.workload.sessions
      ? {
          turns,
          started: workload.scheduledCount - workload.warmupSessions,
          ...ended,
          ttft_p50_ms_by_turn: ttftByTurn.map((xs) =>
            xs.length === 0 ? null : Math.round(median(xs) * 1000) / 1000,
          ),
        }
      : null,
    server_metrics: serverMetrics,
    ...summary,
  };
}
