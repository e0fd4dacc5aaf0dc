// The pairs a judge is calibrated on, whose better side is known: built in, a
// good answer against its own perturbations (judge/perturb.ts), from cases
// past the largest built-in suite; and a user's labelled pairs (judge/file.ts).

import type { ChatMessage } from "../accuracy/items.ts";
import { hashString, mixSeeds, Rng } from "../workload/rng.ts";
import { builtinCaseAt, FAMILY_COUNT, MAX_ITEMS_PER_FAMILY } from "./builtin.ts";
import { PERTURBATIONS, type Perturbation, perturb } from "./perturb.ts";

export type PairKind = Perturbation | "labelled";

export interface CalibrationPair {
  id: string;
  kind: PairKind;
  messages: ChatMessage[];
  reference: string | null;
  rubric: string | null;
  /** Shown as A in the first order, as B in the second. */
  first: string;
  second: string;
  /** Which is better: the first, the second, or neither (a labelled tie). */
  better: "first" | "second" | "tie";
}

/** Built-in pairs of each perturbation, by default. */
export const PAIRS_PER_KIND = 16;

/** Families whose answers have sentences that depend on their order (a shuffle makes them worse). */
const ORDERED_FAMILIES = [1, 3];

/** The built-in calibration pairs: `perKind` of each perturbation, the reference shown or not. */
export function builtinPairs(perKind: number, withReference: boolean): CalibrationPair[] {
  const pairs: CalibrationPair[] = [];
  for (const kind of PERTURBATIONS) {
    const families = kind === "shuffled" ? ORDERED_FAMILIES : [0, 1, 2, 3];
    for (let j = 0, tried = 0; pairs.filter((p) => p.kind === kind).length < perKind; tried++) {
      const family = families[tried % families.length] ?? 0;
      // Past every item a suite can hold: the arms never answer these.
      const c = builtinCaseAt(family, MAX_ITEMS_PER_FAMILY + Math.floor(tried / families.length));
      const rng = new Rng(mixSeeds(hashString(kind), tried));
      const worse = perturb(kind, c.alternative, rng);
      if (worse === null || worse === c.alternative) {
        if (tried > 100 * perKind * FAMILY_COUNT) break;
        continue;
      }
      pairs.push({
        id: `${kind}-${String(j++).padStart(3, "0")}`,
        kind,
        messages: c.item.messages,
        reference: withReference ? c.item.reference : null,
        rubric: null,
        first: c.alternative,
        second: worse,
        better: "first",
      });
    }
  }
  return pairs;
}
