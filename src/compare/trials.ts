// One measured trial of a gate run, as the comparison sees it.

import type { Arm } from "../common/arms.ts";
import type { TrialReport } from "../trial/measure.ts";

export interface TrialEntry {
  /** 0-based pair number. */
  pair: number;
  arm: Arm;
  /** 0 when the arm ran first in its pair. */
  position: number;
  seed: number;
  report: TrialReport;
}

export function trialName(t: Pick<TrialEntry, "pair" | "arm">): string {
  return `pair ${t.pair + 1} ${t.arm}`;
}
