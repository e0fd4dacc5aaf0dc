// An open-ended item: a prompt whose answers no string match can grade, with
// an optional reference answer and rubric line for the judge. The built-in
// suite and a user's JSONL both become these.

import type { ChatMessage } from "../accuracy/items.ts";

export interface JudgeItem {
  /** Stable across runs and releases: pairs the arms' answers. */
  id: string;
  /** The task family the item belongs to (its own table row). */
  family: string;
  messages: ChatMessage[];
  /** A good answer the judge is shown beside the two under judgement (null: none). */
  reference: string | null;
  /** One line of what matters in an answer (null: none). */
  rubric: string | null;
  maxTokens: number;
}

export interface JudgeSuite {
  /** "builtin@1", or the file it came from. */
  name: string;
  items: JudgeItem[];
}

/** The share of items with a reference: the calibration is judged the way most items are. */
export const referenceShare = (items: readonly JudgeItem[]): number =>
  items.length === 0 ? 0 : items.filter((i) => i.reference !== null).length / items.length;
