// Counting and sorting over lists given in the prompt: numbers above a
// threshold, a sorted list, the k-th word in alphabetical order, how often a
// word occurs.

import { at } from "../../common/arrays.ts";
import type { Rng } from "../../workload/rng.ts";
import { WORDS } from "../../workload/words.ts";
import type { AccuracyItem } from "../items.ts";
import { ANSWER_LINE, item, pick, pickDistinct } from "./shared.ts";

const FAMILY = "counting";
const ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth"];

/** Words of four letters or more: no article a reader could take for a letter. */
const LONG_WORDS = WORDS.filter((w) => w.length >= 4);

type Problem = { text: string; answer: string | number; numeric: boolean };

const numbers = (rng: Rng, n: number): number[] => Array.from({ length: n }, () => rng.int(1, 99));

const problems: ((rng: Rng) => Problem)[] = [
  (rng) => {
    const [list, t] = [numbers(rng, rng.int(8, 14)), rng.int(20, 80)];
    return {
      text: `Here is a list of numbers: ${list.join(", ")}. How many of them are greater than ${t}?`,
      answer: list.filter((x) => x > t).length,
      numeric: true,
    };
  },
  (rng) => {
    const list = numbers(rng, rng.int(5, 9));
    return {
      text: `Sort these numbers from smallest to largest: ${list.join(", ")}. Give the sorted list separated by commas.`,
      answer: [...list].sort((a, b) => a - b).join(", "),
      numeric: false,
    };
  },
  (rng) => {
    const words = pickDistinct(rng, LONG_WORDS, rng.int(6, 9));
    const k = rng.int(0, Math.min(ORDINALS.length, words.length) - 1);
    return {
      text: `Sort these words alphabetically: ${words.join(", ")}. Which word comes ${ORDINALS[k]}?`,
      answer: at([...words].sort(), k),
      numeric: false,
    };
  },
  (rng) => {
    const target = pick(rng, LONG_WORDS);
    const others = pickDistinct(
      rng,
      LONG_WORDS.filter((w) => w !== target),
      6,
    );
    const sentence = Array.from({ length: rng.int(10, 18) }, () =>
      rng.uniform() < 0.3 ? target : pick(rng, others),
    );
    return {
      text: `How many times does the word "${target}" occur in this text: "${sentence.join(" ")}"?`,
      answer: sentence.filter((w) => w === target).length,
      numeric: true,
    };
  },
];

export function countingItem(rng: Rng, index: number): AccuracyItem {
  const p = at(problems, index % problems.length)(rng);
  const match = p.numeric
    ? ({ kind: "numeric", tolerance: 1e-6 } as const)
    : ({ kind: "exact" } as const);
  return item(FAMILY, index, `${p.text}\n${ANSWER_LINE}`, p.answer, match);
}
