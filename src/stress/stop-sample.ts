// Requests that ended `stop` under load, sampled for the idle replay: each
// arm's requests of the pairs that completed ok with finish_reason stop and a
// usage count of their tokens. The sample is the `size` requests with the
// smallest keys hash(seed, arm, promptRound, index) — uniform, and the same
// whatever order the requests ended in. A pair's requests are held until its
// attempt is kept: a re-run pair's discarded attempt samples nothing.

import type { Arm } from "../common/arms.ts";
import type { RequestRecord } from "../load/record.ts";
import { mixSeeds } from "../workload/rng.ts";

/** One request as the replay needs it: where its prompt comes from, and how long its answer was. */
export interface StopSample {
  /** The pair's prompt texts (the workload's promptRound) and the request's place in its schedule. */
  promptRound: number;
  index: number;
  /** Output tokens under load, from the server's usage. */
  tokens: number;
}

interface Keyed extends StopSample {
  key: number;
}

const ARM_SALT: Record<Arm, number> = { baseline: 1, candidate: 2 };

export class StopSampler {
  private readonly size: number;
  private readonly seed: number;
  private kept: Record<Arm, Keyed[]> = { baseline: [], candidate: [] };
  private pending: Record<Arm, Keyed[]> = { baseline: [], candidate: [] };

  constructor(size: number, seed: number) {
    this.size = size;
    this.seed = seed;
  }

  /**
   * A request of a pair's trial, held until the attempt is kept. Only answers
   * the server counted (usage): chunks are no unit to compare (a busy server
   * packs more tokens into one).
   */
  add(arm: Arm, promptRound: number, r: RequestRecord): void {
    const tokens = r.usageCompletionTokens;
    if (r.warmup || r.outcome !== "ok" || r.finishReason !== "stop" || tokens === undefined) return;
    const key = mixSeeds(this.seed, ARM_SALT[arm], promptRound, r.index);
    this.pending[arm].push({ promptRound, index: r.index, tokens, key });
  }

  /** The attempt is kept: its requests join the sample (the smallest keys stay). */
  commit = (): void => {
    for (const arm of ["baseline", "candidate"] as const) {
      const all = [...this.kept[arm], ...this.pending[arm]];
      this.kept[arm] = all.sort((a, b) => a.key - b.key).slice(0, this.size);
    }
    this.discard();
  };

  /** The attempt is run again: its requests leave no trace. */
  discard = (): void => {
    this.pending = { baseline: [], candidate: [] };
  };

  /** Each arm's sample, in schedule order (the replay's order). */
  samples = (): Record<Arm, StopSample[]> => {
    const sorted = (xs: Keyed[]) =>
      [...xs]
        .sort((a, b) => a.promptRound - b.promptRound || a.index - b.index)
        .map(({ promptRound, index, tokens }) => ({ promptRound, index, tokens }));
    return { baseline: sorted(this.kept.baseline), candidate: sorted(this.kept.candidate) };
  };
}
