// Requests that ended `stop` under load, sampled for the idle replay: a
// seeded reservoir per arm of the pairs' requests that completed ok with
// finish_reason stop — a well-formed answer that might still have been cut
// short by the load it met.

import type { Arm } from "../common/arms.ts";
import type { RequestRecord } from "../load/record.ts";
import { Rng } from "../workload/rng.ts";

/** One request as the replay needs it: where its prompt comes from, and how long its answer was. */
export interface StopSample {
  /** The pair's prompt texts (the workload's promptRound) and the request's place in its schedule. */
  promptRound: number;
  index: number;
  /** Output tokens under load (usage, else content chunks). */
  tokens: number;
}

/** The output tokens a record's answer had: its usage, else its content chunks. */
export const outputTokens = (r: RequestRecord): number => r.usageCompletionTokens ?? r.outputChunks;

export class StopSampler {
  private readonly size: number;
  private readonly kept: Record<Arm, StopSample[]> = { baseline: [], candidate: [] };
  private readonly seen: Record<Arm, number> = { baseline: 0, candidate: 0 };
  private readonly rng: Rng;

  constructor(size: number, seed: number) {
    this.size = size;
    this.rng = new Rng(seed ^ 0x5a5a);
  }

  /** A request of a pair's trial: kept (uniformly, at most `size` an arm) when it ended ok with stop. */
  add(arm: Arm, promptRound: number, r: RequestRecord): void {
    if (r.warmup || r.outcome !== "ok" || r.finishReason !== "stop") return;
    const sample = { promptRound, index: r.index, tokens: outputTokens(r) };
    const n = ++this.seen[arm];
    const list = this.kept[arm];
    if (list.length < this.size) list.push(sample);
    else {
      const k = Math.floor(this.rng.uniform() * n);
      if (k < this.size) list[k] = sample;
    }
  }

  /** Each arm's sample, in schedule order (the replay's order). */
  samples = (): Record<Arm, StopSample[]> => {
    const sorted = (xs: StopSample[]) =>
      [...xs].sort((a, b) => a.promptRound - b.promptRound || a.index - b.index);
    return { baseline: sorted(this.kept.baseline), candidate: sorted(this.kept.candidate) };
  };
}
