// The quality suite inside a gate run: each arm one request at a time, apart
// from the latency trials, then the cases that differ between the arms again,
// on both arms, to tell a flip from a flake.

import { ARMS, type Arm } from "../common/arms.ts";
import { plural } from "../common/format.ts";
import type { QualityOptions } from "../quality/options.ts";
import {
  casesThatDiffer,
  compareQuality,
  type QualityReport,
  type QualityReruns,
} from "../quality/paired.ts";
import { qualityVerdictOf } from "../quality/rule.ts";
import { type CaseRun, type QualityRunOptions, runSuite } from "../quality/run.ts";
import type { TrialOptions } from "../trial/measure.ts";
import type { GateDeps } from "./options.ts";
import type { SideSuite } from "./suite.ts";

/** The quality suite's settings as the results file records them. */
export interface QualityRecord {
  suite: string;
  cases: number;
  vllm_sampling: boolean;
  rule: { alpha: number; min_effect: number; large_effect: number; confirm_reruns: number };
}

export async function runQuality(
  arms: Record<Arm, TrialOptions>,
  options: QualityOptions,
  deps: GateDeps,
  log: (line: string) => void,
): Promise<QualityReport> {
  const run = deps.runSuite ?? runSuite;
  const { suite, rule } = options;
  const runOptions: QualityRunOptions = {
    vllmSampling: options.vllmSampling,
    timeoutS: arms.baseline.timeoutS,
  };
  const runs: Record<Arm, CaseRun[]> = { baseline: [], candidate: [] };
  for (const arm of ARMS) {
    await deps.servers?.beforeTrial(arm);
    log(`quality: ${plural(suite.cases.length, "case")} on the ${arm}`);
    runs[arm] = await run(arms[arm].target, suite, runOptions);
    await deps.servers?.afterTrial(arm, "the quality suite");
  }
  // A case that differs in the first run is run again on both arms, so that a
  // flake on either one is told from a flip (one arm consistently failing).
  const suspects = casesThatDiffer(runs.baseline, runs.candidate);
  const reruns: QualityReruns = { baseline: new Map(), candidate: new Map() };
  if (suspects.size > 0 && rule.confirmReruns > 0) {
    for (const arm of ARMS) {
      await deps.servers?.beforeTrial(arm);
      for (let i = 0; i < rule.confirmReruns; i++) {
        log(
          `quality: re-running ${plural(suspects.size, "case")} that differ, on the ${arm} (${i + 1}/${rule.confirmReruns})`,
        );
        for (const r of await run(arms[arm].target, suite, runOptions, suspects)) {
          reruns[arm].set(r.id, [...(reruns[arm].get(r.id) ?? []), r]);
        }
      }
      await deps.servers?.afterTrial(arm, "the quality re-runs");
    }
  }
  return compareQuality(suite, runs.baseline, runs.candidate, reruns, rule);
}

/** The quality suite as a side-suite: its verdict re-decided from its counts under the recorded rule. */
export const qualitySuite: SideSuite<"quality", QualityReport, QualityRecord> = {
  id: "quality",
  asked: (options) => options.quality !== undefined,
  run: (options, deps, at) =>
    options.quality ? runQuality(options, options.quality, deps, at.log) : Promise.resolve(null),
  verdict: (report) => report.verdict,
  describe: (options) => {
    const q = options.quality;
    if (!q) return null;
    return {
      suite: q.suite.name,
      cases: q.suite.cases.length,
      vllm_sampling: q.vllmSampling,
      rule: {
        alpha: q.rule.alpha,
        min_effect: q.rule.minEffect,
        large_effect: q.rule.largeEffect,
        confirm_reruns: q.rule.confirmReruns,
      },
    };
  },
  redecide: (report, recorded) => {
    // Files from before the rule was recorded: the verdict as written.
    if (!recorded?.rule) return report;
    const { rule } = recorded;
    const verdict = qualityVerdictOf(report, {
      alpha: rule.alpha,
      minEffect: rule.min_effect,
      largeEffect: rule.large_effect,
      confirmReruns: rule.confirm_reruns,
    });
    return { ...report, verdict };
  },
};
