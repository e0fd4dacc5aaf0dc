// What a burst may cost, said before it starts.

import { plural } from "../common/format.ts";
import type { LanesSpec } from "./spec.ts";

/**
 * The longest a burst can take, retries included: the last request's start,
 * then every attempt at its timeout, each wait at its cap (a server's
 * retry-after can ask for that much, whatever the backoff).
 */
export function burstWorstCaseS(spec: LanesSpec): number {
  const { max_attempts: attempts, max_wait_s: waitS } = spec.retry;
  const lastStartS = (spec.burst.size - 1) * spec.burst.spacing_s;
  return lastStartS + attempts * spec.task.timeout_s + (attempts - 1) * waitS;
}

/** "at most 3.2 min (…)": said before a burst starts. */
export function burstPlanWords(spec: LanesSpec): string {
  const s = burstWorstCaseS(spec);
  const span =
    s >= 3600
      ? `${(s / 3600).toFixed(1)} h`
      : s >= 60
        ? `${(s / 60).toFixed(1)} min`
        : `${Math.ceil(s)} s`;
  return `burst plan: ${plural(spec.lanes.length, "lane")} × ${spec.burst.size} requests ${spec.burst.spacing_s} s apart; at most ${span} if every attempt fails (${spec.retry.max_attempts} attempts of up to ${spec.task.timeout_s} s, waits up to ${spec.retry.max_wait_s} s)`;
}
