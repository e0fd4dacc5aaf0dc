// Rewrite a short message in a given tone, keeping every fact: the day, the
// time, the document to bring, the room.

import { pick } from "../../accuracy/tasks/shared.ts";
import type { Rng } from "../../workload/rng.ts";
import { type BuiltinCase, builtinCase, WEEKDAYS } from "./shared.ts";

const FAMILY = "tone";
const TEAMS = ["design", "budget", "hiring", "launch", "safety", "supplier"];
const DOCUMENTS = ["Q3 budget", "draft contract", "test report", "floor plan", "supplier list"];
const TIMES = ["9:30 am", "11 am", "2 pm", "3:30 pm", "4 pm"];

interface Facts {
  team: string;
  day: string;
  time: string;
  doc: string;
  room: string;
}

/** Each tone: its reference and an answer as good in other words. */
const TONES: Record<string, (f: Facts) => [string, string]> = {
  formal: (f) => [
    `Please note that the ${f.team} meeting has been moved to ${f.day} at ${f.time}. Kindly bring the ${f.doc} with you. Room ${f.room} has been reserved for the meeting.`,
    `The ${f.team} meeting will now take place on ${f.day} at ${f.time}. We would be grateful if every attendee brought the ${f.doc}. The meeting will be held in Room ${f.room}, which has been booked.`,
  ],
  friendly: (f) => [
    `Hi all, quick heads-up: the ${f.team} meeting is now on ${f.day} at ${f.time}. Please bring the ${f.doc} along. We've got Room ${f.room}, see you there!`,
    `Hello everyone! Just so you know, we've moved the ${f.team} meeting to ${f.day} at ${f.time}. Don't forget to bring the ${f.doc}. We'll all be in Room ${f.room}.`,
  ],
  concise: (f) => [
    `The ${f.team} meeting moves to ${f.day}, ${f.time}. Bring the ${f.doc}. Room ${f.room}.`,
    `${f.team} meeting: now ${f.day} at ${f.time}. Bring the ${f.doc}. Location: Room ${f.room}.`,
  ],
};

export function toneCase(rng: Rng, index: number): BuiltinCase {
  const facts: Facts = {
    team: pick(rng, TEAMS),
    day: pick(rng, WEEKDAYS),
    time: pick(rng, TIMES),
    doc: pick(rng, DOCUMENTS),
    room: `${rng.int(1, 9)}${pick(rng, ["A", "B", "C", "D"])}`,
  };
  const tone = pick(rng, Object.keys(TONES));
  const [reference, alternative] = TONES[tone]?.(facts) ?? ["", ""];
  const message = `hey, so the ${facts.team} meeting can't happen at the usual time, we're moving it to ${facts.day} at ${facts.time}. also everyone needs to bring the ${facts.doc}. i booked room ${facts.room} for it.`;
  return builtinCase(
    FAMILY,
    index,
    `Rewrite the following message in a ${tone} tone, keeping every fact.\n\n${message}`,
    reference,
    alternative,
  );
}
