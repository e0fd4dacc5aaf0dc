// The mock's automatic prefix cache, as vLLM's: a prompt is cut into blocks
// of 16 tokens (64 characters here, the mock's 4 characters per token), each
// block named by a hash chained over every block before it, so a block hits
// only when the whole prefix up to it matches. A bounded LRU of block hashes;
// a prefill computes only the blocks after the cached ones.

import { at } from "../common/arrays.ts";
import { hashString, mixSeeds } from "../workload/rng.ts";

export const BLOCK_TOKENS = 16;
const BLOCK_CHARS = BLOCK_TOKENS * 4;

/** The chained hashes of a prompt's full blocks (a trailing partial block is never cached). */
export function blockHashes(text: string): number[] {
  const hashes: number[] = [];
  let h = 0;
  for (let at = 0; at + BLOCK_CHARS <= text.length; at += BLOCK_CHARS) {
    h = mixSeeds(h, hashString(text.slice(at, at + BLOCK_CHARS)));
    hashes.push(h);
  }
  return hashes;
}

export class PrefixCache {
  // A Map keeps insertion order: re-inserting a used block makes it the newest.
  private readonly blocks = new Map<number, true>();
  private readonly capacity: number;

  constructor(capacityBlocks: number) {
    this.capacity = capacityBlocks;
  }

  /** How many leading blocks were cached; then every block of the prompt is (the prefill computed them). */
  admit(hashes: readonly number[]): number {
    let hits = 0;
    while (hits < hashes.length && this.blocks.has(at(hashes, hits))) hits++;
    for (const h of hashes) {
      this.blocks.delete(h);
      this.blocks.set(h, true);
    }
    while (this.blocks.size > this.capacity) {
      const oldest = this.blocks.keys().next().value as number;
      this.blocks.delete(oldest);
    }
    return hits;
  }
}
