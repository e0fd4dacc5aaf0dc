// Measures one endpoint: config → workload → open-loop trial → metrics →
// report. The CLI's `measure` and, later, each trial of the gate run this.

import type { MeasureConfig } from "./config/measure.ts";
import { formatSlo } from "./config/slo.ts";
import { type Clock, type Progress, runTrial } from "./load/runner.ts";
import { TrialRecorder } from "./metrics/recorder.ts";
import { summarizeTrial, type TrialSummary } from "./metrics/summary.ts";
import { buildWorkload, describeWorkload, measuredCount } from "./workload/plan.ts";

export const MEASURE_SCHEMA = "llm-perf-gate/measure@1";

export interface MeasureReport extends TrialSummary {
  schema: typeof MEASURE_SCHEMA;
  created_at: string;
  target: { url: string; model: string; endpoint: string };
  workload: {
    arrival: string;
    seed: number;
    warmup_s: number;
    duration_s: number;
    input_len: string;
    output_len: string | null;
    max_tokens: number | null;
    ignore_eos: boolean;
    dataset: string | null;
    max_concurrency: number | null;
    timeout_s: number;
    slo: string;
    include_usage: boolean;
    fingerprint: string;
    warmup_requests: number;
  };
}

export interface MeasureDeps {
  clock?: Clock;
  onProgress?: (p: Progress) => void;
  now?: () => Date;
}

export async function measure(
  config: MeasureConfig,
  deps: MeasureDeps = {},
): Promise<MeasureReport> {
  const workload = buildWorkload(config.workload);
  const recorder = new TrialRecorder(config.slo, config.timeoutS * 1000);
  let lastMeasuredEndMs = Number.NaN;
  const run = await runTrial({
    target: config.target,
    workload,
    timeoutS: config.timeoutS,
    maxConcurrency: config.maxConcurrency,
    onRequest: (r) => {
      recorder.add(r);
      if (!(r.endMs <= lastMeasuredEndMs)) lastMeasuredEndMs = r.endMs;
    },
    ...(deps.onProgress ? { onProgress: deps.onProgress } : {}),
    ...(deps.clock ? { clock: deps.clock } : {}),
  });
  // Offline throughput (all-at-once) is over the time the burst took; every
  // other arrival process is over its scheduled window.
  const windowS =
    config.workload.arrival.kind === "all-at-once"
      ? Math.max(0, (lastMeasuredEndMs - (run.startMs + workload.windowStartMs)) / 1000)
      : config.workload.durationS;
  const summary = summarizeTrial(recorder, {
    windowS,
    readings: run.readings,
    hardStopped: run.hardStopped,
    maxConcurrency: config.maxConcurrency,
    limits: config.limits,
    slo: config.slo,
  });
  if (summary.scheduled !== measuredCount(workload)) {
    throw new Error(
      `internal error: ${summary.scheduled} outcomes for ${measuredCount(workload)} scheduled requests`,
    );
  }
  const w = config.workload;
  return {
    schema: MEASURE_SCHEMA,
    created_at: (deps.now?.() ?? new Date()).toISOString(),
    target: {
      url: config.target.baseUrl,
      model: config.target.model,
      endpoint: config.target.endpoint,
    },
    workload: {
      ...describeWorkload(w),
      max_concurrency: config.maxConcurrency ?? null,
      timeout_s: config.timeoutS,
      slo: formatSlo(config.slo),
      include_usage: config.target.includeUsage,
      fingerprint: workload.fingerprint,
      warmup_requests: workload.warmupCount,
    },
    ...summary,
  };
}
