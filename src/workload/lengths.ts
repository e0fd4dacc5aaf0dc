// Token-length distributions for synthetic prompts and requested outputs:
// fixed, uniform (inclusive) or normal (rounded, at least 1).

import type { Rng } from "./rng.ts";

/**
 * Longest prompt or output, tokens, from a setting or a file row: beyond the
 * largest context windows, and a synthetic prompt of four characters a token
 * must still fit in memory.
 */
export const MAX_TOKENS = 1_000_000;

export type LengthSpec =
  | { kind: "fixed"; tokens: number }
  | { kind: "uniform"; min: number; max: number }
  | { kind: "normal"; mean: number; sd: number };

export function sampleLength(spec: LengthSpec, rng: Rng): number {
  switch (spec.kind) {
    case "fixed":
      return spec.tokens;
    case "uniform":
      return rng.int(spec.min, spec.max);
    case "normal":
      return Math.max(1, Math.round(spec.mean + spec.sd * rng.normal()));
  }
}

export function formatLengthSpec(spec: LengthSpec): string {
  switch (spec.kind) {
    case "fixed":
      return String(spec.tokens);
    case "uniform":
      return `${spec.min}..${spec.max}`;
    case "normal":
      return `normal:${spec.mean},${spec.sd}`;
  }
}
