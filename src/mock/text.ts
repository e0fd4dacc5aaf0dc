// The mock's "model": a deterministic word generator for outputs (prompts are
// counted with the workload's 4-characters-per-token estimate). The same prompt (at temperature 0,
// or with the same `seed`) always yields the same text and natural length.

import { at } from "../common/arrays.ts";
import { hashString, mixSeeds, Rng } from "../workload/rng.ts";
import { WORDS } from "../workload/words.ts";

/** The number of tokens this prompt would produce before its natural end of sequence. */
export function naturalLength(
  promptKey: string,
  minTokens: number,
  maxTokens: number,
  sampleSeed: number,
): number {
  const rng = new Rng(mixSeeds(hashString(promptKey), sampleSeed, 0x5eed));
  return rng.int(minTokens, maxTokens);
}

/** Generates output tokens one at a time; each token is a word with a leading space (but the first). */
export class TokenStream {
  private readonly rng: Rng;
  private produced = 0;

  constructor(promptKey: string, sampleSeed: number) {
    this.rng = new Rng(mixSeeds(hashString(promptKey), sampleSeed));
  }

  next(): string {
    const word = at(WORDS, this.rng.int(0, WORDS.length - 1));
    return this.produced++ === 0 ? word : ` ${word}`;
  }

  take(count: number): string {
    let text = "";
    for (let i = 0; i < count; i++) text += this.next();
    return text;
  }
}
