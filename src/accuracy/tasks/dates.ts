// Date and time arithmetic on the proleptic Gregorian calendar (UTC): a date
// some days later, a weekday, the end of a meeting, the days between two dates.

import { at } from "../../common/arrays.ts";
import type { Rng } from "../../workload/rng.ts";
import type { AccuracyItem } from "../items.ts";
import { ANSWER_LINE, item } from "./shared.ts";

const FAMILY = "dates";
const DAY_MS = 86_400_000;
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** A day between 1990 and 2039, as Unix ms at midnight UTC. */
const someDay = (rng: Rng): number => Date.UTC(1990, 0, 1) + rng.int(0, 50 * 365) * DAY_MS;
const iso = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const hhmm = (minutes: number): string =>
  `${String(Math.floor(minutes / 60) % 24).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;

type Problem = { text: string; answer: string | number; numeric: boolean };

const problems: ((rng: Rng) => Problem)[] = [
  (rng) => {
    const [day, n] = [someDay(rng), rng.int(10, 400)];
    return {
      text: `What is the date ${n} days after ${iso(day)}? Give it as YYYY-MM-DD.`,
      answer: iso(day + n * DAY_MS),
      numeric: false,
    };
  },
  (rng) => {
    const day = someDay(rng);
    return {
      text: `On which day of the week did ${iso(day)} fall?`,
      answer: at(WEEKDAYS, new Date(day).getUTCDay()),
      numeric: false,
    };
  },
  (rng) => {
    const [start, h, m] = [rng.int(6 * 60, 22 * 60), rng.int(0, 5), rng.int(5, 55)];
    return {
      text: `A meeting starts at ${hhmm(start)} and lasts ${h} hours and ${m} minutes. At what time does it end? Give it as HH:MM on a 24-hour clock.`,
      answer: hhmm(start + h * 60 + m),
      numeric: false,
    };
  },
  (rng) => {
    const [from, days] = [someDay(rng), rng.int(20, 900)];
    return {
      text: `How many days are there from ${iso(from)} to ${iso(from + days * DAY_MS)}, counting the second date but not the first?`,
      answer: days,
      numeric: true,
    };
  },
];

export function datesItem(rng: Rng, index: number): AccuracyItem {
  const p = at(problems, index % problems.length)(rng);
  const match = p.numeric
    ? ({ kind: "numeric", tolerance: 1e-6 } as const)
    : ({ kind: "exact" } as const);
  return item(FAMILY, index, `${p.text}\n${ANSWER_LINE}`, p.answer, match);
}
