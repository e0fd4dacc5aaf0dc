// Summarize a generated paragraph in one sentence: a company's new site, or
// a study's finding — names and numbers a summary must keep.

import { CITIES, NAMES, pick, SURNAMES } from "../../accuracy/tasks/shared.ts";
import type { Rng } from "../../workload/rng.ts";
import { type BuiltinCase, builtinCase, MONTHS, WEEKDAYS } from "./shared.ts";

const FAMILY = "summary";

export const ORGS = [
  "Norrvik Tools",
  "Pelagia Foods",
  "Aster Robotics",
  "Bluefin Textiles",
  "Corvid Labs",
  "Halden Bikes",
  "Ivory Batteries",
  "Kestrel Print",
  "Marlow Glass",
  "Tessel Solar",
] as const;
const FACILITIES = ["factory", "warehouse", "research centre", "repair hub", "training campus"];
const PRODUCTS = ["e-bikes", "batteries", "printers", "solar panels", "kitchen robots", "tents"];
const SUBJECTS = ["adults", "nurses", "teachers", "students", "retirees", "bus drivers"];
const ACTIVITIES = ["walking outdoors", "cycling to work", "swimming", "gardening", "dancing"];
const OUTCOMES = ["catch a cold", "report poor sleep", "need a hospital stay", "take a sick day"];

/** "a" or "an" before a number as it is read aloud (an 8, an 11, an 18, an 80…). */
const article = (n: number): string =>
  /^(8|11$|18$|11\d{3}$|18\d{3}$)/.test(String(n)) ? "an" : "a";

function opening(rng: Rng, index: number): BuiltinCase {
  const [org, city, facility, product] = [
    pick(rng, ORGS),
    pick(rng, CITIES),
    pick(rng, FACILITIES),
    pick(rng, PRODUCTS),
  ];
  const [cost, staff, buses] = [rng.int(12, 480), rng.int(40, 900), rng.int(2, 6)];
  const [day, month, lead] = [
    pick(rng, WEEKDAYS),
    pick(rng, MONTHS),
    `${pick(rng, NAMES)} ${pick(rng, SURNAMES)}`,
  ];
  const paragraph = `${org} opened a new ${facility} in ${city} on ${day}. The site cost ${cost} million euros and will employ ${staff} people once it is fully running. ${lead}, who leads the project, said the first ${product} would ship in ${month}. Local officials welcomed the jobs but asked for more buses to the area, which is served by only ${buses} routes today.`;
  return builtinCase(
    FAMILY,
    index,
    `Summarize the following paragraph in one sentence.\n\n${paragraph}`,
    `${org} opened ${article(cost)} ${cost} million euro ${facility} in ${city} that will employ ${staff} people and ship its first ${product} in ${month}.`,
    `In ${city}, ${org} has opened a new ${facility} costing ${cost} million euros, with ${staff} jobs planned and the first ${product} due in ${month}.`,
  );
}

function study(rng: Rng, index: number): BuiltinCase {
  const [city, subjects, activity, outcome] = [
    pick(rng, CITIES),
    pick(rng, SUBJECTS),
    pick(rng, ACTIVITIES),
    pick(rng, OUTCOMES),
  ];
  const [n, years, times, pct, start] = [
    rng.int(300, 9000),
    rng.int(2, 12),
    rng.int(2, 5),
    rng.int(8, 41),
    rng.int(2027, 2031),
  ];
  const lead = `${pick(rng, NAMES)} ${pick(rng, SURNAMES)}`;
  const paragraph = `Researchers at the University of ${city} followed ${n} ${subjects} for ${years} years. Those who reported ${activity} at least ${times} times a week were ${pct} percent less likely to ${outcome}. The team, led by ${lead}, cautioned that the study was observational and cannot show cause and effect. A larger trial is planned to start in ${start}.`;
  return builtinCase(
    FAMILY,
    index,
    `Summarize the following paragraph in one sentence.\n\n${paragraph}`,
    `${article(years) === "an" ? "An" : "A"} ${years}-year University of ${city} study of ${n} ${subjects} found that ${activity} at least ${times} times a week went with ${article(pct)} ${pct} percent lower chance to ${outcome}, though the link is only observational.`,
    `Following ${n} ${subjects} over ${years} years, University of ${city} researchers saw ${article(pct)} ${pct} percent lower chance to ${outcome} among those ${activity} at least ${times} times a week, a link they call observational.`,
  );
}

export function summaryCase(rng: Rng, index: number): BuiltinCase {
  return index % 2 === 0 ? opening(rng, index) : study(rng, index);
}
