// Explain a generated table's trend in two or three sentences: six months of
// a measure that rises or falls, one month with the largest change, and
// sometimes one month against the trend.

import { pick } from "../../accuracy/tasks/shared.ts";
import { at } from "../../common/arrays.ts";
import type { Rng } from "../../workload/rng.ts";
import { type BuiltinCase, builtinCase, MONTHS } from "./shared.ts";
import { ORGS } from "./summary.ts";

const FAMILY = "trend";
const MEASURES = ["orders", "support tickets", "website visits", "new sign-ups", "returns"];

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Six monthly values: steady steps one way, one large step, perhaps one step back. */
function series(rng: Rng, up: boolean): { values: number[]; jump: number; back: number | null } {
  const dir = up ? 1 : -1;
  const start = rng.int(300, 900);
  const jump = rng.int(1, 5);
  const back =
    rng.uniform() < 0.5
      ? at(
          [1, 2, 3, 4, 5].filter((i) => i !== jump),
          rng.int(0, 3),
        )
      : null;
  const values = [start];
  for (let i = 1; i < 6; i++) {
    const size =
      i === jump
        ? Math.round(start * (0.25 + 0.1 * rng.uniform()))
        : i === back
          ? -Math.round(start * (0.03 + 0.04 * rng.uniform()))
          : Math.round(start * (0.03 + 0.07 * rng.uniform()));
    values.push(at(values, i - 1) + dir * size);
  }
  return { values, jump, back };
}

export function trendCase(rng: Rng, index: number): BuiltinCase {
  const [org, measure] = [pick(rng, ORGS), pick(rng, MEASURES)];
  const up = rng.uniform() < 0.6;
  const first = rng.int(0, 6);
  const month = (i: number) => at(MONTHS, first + i);
  const { values, jump, back } = series(rng, up);
  const v = (i: number) => at(values, i);
  const table = [
    `| month | ${measure} |`,
    "|---|---|",
    ...values.map((x, i) => `| ${month(i)} | ${x} |`),
  ].join("\n");
  const pct = Math.round((Math.abs(v(5) - v(0)) / v(0)) * 100);
  const step = Math.abs(v(jump) - v(jump - 1));
  const [rose, rise, grew] = up ? ["rose", "a rise", "grew"] : ["fell", "a fall", "dropped"];
  const reference = [
    `${capital(measure)} ${rose} from ${v(0)} in ${month(0)} to ${v(5)} in ${month(5)}, ${rise} of ${pct} percent.`,
    `The largest change came between ${month(jump - 1)} and ${month(jump)}, when ${measure} ${grew} by ${step}.`,
    back === null
      ? `${capital(measure)} ${rose} in every month, with no reversal.`
      : `The only month against the trend was ${month(back)}, when ${measure} went from ${v(back - 1)} to ${v(back)}.`,
  ].join(" ");
  const alternative = [
    `Over the six months from ${month(0)} to ${month(5)}, ${measure} went ${up ? "up" : "down"} by ${pct} percent, from ${v(0)} to ${v(5)}.`,
    `Most of that change happened from ${month(jump - 1)} to ${month(jump)}, a ${up ? "gain" : "loss"} of ${step}.`,
    back === null
      ? "No month went against that direction."
      : `${month(back)} broke the pattern, with ${measure} moving from ${v(back - 1)} to ${v(back)}.`,
  ].join(" ");
  return builtinCase(
    FAMILY,
    index,
    `Here are the monthly ${measure} of ${org}.\n\n${table}\n\nExplain the trend in this table in two or three sentences.`,
    reference,
    alternative,
  );
}
