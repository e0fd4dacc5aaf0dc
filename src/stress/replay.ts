// The idle replay: each sampled request sent again, one at a time, on an
// otherwise idle server — the same prompt, max_tokens, temperature and seed
// as under load — twice: the first answer against the one given under load
// (cut short by load?), the second against the first (how often two idle
// answers differ anyway: batch nondeterminism, the method's floor).

import { Agent } from "undici";
import { sendOnce } from "../load/once.ts";
import { classify } from "../load/outcome.ts";
import type { Target } from "../openai/target.ts";
import { buildWorkload, type Workload, type WorkloadSpec } from "../workload/plan.ts";
import { messagesFor } from "../workload/prompts.ts";
import type { StopSample } from "./stop-sample.ts";

/** An answer this much longer (10 %, and 3 tokens) says more: a material difference. */
const MATERIAL_SHARE = 0.1;
const MATERIAL_TOKENS = 3;

/** Whether `longer` tokens say materially more than `shorter`. */
export const materiallyLonger = (longer: number, shorter: number): boolean =>
  longer - shorter >= MATERIAL_TOKENS && longer >= shorter * (1 + MATERIAL_SHARE) - 1e-9;

/** One sampled request replayed at idle: its answer's tokens under load and in both idle replays. */
export interface ReplayRecord {
  load_tokens: number;
  /** null: that replay failed (its outcome in `failed`). */
  idle_tokens: number | null;
  idle2_tokens: number | null;
  failed: string | null;
}

/** How a replayed request reads: cut short under load, differing between idle replays, the same, or not replayed. */
export type ReplayClass = "truncated_under_load" | "differs_at_idle" | "same" | "replay_failed";

export function classOf(r: ReplayRecord): ReplayClass {
  if (r.idle_tokens === null || r.idle2_tokens === null) return "replay_failed";
  if (materiallyLonger(r.idle_tokens, r.load_tokens)) return "truncated_under_load";
  const [a, b] = [r.idle_tokens, r.idle2_tokens];
  return materiallyLonger(Math.max(a, b), Math.min(a, b)) ? "differs_at_idle" : "same";
}

/** The sampled requests of one arm, each replayed twice at idle, in turn. */
export async function replayArm(
  target: Target,
  spec: WorkloadSpec,
  samples: readonly StopSample[],
  timeoutS: number,
  signal?: AbortSignal,
): Promise<ReplayRecord[]> {
  const agent = new Agent({ connections: 1 });
  const workloads = new Map<number, Workload>();
  const workloadOf = (promptRound: number) => {
    const w = workloads.get(promptRound) ?? buildWorkload({ ...spec, promptRound });
    workloads.set(promptRound, w);
    return w;
  };
  const out: ReplayRecord[] = [];
  try {
    for (const s of samples) {
      if (signal?.aborted) break;
      const w = workloadOf(s.promptRound);
      const messages = messagesFor(w, s.index);
      const maxTokens = w.maxTokens[s.index] ?? 0;
      const once = async () => {
        const r = await sendOnce(target, agent, messages, maxTokens, timeoutS * 1000);
        const outcome = classify(r);
        // The server's own count, as under load (stop-sample.ts): no usage, no comparison.
        const tokens = r.usageCompletionTokens;
        if (outcome !== "ok") return { tokens: null, failed: outcome };
        return tokens === undefined
          ? { tokens: null, failed: "no usage" }
          : { tokens, failed: null };
      };
      const first = await once();
      const second = await once();
      out.push({
        load_tokens: s.tokens,
        idle_tokens: first.tokens,
        idle2_tokens: second.tokens,
        failed: first.failed ?? second.failed,
      });
    }
  } finally {
    await agent.close();
  }
  return out;
}
