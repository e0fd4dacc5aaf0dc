// Token-level divergence between the arms' greedy answers to one item, from
// the logprobs each server returned: where the answers first differ, and at
// every position up to it (the context is still the same on both arms) the
// KL divergence of the candidate's next-token distribution from the
// baseline's and whether both put the same token on top.
//
// A server returns only its top-k tokens (OpenAI's API: at most 20), so the
// divergence is taken over a partition of the vocabulary: each token both
// arms listed, and everything else as one bin. Merging tokens into a bin can
// only lower a KL divergence (the data-processing inequality), so this is a
// lower bound on the full-vocabulary value, tighter the larger k.

import { at } from "../common/arrays.ts";

export interface TokenLogprobs {
  token: string;
  logprob: number;
  /** The position's top-k alternatives (the chosen token among them at temperature 0). */
  top: { token: string; logprob: number }[];
}

export interface ItemDivergence {
  /** The first position (0-based) where the tokens differ; null: the answers are the same. */
  first: number | null;
  /** Positions compared: those up to and including the first difference. */
  positions: number;
  /** The KL divergences (nats) summed over those positions. */
  kld_sum: number;
  /** Positions where both arms put the same token on top. */
  same_top: number;
  /**
   * Over the baseline's whole answer (the candidate scored on it where the
   * answers part: teacher-forced): positions and KL summed; null where the
   * answers part and the candidate scored no given text.
   */
  forced_positions: number | null;
  forced_kld_sum: number | null;
}

const FLOOR = 1e-12;

/** KL(P ‖ Q) on the tokens both listed and the rest of the vocabulary as one bin. */
export function topKDivergence(
  p: readonly { token: string; logprob: number }[],
  q: readonly { token: string; logprob: number }[],
): number {
  const qByToken = new Map(q.map((t) => [t.token, Math.exp(t.logprob)]));
  let kl = 0;
  let pShared = 0;
  let qShared = 0;
  for (const t of p) {
    const qi = qByToken.get(t.token);
    if (qi === undefined) continue;
    const pi = Math.exp(t.logprob);
    pShared += pi;
    qShared += qi;
    if (pi > 0) kl += pi * Math.log(pi / Math.max(qi, FLOOR));
  }
  const pRest = Math.max(FLOOR, 1 - pShared);
  const qRest = Math.max(FLOOR, 1 - qShared);
  kl += pRest * Math.log(pRest / qRest);
  return Math.max(0, kl);
}

const topToken = (t: TokenLogprobs): string =>
  t.top.reduce<{ token: string; logprob: number } | undefined>(
    (best, x) => (best === undefined || x.logprob > best.logprob ? x : best),
    undefined,
  )?.token ?? t.token;

/** The first position where the two answers' tokens differ (one ending where the other goes on counts); null: the same. */
export function firstDifference(
  baseline: readonly TokenLogprobs[],
  candidate: readonly TokenLogprobs[],
): number | null {
  const shared = Math.min(baseline.length, candidate.length);
  for (let i = 0; i < shared; i++) if (baseline[i]?.token !== candidate[i]?.token) return i;
  return baseline.length === candidate.length ? null : shared;
}

/** The KL divergences summed over the baseline's answer, the candidate scored at its every token (those `scored` covers). */
function forcedSum(baseline: readonly TokenLogprobs[], scored: readonly TokenLogprobs[]): number {
  let sum = 0;
  for (let i = 0; i < scored.length; i++)
    sum += topKDivergence(at(baseline, i).top, at(scored, i).top);
  return sum;
}

/**
 * The divergence of the candidate's answer from the baseline's, token by
 * token; `scored`: the candidate's distributions at the baseline's tokens
 * (teacher-forced), when it scored them.
 */
export function divergenceOf(
  baseline: readonly TokenLogprobs[],
  candidate: readonly TokenLogprobs[],
  scored: readonly TokenLogprobs[] | null = null,
): ItemDivergence {
  const shared = Math.min(baseline.length, candidate.length);
  const first = firstDifference(baseline, candidate);
  const positions = first === null ? shared : Math.min(first + 1, shared);
  let kldSum = 0;
  let sameTop = 0;
  for (let i = 0; i < positions; i++) {
    const [b, c] = [at(baseline, i), at(candidate, i)];
    kldSum += topKDivergence(b.top, c.top);
    if (topToken(b) === topToken(c)) sameTop++;
  }
  // Answers that never part: the free-running positions are the baseline's whole answer.
  const forced =
    first === null
      ? { forced_positions: positions, forced_kld_sum: kldSum }
      : scored && scored.length > 0 && scored.length <= baseline.length
        ? { forced_positions: scored.length, forced_kld_sum: forcedSum(baseline, scored) }
        : { forced_positions: null, forced_kld_sum: null };
  return { first, positions, kld_sum: kldSum, same_top: sameTop, ...forced };
}
