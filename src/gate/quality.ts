// The quality suite inside a gate run: each arm one request at a time, apart
// from the latency trials, then the candidate's newly failing contract cases
// again, to confirm them.

import { ARMS, type Arm } from "../common/arms.ts";
import { plural } from "../common/format.ts";
import type { Target } from "../openai/target.ts";
import { compareQuality, type QualityReport, type QualityRule } from "../quality/paired.ts";
import { type CaseRun, type QualityRunOptions, runSuite } from "../quality/run.ts";
import type { Suite } from "../quality/suite.ts";
import type { Servers } from "../servers/lifecycle.ts";
import type { TrialOptions } from "../trial/measure.ts";

export interface QualityOptions {
  suite: Suite;
  /** Also send vLLM's sampling fields (top_k −1, min_p 0, repetition_penalty 1). */
  vllmSampling: boolean;
  rule: QualityRule;
}

export interface QualityDeps {
  /** Runs quality cases against one variant (the real runner by default). */
  runSuite?: (
    target: Target,
    suite: Suite,
    options: QualityRunOptions,
    only?: Set<string>,
  ) => Promise<CaseRun[]>;
  servers?: Servers;
}

export async function runQuality(
  arms: Record<Arm, TrialOptions>,
  options: QualityOptions,
  deps: QualityDeps,
  log: (line: string) => void,
): Promise<QualityReport> {
  const run = deps.runSuite ?? runSuite;
  const { suite, rule } = options;
  const runOptions: QualityRunOptions = {
    vllmSampling: options.vllmSampling,
    timeoutS: arms.baseline.timeoutS,
  };
  const runs = {} as Record<Arm, CaseRun[]>;
  for (const arm of ARMS) {
    await deps.servers?.beforeTrial(arm);
    log(`quality: ${plural(suite.cases.length, "case")} on the ${arm}`);
    runs[arm] = await run(arms[arm].target, suite, runOptions);
    await deps.servers?.afterTrial(arm, "the quality suite");
  }
  const first = compareQuality(suite, runs.baseline, runs.candidate, new Map(), rule);
  const suspects = new Set(first.contract.map((c) => c.id));
  const reruns = new Map<string, CaseRun[]>();
  if (suspects.size > 0 && rule.confirmReruns > 0) {
    await deps.servers?.beforeTrial("candidate");
    for (let i = 0; i < rule.confirmReruns; i++) {
      log(
        `quality: re-running ${suspects.size} newly failing cases on the candidate (${i + 1}/${rule.confirmReruns})`,
      );
      for (const r of await run(arms.candidate.target, suite, runOptions, suspects)) {
        reruns.set(r.id, [...(reruns.get(r.id) ?? []), r]);
      }
    }
    await deps.servers?.afterTrial("candidate", "the quality re-runs");
  }
  return compareQuality(suite, runs.baseline, runs.candidate, reruns, rule);
}
