// The configuration as the results file records it: API keys and header
// values redacted, start and stop commands left out (they may hold secrets).

import { sloRecord } from "../../common/slo.ts";
import type { Config } from "../../config/config.ts";
import { describeSuites } from "../../gate/suites.ts";
import { limitsReport } from "../../metrics/summary.ts";
import type { ConfigDescription, TargetDescription } from "../../results/model.ts";
import type { TrialOptions } from "../../trial/measure.ts";
import { describeWorkload } from "../../workload/describe.ts";

function describeTarget(m: TrialOptions): TargetDescription {
  const t = m.target;
  return {
    url: t.baseUrl,
    model: t.model,
    endpoint: t.endpoint,
    api_key: t.apiKey ? "***" : null,
    headers: Object.fromEntries(Object.keys(t.headers).map((k) => [k, "***"])),
    extra_body: t.extraBody,
    include_usage: t.includeUsage,
    temperature: t.temperature,
    metrics: m.serverMetrics
      ? {
          url: m.serverMetrics.url,
          interval_s: m.serverMetrics.intervalS,
          runtime: m.serverMetrics.runtime,
        }
      : null,
  };
}

export function describeConfig(config: Config): ConfigDescription {
  const g = config.gate;
  const d = g.decision;
  const s = config.servers;
  return {
    baseline: describeTarget(g.baseline),
    candidate: describeTarget(g.candidate),
    workload: describeWorkload(g.baseline.workload),
    timeout_s: g.baseline.timeoutS,
    max_concurrency: g.baseline.maxConcurrency ?? null,
    slo: sloRecord(g.baseline.slo),
    self_check_limits: limitsReport(g.baseline.limits),
    trials: g.trials,
    max_trials: g.maxTrials,
    order: g.order,
    cooldown_s: g.cooldownS,
    max_reruns: g.maxReruns,
    idle_timeout_s: g.idleTimeoutS,
    percentile: d.percentile,
    tolerances: d.tolerances,
    decision_rule: d.rule,
    confidence: d.confidence,
    max_error_rate: d.maxErrorRate,
    max_trial_cv: d.maxTrialCv,
    min_ok_requests: d.minOkRequests,
    max_failure_increase: d.reliability.maxFailureIncrease,
    reliability_exclude: d.reliability.exclude,
    budgets: d.budgets,
    ...describeSuites(g),
    servers: {
      baseline_start: s.commands.baseline !== undefined,
      candidate_start: s.commands.candidate !== undefined,
      restart: s.restart,
      ready_timeout_s: s.readyTimeoutS,
      log_dir: s.logDir,
    },
    fail_on: config.report.failOn,
  };
}
