// Each item's replies on both arms (and the baseline's re-run) read into
// answers, with their token-level divergence where both returned logprobs.

import { hashString } from "../workload/rng.ts";
import type { ArmAnswer, ItemAnswers } from "./compare.ts";
import { divergenceOf, type TokenLogprobs } from "./divergence.ts";
import { scoreReply } from "./extract.ts";
import type { AccuracyItem } from "./items.ts";
import { type ItemReply, lostInTransport } from "./run.ts";

/** The reply's end kept in the results: where its answer is. */
export const EXCERPT_CHARS = 240;

/** The items the baseline answers a second time: the first `share` of them by a hash of their id. */
export function floorItems<T extends { id: string }>(items: readonly T[], share: number): T[] {
  const count = Math.round(items.length * share);
  if (count <= 0) return [];
  const ranked = [...items].sort(
    (a, b) => hashString(a.id) - hashString(b.id) || (a.id < b.id ? -1 : 1),
  );
  const chosen = new Set(ranked.slice(0, count).map((i) => i.id));
  return items.filter((i) => chosen.has(i.id));
}

/** The item's answer, as text (bounded). */
export const expectedText = (item: AccuracyItem): string =>
  (typeof item.answer === "object" ? JSON.stringify(item.answer) : String(item.answer)).slice(
    0,
    2000,
  );

function armAnswer(item: AccuracyItem, reply: ItemReply | undefined): ArmAnswer {
  if (!reply)
    return { answer: "", correct: false, error: "not asked", excerpt: "", finish_reason: null };
  const scored = reply.error ? { answer: "", correct: false } : scoreReply(item, reply.text);
  return {
    answer: scored.answer.slice(0, 400),
    correct: scored.correct,
    error: reply.error?.slice(0, 300) ?? null,
    ...(lostInTransport(reply) ? { lost: true } : {}),
    excerpt: reply.text.slice(-EXCERPT_CHARS),
    finish_reason: reply.finishReason?.slice(0, 40) ?? null,
  };
}

/** Every item's answers, in the suite's order. */
export function answersOf(
  items: readonly AccuracyItem[],
  replies: { baseline: ItemReply[]; candidate: ItemReply[]; again: ItemReply[] },
  /** The candidate's distributions at the baseline's tokens, by item, where it scored them. */
  scored: ReadonlyMap<string, TokenLogprobs[] | null> = new Map(),
): ItemAnswers[] {
  const byId = (list: ItemReply[]) => new Map(list.map((r) => [r.id, r]));
  const [base, cand, again] = [
    byId(replies.baseline),
    byId(replies.candidate),
    byId(replies.again),
  ];
  return items.map((item) => {
    const [b, c] = [base.get(item.id), cand.get(item.id)];
    return {
      id: item.id,
      family: item.family,
      expected: expectedText(item),
      baseline: armAnswer(item, b),
      candidate: armAnswer(item, c),
      again: again.has(item.id) ? armAnswer(item, again.get(item.id)) : null,
      divergence:
        b?.tokens && c?.tokens
          ? divergenceOf(b.tokens, c.tokens, scored.get(item.id) ?? null)
          : null,
    };
  });
}
