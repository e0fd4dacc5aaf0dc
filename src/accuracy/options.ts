// What a gate runs of the accuracy suite: the items, how many at a time, the
// floor's share, the logprobs asked, the rule's limits — and the runner a
// test may stand in for.

import type { Target } from "../openai/target.ts";
import type { AccuracySuite } from "./items.ts";
import type { AccuracyRunOptions, ArmReplies, AskedItem } from "./run.ts";

export interface AccuracyOptions {
  suite: AccuracySuite;
  /** Items in flight at once, on each arm; auto: what the servers say they run at once (else 16). */
  concurrency: number | "auto";
  /** Items at the first look (then doubling up to the suite's size): the suite stops at the first look that decides. */
  firstLook: number;
  /** The share of the items the baseline answers a second time (0: no floor). */
  floorShare: number;
  /** top_logprobs asked for (0: none, no divergence). */
  topLogprobs: number;
  vllmSampling: boolean;
  /** τ: the tolerated drop, a fraction. */
  maxDrop: number;
  maxFlipRate: number | null;
  maxKld: number | null;
}

export interface AccuracyDeps {
  /** Runs items (accuracy's, the judge's) against one arm (the real runner by default). */
  runItems?: (
    target: Target,
    items: readonly AskedItem[],
    options: AccuracyRunOptions,
  ) => Promise<ArmReplies>;
}
