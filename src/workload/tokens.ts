// Real token counts: a model's tokenizer.json (read from disk, never
// downloaded) counts the synthetic prompts' words, so a prompt of N tokens is
// N tokens for that model, not N × 4 characters. The prompts are words joined
// by spaces, and the tokenizers serving runtimes use split text at spaces
// before their model (BPE, WordPiece, Unigram) runs, so a prompt's count is
// the sum of its words' counts — each word is counted once, not every prompt
// encoded. `exact` says whether that held on samples of this tokenizer.

import { Tokenizer } from "@huggingface/tokenizers";
import { at } from "../common/arrays.ts";
import type { Rng } from "./rng.ts";

export interface TokenCounter {
  /** Where the tokenizer came from (a path), for reports. */
  name: string;
  count(text: string): number;
  /** Tokens of each vocabulary word first in a text, and after a space. */
  first: ReadonlyMap<string, number>;
  later: ReadonlyMap<string, number>;
  /** A word of each token count, first and after a space: what ends a prompt on its exact length. */
  ofCount: { first: ReadonlyMap<number, string>; later: ReadonlyMap<number, string> };
  /** A word that is one token after a space: what fills a prompt to its exact length. */
  filler: string | undefined;
  /** Whether word sums matched whole-text counts on samples. */
  exact: boolean;
  /** What it was built from: a worker thread builds its own (a function cannot be sent). */
  source: { tokenizerJson: object; configJson: object };
}

/** The tokenizer models the library implements. */
const MODEL_TYPES: readonly string[] = ["BPE", "WordPiece", "Unigram"];

/** A tokenizer.json's model.type, when it says one. */
function modelType(model: unknown): string | undefined {
  if (typeof model !== "object" || model === null || !("type" in model)) return undefined;
  return typeof model.type === "string" ? model.type : String(model.type);
}

export function tokenCounter(
  name: string,
  tokenizerJson: object,
  configJson: object,
  words: readonly string[],
): TokenCounter {
  // A type the library does not know is guessed from the vocabulary's shape (a BPE, say):
  // it would count wrong without a word. Refused; one without a type is left to that guess.
  const type = "model" in tokenizerJson ? modelType(tokenizerJson.model) : undefined;
  if (type !== undefined && !MODEL_TYPES.includes(type))
    throw new Error(
      `its model.type = ${JSON.stringify(type).slice(0, 80)} is not one this tool can count; expected ${MODEL_TYPES.join(", ")}`,
    );
  const tokenizer = new Tokenizer(tokenizerJson, configJson);
  const count = (text: string) =>
    text === "" ? 0 : tokenizer.encode(text, { add_special_tokens: false }).ids.length;
  const base = count("a");
  const first = new Map(words.map((w) => [w, count(w)]));
  const later = new Map(words.map((w) => [w, count(`a ${w}`) - base]));
  // A word of no tokens would never fill a prompt (an empty vocabulary, a model
  // type the library does not know): refused here, not an endless loop later.
  const empty = words.filter((w) => (first.get(w) ?? 0) < 1 || (later.get(w) ?? 0) < 1);
  if (empty.length > 0)
    throw new Error(
      `it counts ${empty.length} of ${words.length} plain English words (e.g. "${empty[0]}") as no tokens; expected every word to be one token or more`,
    );
  const filler = words.find((w) => later.get(w) === 1);
  // The first word of each count (reversed, so the first one seen wins).
  const byCount = (m: Map<string, number>) => new Map([...m].reverse().map(([w, k]) => [k, w]));
  // Check the word sums on texts of every word, first and later.
  const summed =
    (first.get(at(words, 0)) ?? 0) + words.slice(1).reduce((s, w) => s + (later.get(w) ?? 0), 0);
  const exact = filler !== undefined && summed === count(words.join(" "));
  return {
    name,
    count,
    first,
    later,
    ofCount: { first: byCount(first), later: byCount(later) },
    filler,
    exact,
    source: { tokenizerJson, configJson },
  };
}

/**
 * Words from the rng until the text holds exactly `tokens` tokens (each word
 * counted once, in its place); `continued`: the text follows another (a shared
 * prefix), so even its first word comes after a space.
 */
export function countedWords(
  counter: TokenCounter,
  words: readonly string[],
  rng: Rng,
  tokens: number,
  continued: boolean,
): string {
  const parts: string[] = [];
  let sum = 0;
  while (sum < tokens) {
    const w = at(words, rng.int(0, words.length - 1));
    const isFirst = parts.length === 0 && !continued;
    const place = isFirst ? counter.first : counter.later;
    let c = place.get(w) ?? 1;
    let chosen = w;
    if (sum + c > tokens) {
      // The last word: one of the exact remaining count, else the one-token filler.
      const exact = (isFirst ? counter.ofCount.first : counter.ofCount.later).get(tokens - sum);
      chosen = exact ?? counter.filler ?? w;
      c = place.get(chosen) ?? 1;
    }
    parts.push(chosen);
    sum += c;
  }
  const text = parts.join(" ");
  return continued ? ` ${text}` : text;
}
