// What every built-in task family shares: its item's seeded random source,
// the names and things its texts are made of (written for this project), the
// instruction that asks for a final-answer line, and the item's shape.

import { at } from "../../common/arrays.ts";
import { hashString, mixSeeds, Rng } from "../../workload/rng.ts";
import type { AccuracyItem, Match } from "../items.ts";

/** Bumped when any generator changes what an item id stands for. */
export const BUILTIN_VERSION = 1;
const SEED = 0xacc0_2026;

/** The random source of one item: its family and index alone decide it. */
export const itemRng = (family: string, index: number): Rng =>
  new Rng(mixSeeds(SEED, hashString(family), index));

export const NAMES: readonly string[] =
  "Ada Bram Chidi Dana Elif Farid Greta Hiro Ines Jonas Kemi Luca Mara Nils Oona Priya Quinn Rosa Sven Tara Umar Vera Wen Yusuf Zoe".split(
    " ",
  );

export const SURNAMES: readonly string[] =
  "Okafor Lindqvist Moreau Tanaka Rossi Novak Haddad Kowalski Mensah Ibarra Kaur Petrov Dubois Nakamura Silva Oduya".split(
    " ",
  );

export const CITIES: readonly string[] =
  "Lyon Porto Tampere Osaka Cusco Accra Bergen Hobart Quito Ghent Split Kochi Leeds Graz Utrecht Oaxaca".split(
    " ",
  );

export function pick<T>(rng: Rng, list: readonly T[]): T {
  return at(list, rng.int(0, list.length - 1));
}

/** `count` different members of the list, in random order. */
export function pickDistinct<T>(rng: Rng, list: readonly T[], count: number): T[] {
  const pool = [...list];
  const out: T[] = [];
  while (out.length < count && pool.length > 0)
    out.push(...pool.splice(rng.int(0, pool.length - 1), 1));
  return out;
}

/** The list in a random order. */
export const shuffled = <T>(rng: Rng, list: readonly T[]): T[] =>
  pickDistinct(rng, list, list.length);

export const ANSWER_LINE =
  "Think it through briefly, then give the final answer on the last line as: Answer: <answer>";

/** An item of a family: its id is the family and its index, for every release of this version. */
export function item(
  family: string,
  index: number,
  prompt: string,
  answer: AccuracyItem["answer"],
  match: Match,
  maxTokens = 256,
): AccuracyItem {
  return {
    id: `${family}-${String(index).padStart(3, "0")}`,
    family,
    messages: [{ role: "user", content: prompt }],
    answer,
    match,
    maxTokens,
  };
}
