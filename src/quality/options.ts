// What a gate runs of the quality suite: the cases, the sampling fields, the
// rule — and the runner a test may stand in for.

import type { Target } from "../openai/target.ts";
import type { QualityRule } from "./rule.ts";
import type { CaseRun, QualityRunOptions } from "./run.ts";
import type { Suite } from "./suite.ts";

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
}
