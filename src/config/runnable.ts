// Plans the gate can prove will not run, refused before the first request (a
// bad setting, exit 2) with the arithmetic and the fix: trials whose windows
// cannot hold min-ok-requests, and stress scenarios whose windows are shorter
// than what their readings need. Every trial of a gate replays one seeded
// schedule, so its window's count is known exactly here.

import { InputError } from "../common/errors.ts";
import { windowTooSmall } from "../compare/reach.ts";
import type { GateOptions } from "../gate/options.ts";
import { scalingSpan } from "../gate/scaling.ts";
import { spanOf } from "../gate/surge.ts";
import { bucketSeconds } from "../metrics/timeline.ts";
import { SETTLED_BUCKETS } from "../stress/recovery.ts";

/** Trials that can never reach min-ok-requests (a capacity gate's rate comes from its sweep: checked then). */
function tooFewRequests(gate: GateOptions): string | null {
  return gate.capacity ? null : windowTooSmall(gate.baseline.workload, gate.decision.minOkRequests);
}

/** A surge whose windows are too short for its reading: no steady level, or no recovery ever seen. */
function surgeTooShort(gate: GateOptions): string | null {
  const s = gate.surge;
  if (!s) return null;
  const span = spanOf(gate.baseline.workload.warmupS, s);
  const trialS = span.scheduleEndS;
  const bucketS = bucketSeconds(trialS);
  // The reading keeps the buckets wholly inside a window (from the trial's start, every bucketS).
  const whole = (fromS: number, toS: number) =>
    Math.floor(toS / bucketS + 1e-9) - Math.ceil(fromS / bucketS - 1e-9);
  if (whole(span.endS, span.scheduleEndS) < SETTLED_BUCKETS)
    return `surge-after (${s.afterS} s) holds fewer whole buckets than a recovery needs: the surge's ${trialS} s trials are read in ${bucketS} s buckets and a recovery needs ${SETTLED_BUCKETS} in a row — every reading would be censored; lengthen surge-after (to ${(SETTLED_BUCKETS + 1) * bucketS} s) or shorten the surge`;
  if (whole(span.steadyFromS, span.startS) < 1)
    return `surge-before (${s.beforeS} s) holds no whole ${bucketS} s bucket of the surge's ${trialS} s trials: there is no steady second to recover to — lengthen surge-before (to ${2 * bucketS} s)`;
  return null;
}

/** A scaling scenario whose phases are shorter than the buckets they are read in. */
function scalingTooShort(gate: GateOptions): string | null {
  const s = gate.scaling;
  if (!s) return null;
  const span = scalingSpan(gate.baseline.workload.warmupS, s);
  const bucketS = bucketSeconds(span.endS);
  const read = `the scaling trials (${span.endS} s) are read in ${bucketS} s buckets`;
  if (s.holdS < 2 * bucketS)
    return `the scaling step's hold (${s.holdS} s) is shorter than two buckets: ${read}, and a reaction within the hold cannot be told from none — lengthen the step (scaling: "${s.factor}x …") or shorten scaling-before, scaling-after or the hover`;
  if (s.beforeS < bucketS)
    return `scaling-before (${s.beforeS} s) is shorter than one bucket: ${read}, and there is no steady count before the step — lengthen scaling-before`;
  return null;
}

/** Throws the first reason this gate cannot produce a valid trial or a decision. */
export function refuseUnrunnable(gate: GateOptions): void {
  for (const check of [tooFewRequests, surgeTooShort, scalingTooShort]) {
    const reason = check(gate);
    if (reason) throw new InputError(`the plan cannot run: ${reason}`);
  }
}
