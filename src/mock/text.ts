// The mock's "model": a 4-characters-per-token tokenizer for prompts and a
// deterministic word generator for outputs. The same prompt (at temperature 0,
// or with the same `seed`) always yields the same text and natural length.

import { hashString, mixSeeds, Rng } from "../workload/rng.ts";

const WORDS = (
  "the of and to in is that for it as was with be by on not he this are or his from at which " +
  "but have an they you were her she there been one all we their has would when if so no what " +
  "up out said its about into than them can only other time new some could these two may first " +
  "then do any like my now over such our man me even most made after also did many before must " +
  "through back years where much your way well down should because each just those people how " +
  "too little state good very make world still own see men work long get here between both life " +
  "being under never day same another know while last might us great old year off come since " +
  "against go came right used take three model token server latency stream batch queue decode"
).split(" ");

/** Tokens in a prompt: one per 4 characters, rounded up (the workload uses the same estimate). */
export function countPromptTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

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
    const word = WORDS[this.rng.int(0, WORDS.length - 1)] as string;
    return this.produced++ === 0 ? word : ` ${word}`;
  }

  take(count: number): string {
    let text = "";
    for (let i = 0; i < count; i++) text += this.next();
    return text;
  }
}
