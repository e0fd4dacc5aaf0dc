// Whether a pair whose trials the client's lateness contaminated is worth
// running again. Its contamination already enters the interval in the
// direction that weakens the verdict (metric.ts), so keeping it can never make
// a wrong verdict — only a weaker one. It is worth a re-run only when the
// contamination moves one of its gated values across a margin the verdict is
// judged on (the tolerance for a pass, the fail floor for a fail); a candidate
// 50 % slower with 12 % of lateness is still beyond both.

import { metricSpecs, pairValues } from "./gated.ts";
import { failFloor, type PairValues, toleranceLog } from "./metric.ts";
import type { TrialEntry } from "./trials.ts";
import type { DecisionOptions } from "./verdict.ts";

/** Whether the lateness moves d across the pass or the fail margin of one metric. */
function crossesMargin(v: PairValues, higherIsWorse: boolean, tol: number, floor: number): boolean {
  const d = higherIsWorse ? Math.log(v.candidate / v.baseline) : Math.log(v.baseline / v.candidate);
  const forFail = d - (v.candidateContamination ?? 0);
  const forPass = d + (v.baselineContamination ?? 0);
  return d < tol !== forPass < tol || d > floor !== forFail > floor;
}

/** Whether the pair's lateness could change a gated metric's verdict (both of its trials given). */
export function latenessMatters(options: DecisionOptions, pair: readonly TrialEntry[]): boolean {
  return metricSpecs(options.percentile, options.tolerances).some((spec) => {
    const tol = toleranceLog(spec);
    const floor = failFloor(options.rule, tol);
    return pairValues(spec, pair, options.percentile).some((v) =>
      crossesMargin(v, spec.higherIsWorse, tol, floor),
    );
  });
}
