// Fields of a generated paragraph into a JSON object: an order, a booking, a
// staff record; the answer is each field's value at its path.

import { at } from "../../common/arrays.ts";
import type { Rng } from "../../workload/rng.ts";
import type { AccuracyItem } from "../items.ts";
import { CITIES, item, NAMES, pick, SURNAMES } from "./shared.ts";

const FAMILY = "extraction";
const PRODUCTS = ["desk lamps", "kettles", "umbrellas", "backpacks", "chairs", "radios"];
const VENUES = ["the harbour hall", "the old mill", "the river stage", "the north gallery"];
const TEAMS = ["logistics", "accounts", "research", "support", "design"];

type Record_ = { text: string; fields: Record<string, string | number> };

const fullName = (rng: Rng) => `${pick(rng, NAMES)} ${pick(rng, SURNAMES)}`;

/** 1st, 2nd, 3rd, 4th, 11th, 21st… */
const ordinal = (n: number): string => {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${suffix}`;
};

const records: ((rng: Rng) => Record_)[] = [
  (rng) => {
    const [id, who, qty, what, city] = [
      rng.int(1000, 99999),
      fullName(rng),
      rng.int(2, 240),
      pick(rng, PRODUCTS),
      pick(rng, CITIES),
    ];
    return {
      text: `Order ${id} came in this morning: ${who} wants ${qty} ${what}, shipped to the warehouse in ${city}, paid on delivery.`,
      fields: { order_id: id, customer: who, quantity: qty, city },
    };
  },
  (rng) => {
    const [who, guests, venue, night] = [
      fullName(rng),
      rng.int(2, 400),
      pick(rng, VENUES),
      rng.int(1, 28),
    ];
    return {
      text: `For the evening of the ${ordinal(night)}, ${venue} is booked by ${who}; they expect ${guests} guests and will bring their own music.`,
      fields: { venue, organiser: who, guests, day: night },
    };
  },
  (rng) => {
    const [who, team, years, city] = [
      fullName(rng),
      pick(rng, TEAMS),
      rng.int(1, 35),
      pick(rng, CITIES),
    ];
    return {
      text: `After ${years} years in ${city}, ${who} still works in the ${team} team and has no plan to move.`,
      fields: { employee: who, team, years, city },
    };
  },
];

export function extractionItem(rng: Rng, index: number): AccuracyItem {
  const r = at(records, index % records.length)(rng);
  const keys = Object.keys(r.fields);
  const prompt = `Read the paragraph and return a JSON object with exactly the keys ${keys.map((k) => `"${k}"`).join(", ")} (numbers as JSON numbers). Reply with the JSON object only.\nParagraph: ${r.text}`;
  const answer = Object.fromEntries(Object.entries(r.fields).map(([k, v]) => [`$.${k}`, v]));
  return item(FAMILY, index, prompt, answer, { kind: "json_path" }, 200);
}
