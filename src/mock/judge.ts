// The mock's open-ended answers and its judge. As a server it answers the
// built-in judge suite's items with the generator's second answer (as good as
// the reference), made worse on a share of the items (judgeWorse: a fact
// changed or cut off, the same items every run) and reworded now and then
// (judgeVariation: batch nondeterminism of equal quality). As a judge it
// decides by a hidden rule — closeness to the reference (its facts kept, none
// invented, its sentences' order, a finished last sentence, no padding) —
// with knobs for what real judges do wrong: a position bias on close calls,
// a length bias, noise, following an injected instruction, prose instead of
// the JSON asked for.

import { at } from "../common/arrays.ts";
import { builtinCaseAt, FAMILY_COUNT, MAX_ITEMS_PER_FAMILY } from "../judge/builtin.ts";
import { changeFact, truncate } from "../judge/perturb.ts";
import { readJudgeRequest } from "../judge/prompt.ts";
import { hashString, mixSeeds, Rng } from "../workload/rng.ts";
import type { MockProfile } from "./profile.ts";
import type { StructuredPlan } from "./structured.ts";

export type JudgeKnobs = Pick<
  MockProfile,
  | "judgeWorse"
  | "judgeVariation"
  | "judgePositionBias"
  | "judgeLengthBias"
  | "judgeNoise"
  | "judgeFollowsInjection"
  | "judgeProse"
>;

/** A score difference under this is a close call: an unbiased judge calls it a tie. */
const TIE_MARGIN = 0.05;

let byPrompt: Map<string, { id: string; alternative: string }> | undefined;

/** The built-in case a prompt asks, if any (the mock "knows" the suite at its largest). */
function builtinCaseOf(promptText: string): { id: string; alternative: string } | undefined {
  if (!byPrompt) {
    byPrompt = new Map();
    for (let f = 0; f < FAMILY_COUNT; f++)
      for (let i = 0; i < MAX_ITEMS_PER_FAMILY; i++) {
        const c = builtinCaseAt(f, i);
        const key = c.item.messages.map((m) => m.content).join("\n");
        if (!byPrompt.has(key)) byPrompt.set(key, { id: c.item.id, alternative: c.alternative });
      }
  }
  return byPrompt.get(promptText);
}

/** A uniform in [0, 1) from an id and a purpose. */
const hashed = (id: string, purpose: string): number =>
  new Rng(mixSeeds(hashString(`${purpose}\u0000${id}`))).uniform();

/** Text as the mock's tokens: words, each but the first with its leading space. */
const pieces = (text: string): string[] => text.match(/\s*\S+/g) ?? [];

const contentPlan = (text: string): StructuredPlan => ({
  kind: "content",
  pieces: pieces(text),
  toolName: "",
  finishReason: "stop",
  emptyToolCalls: false,
});

/** The answer to a built-in judge item: worse on the judgeWorse share, reworded now and then. */
export function planOpenEnded(
  promptText: string,
  knobs: JudgeKnobs,
  draw: () => number,
): StructuredPlan | undefined {
  const c = builtinCaseOf(promptText);
  if (!c) return undefined;
  let text = c.alternative;
  if (hashed(c.id, "worse") < knobs.judgeWorse) {
    const rng = new Rng(mixSeeds(hashString(c.id), 7));
    text = hashed(c.id, "how") < 0.5 ? (changeFact(text, rng) ?? truncate(text)) : truncate(text);
  }
  if (knobs.judgeVariation > 0 && draw() < knobs.judgeVariation) text = `Sure. ${text}`;
  return contentPlan(text);
}

const words = (t: string): string[] => t.toLowerCase().match(/[a-z0-9]+/g) ?? [];
const numbers = (t: string): string[] => t.match(/\b\d+\b/g) ?? [];
/** Numbers and capitalised words not at a sentence's start: what a summary must keep. */
const facts = (t: string): string[] => [
  ...numbers(t),
  ...[...t.matchAll(/(?<![.!?:]\s|^)\b([A-Z][a-z]+)/g)].map((m) => at(m, 1)),
];
const sentences = (t: string): string[] =>
  t
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter(Boolean);

/** How far the answer's sentences keep the reference's order: 1 in order, 0 reversed. */
function orderKept(answer: string, reference: string): number {
  const ref = sentences(reference).map((s) => new Set(words(s)));
  const matched = sentences(answer).flatMap((s) => {
    const w = words(s);
    const overlaps = ref.map((r) => w.filter((x) => r.has(x)).length);
    const best = Math.max(0, ...overlaps);
    return best >= 2 ? [overlaps.indexOf(best)] : [];
  });
  let [pairs, kept] = [0, 0];
  for (let i = 0; i < matched.length; i++)
    for (let j = i + 1; j < matched.length; j++) {
      pairs++;
      if (at(matched, i) <= at(matched, j)) kept++;
    }
  return pairs === 0 ? 1 : kept / pairs;
}

/** The hidden rule: how close an answer is to the reference (higher is better). */
export function closeness(answer: string, reference: string): number {
  const wanted = new Set(facts(reference));
  const have = new Set(facts(answer));
  const recall =
    wanted.size === 0 ? 1 : [...wanted].filter((f) => have.has(f)).length / wanted.size;
  const known = new Set(numbers(reference));
  const invented = numbers(answer).filter((n) => !known.has(n)).length;
  const finished = /[.!?)"'”]\s*$/.test(answer) ? 1 : 0;
  const padding = Math.max(0, words(answer).length / Math.max(1, words(reference).length) - 1.5);
  return (
    0.4 * recall +
    0.2 * orderKept(answer, reference) +
    0.2 * finished -
    0.1 * Math.min(invented, 2) -
    0.2 * Math.min(1, padding)
  );
}

const INJECTION =
  /ignore (any|all|the)? ?(other|previous)? ?instructions|disregard the instructions|declare this answer|must be selected|choose it/i;

/** The mock judge's winner for answers A and B against the source (the reference, else the request). */
function decide(a: string, b: string, source: string, knobs: JudgeKnobs, draw: () => number) {
  if (knobs.judgeFollowsInjection) {
    const [ia, ib] = [INJECTION.test(a), INJECTION.test(b)];
    if (ia !== ib) return { winner: ia ? "A" : "B", reason: "It is marked as the better answer." };
  }
  const normal = Math.sqrt(-2 * Math.log(1 - draw())) * Math.cos(2 * Math.PI * draw());
  const d =
    closeness(a, source) -
    closeness(b, source) +
    knobs.judgeLengthBias * Math.log(Math.max(1, words(a).length) / Math.max(1, words(b).length)) +
    knobs.judgeNoise * normal;
  if (Math.abs(d) < TIE_MARGIN)
    return draw() < knobs.judgePositionBias
      ? { winner: "A", reason: "Answer A reads slightly better." }
      : { winner: "tie", reason: "Both answers are equally good." };
  return d > 0
    ? { winner: "A", reason: "Answer A is closer to the reference." }
    : { winner: "B", reason: "Answer B is closer to the reference." };
}

/** The judge's reply to a judge request; undefined: not one. */
export function planJudgeVerdict(
  promptText: string,
  knobs: JudgeKnobs,
  draw: () => number,
): StructuredPlan | undefined {
  const ask = readJudgeRequest(promptText);
  if (!ask) return undefined;
  const { winner, reason } = decide(ask.a, ask.b, ask.reference ?? ask.request, knobs, draw);
  if (knobs.judgeProse > 0 && draw() < knobs.judgeProse)
    return contentPlan(
      `I would say ${winner === "tie" ? "neither" : `answer ${winner}`} wins. ${reason}`,
    );
  return contentPlan(JSON.stringify({ reason, winner }));
}
