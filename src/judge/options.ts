// What a gate runs of the judge suite: the items, the judge's endpoint, how
// many requests at a time, the floor's share, the calibration, the rule's
// margin and floor.

import type { Target } from "../openai/target.ts";
import type { CalibrationPair } from "./calibration.ts";
import type { JudgeSuite } from "./items.ts";
import { PERTURBATIONS } from "./perturb.ts";

export interface JudgeCalibration {
  /** "builtin", "none" or the labelled pairs' file. */
  source: string;
  /** The built-in pairs, each perturbation this many (0: none). */
  perKind: number;
  /** The user's labelled pairs (empty: none). */
  labelled: CalibrationPair[];
}

export interface JudgeOptions {
  suite: JudgeSuite;
  /** The judge's endpoint: any OpenAI-compatible chat completions. */
  judge: Target;
  /** The judge's per-request timeout (s). */
  judgeTimeoutS: number;
  /** Requests in flight at once: to the judge, and to each arm answering the items. */
  concurrency: number;
  /** Items at the first look (then doubling up to the suite's size): the suite stops at the first look that decides. */
  firstLook: number;
  /** The share of the items the baseline answers a second time, judged against its first answers (0: none). */
  floorShare: number;
  /** null: judge-calibration none (the judge's verdict is shown, never gated). */
  calibration: JudgeCalibration | null;
  vllmSampling: boolean;
  /** τ: the tolerated net share of items the candidate loses. */
  maxLoss: number;
  minAgreement: number;
  minConsistency: number;
}

/**
 * Requests the judge may be sent: both orders of each calibration pair (or of
 * the one pair asked first without a calibration), item and re-run item
 * (identical answers are not sent; retries not counted).
 */
export function plannedCalls(j: JudgeOptions): number {
  const c = j.calibration;
  const pairs = c ? c.perKind * PERTURBATIONS.length + c.labelled.length : 1;
  const floor = Math.round(j.suite.items.length * j.floorShare);
  return 2 * (pairs + j.suite.items.length + floor);
}
