// Multi-step arithmetic word problems: whole numbers, three or four
// operations each, the answer a number.

import { at } from "../../common/arrays.ts";
import type { Rng } from "../../workload/rng.ts";
import type { AccuracyItem } from "../items.ts";
import { ANSWER_LINE, item, NAMES, pick } from "./shared.ts";

const FAMILY = "arithmetic";
const THINGS = ["pencils", "apples", "stamps", "marbles", "cards", "buttons", "shells", "bolts"];

type Problem = { text: string; answer: number };

const problems: ((rng: Rng) => Problem)[] = [
  (rng) => {
    const [name, thing] = [pick(rng, NAMES), pick(rng, THINGS)];
    const [boxes, per, more] = [rng.int(3, 19), rng.int(6, 24), rng.int(2, 9)];
    const away = rng.int(1, boxes * per - 1);
    return {
      text: `${name} has ${boxes} boxes with ${per} ${thing} in each. ${name} gives away ${away} ${thing}, then buys ${more} more boxes of ${per}. How many ${thing} does ${name} have now?`,
      answer: boxes * per - away + more * per,
    };
  },
  (rng) => {
    const [s1, h1, s2, h2] = [rng.int(30, 110), rng.int(2, 7), rng.int(20, 90), rng.int(1, 5)];
    return {
      text: `A train runs at ${s1} km per hour for ${h1} hours, then at ${s2} km per hour for ${h2} hours. How many kilometres does it run in all?`,
      answer: s1 * h1 + s2 * h2,
    };
  },
  (rng) => {
    const name = pick(rng, NAMES);
    const [a, p, b, q] = [rng.int(2, 9), rng.int(3, 15), rng.int(2, 8), rng.int(4, 20)];
    const bill = Math.ceil((a * p + b * q + rng.int(1, 40)) / 10) * 10;
    return {
      text: `${name} buys ${a} notebooks at ${p} dollars each and ${b} pens at ${q} dollars each, and pays with ${bill} dollars. How many dollars of change does ${name} get?`,
      answer: bill - (a * p + b * q),
    };
  },
  (rng) => {
    const [start, rate, minutes] = [rng.int(20, 300), rng.int(4, 25), rng.int(3, 30)];
    const used = rng.int(1, start + rate * minutes - 1);
    return {
      text: `A tank holds ${start} litres of water. A pump adds ${rate} litres a minute for ${minutes} minutes, and ${used} litres are drawn off. How many litres are in the tank then?`,
      answer: start + rate * minutes - used,
    };
  },
  (rng) => {
    const name = pick(rng, NAMES);
    const [p, d, q, e] = [rng.int(8, 40), rng.int(2, 9), rng.int(5, 30), rng.int(2, 9)];
    const total = p * d + q * e + rng.int(10, 400);
    return {
      text: `A book has ${total} pages. ${name} reads ${p} pages a day for ${d} days, then ${q} pages a day for ${e} days. How many pages are left to read?`,
      answer: total - (p * d + q * e),
    };
  },
];

export function arithmeticItem(rng: Rng, index: number): AccuracyItem {
  const problem = at(problems, index % problems.length)(rng);
  return item(FAMILY, index, `${problem.text}\n${ANSWER_LINE}`, problem.answer, {
    kind: "numeric",
    tolerance: 1e-6,
  });
}
