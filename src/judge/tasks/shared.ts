// What every built-in open-ended family shares: its case's seeded random
// source, the words its texts are made of (written for this project), and
// the case's shape — the item with its reference, and a second answer of the
// same quality in other words (the calibration's good side, and the mock's
// answer).

import { hashString, mixSeeds, Rng } from "../../workload/rng.ts";
import type { JudgeItem } from "../items.ts";

/** Bumped when any generator changes what an item id stands for. */
export const BUILTIN_VERSION = 1;
const SEED = 0x0d9e_2026;

/** The random source of one case: its family and index alone decide it. */
export const caseRng = (family: string, index: number): Rng =>
  new Rng(mixSeeds(SEED, hashString(family), index));

/** A built-in item, and an answer as good as its reference in other words. */
export interface BuiltinCase {
  item: JudgeItem;
  /** As good as the reference, worded otherwise: what a perturbation starts from. */
  alternative: string;
}

export const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
] as const;

export const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"] as const;

/** A case of a family: its id is the family and its index, for every release of this version. */
export function builtinCase(
  family: string,
  index: number,
  prompt: string,
  reference: string,
  alternative: string,
): BuiltinCase {
  return {
    item: {
      id: `${family}-${String(index).padStart(3, "0")}`,
      family,
      messages: [{ role: "user", content: prompt }],
      reference,
      rubric: null,
      maxTokens: 256,
    },
    alternative,
  };
}
