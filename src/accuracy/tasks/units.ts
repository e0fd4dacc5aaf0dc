// Unit conversions with exact, well-known factors (and Celsius to
// Fahrenheit), answered to two decimals.

import type { Rng } from "../../workload/rng.ts";
import type { AccuracyItem } from "../items.ts";
import { ANSWER_LINE, item, pick } from "./shared.ts";

const FAMILY = "units";

/** [from, to, the conversion]. */
const CONVERSIONS: [string, string, (x: number) => number][] = [
  ["kilometres", "metres", (x) => x * 1000],
  ["metres", "centimetres", (x) => x * 100],
  ["kilograms", "grams", (x) => x * 1000],
  ["grams", "kilograms", (x) => x / 1000],
  ["hours", "minutes", (x) => x * 60],
  ["minutes", "seconds", (x) => x * 60],
  ["litres", "millilitres", (x) => x * 1000],
  ["inches", "centimetres", (x) => x * 2.54],
  ["feet", "inches", (x) => x * 12],
  ["miles", "kilometres", (x) => x * 1.609344],
  ["pounds", "kilograms", (x) => x * 0.45359237],
  ["degrees Celsius", "degrees Fahrenheit", (x) => (x * 9) / 5 + 32],
  ["days", "hours", (x) => x * 24],
];

/** Of the exact value: a reply rounded to two decimals is within it, and one with more decimals. */
const TOLERANCE = 0.0051;

export function unitsItem(rng: Rng, index: number): AccuracyItem {
  const [from, to, convert] = pick(rng, CONVERSIONS);
  // One or two decimals: 3.5 km, 12.25 kg.
  const x = rng.int(1, 4000) / (rng.uniform() < 0.5 ? 10 : 100);
  const answer = Number(convert(x).toFixed(6));
  return item(
    FAMILY,
    index,
    `Convert ${x} ${from} to ${to}, rounded to two decimal places.\n${ANSWER_LINE}`,
    answer,
    { kind: "numeric", tolerance: TOLERANCE },
  );
}
