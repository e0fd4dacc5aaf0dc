// Multiple choice over facts given in the prompt: an order told pair by pair
// (who is tallest, second oldest…), the box that holds the most, who lives
// where. Four options; the answer is a letter.

import { at } from "../../common/arrays.ts";
import type { Rng } from "../../workload/rng.ts";
import { type AccuracyItem, CHOICE_LETTERS } from "../items.ts";
import { CITIES, item, NAMES, pick, pickDistinct, shuffled } from "./shared.ts";

const FAMILY = "choice";
const RELATIONS = [
  ["taller", "tallest", "shortest"],
  ["older", "oldest", "youngest"],
  ["faster", "fastest", "slowest"],
  ["heavier", "heaviest", "lightest"],
] as const;
const COLOURS = ["red", "blue", "green", "yellow", "white", "black"];

type Problem = { facts: string; question: string; options: string[]; answer: string };

const problems: ((rng: Rng) => Problem)[] = [
  (rng) => {
    const [more, most, least] = pick(rng, RELATIONS);
    const ranked = pickDistinct(rng, NAMES, 4); // first = most
    const facts = shuffled(
      rng,
      [0, 1, 2].map((i) => `${ranked[i]} is ${more} than ${ranked[i + 1]}.`),
    ).join(" ");
    const ask = rng.int(0, 2);
    const [question, answer] =
      ask === 0
        ? [`Who is the ${most}?`, ranked[0]]
        : ask === 1
          ? [`Who is the ${least}?`, ranked[3]]
          : [`Who is the second ${most}?`, ranked[1]];
    return { facts, question, options: shuffled(rng, ranked), answer: answer ?? "" };
  },
  (rng) => {
    const colours = pickDistinct(rng, COLOURS, 4);
    const coins = pickDistinct(
      rng,
      Array.from({ length: 90 }, (_, i) => i + 5),
      4,
    );
    const facts = colours.map((c, i) => `The ${c} box holds ${coins[i]} coins.`).join(" ");
    const fewest = rng.uniform() < 0.5;
    const target = fewest ? Math.min(...coins) : Math.max(...coins);
    return {
      facts,
      question: `Which box holds the ${fewest ? "fewest" : "most"} coins?`,
      options: shuffled(
        rng,
        colours.map((c) => `the ${c} box`),
      ),
      answer: `the ${colours[coins.indexOf(target)]} box`,
    };
  },
  (rng) => {
    const people = pickDistinct(rng, NAMES, 4);
    const cities = pickDistinct(rng, CITIES, 4);
    const facts = shuffled(
      rng,
      people.map((p, i) => `${p} lives in ${cities[i]}.`),
    ).join(" ");
    const k = rng.int(0, 3);
    return {
      facts,
      question: `Who lives in ${cities[k]}?`,
      options: shuffled(rng, people),
      answer: at(people, k),
    };
  },
];

export function choiceItem(rng: Rng, index: number): AccuracyItem {
  const p = at(problems, index % problems.length)(rng);
  const lettered = p.options.map((o, i) => `${CHOICE_LETTERS[i]}) ${o}`).join("\n");
  const letter = at(CHOICE_LETTERS, p.options.indexOf(p.answer));
  const prompt = `${p.facts}\n${p.question}\n${lettered}\nGive the letter of the right option on the last line as: Answer: <letter>`;
  return item(FAMILY, index, prompt, letter, { kind: "choice", choices: p.options });
}
