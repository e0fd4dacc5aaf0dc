// The mock's answers to the built-in accuracy suite: a few words of
// "reasoning", then "Answer: X" (a JSON object for extraction items), right
// or wrong by knobs that make every accuracy rule testable:
//
// - accuracy p: the items ranked by a hash of their id, the first p of the
//   suite are right — exactly in every block of 200 items a family (the
//   default suite is the first), so a mock at 0.79 answers 1 point fewer
//   than one at 0.80, every item it misses one the other misses too;
// - accuracyFlips f: then f/2 of the suite's items turn from right to wrong
//   and as many from wrong to right (chosen by another hash), so f of them
//   flip against a mock without flips while the accuracy stays p;
// - accuracyNondeterminism q: per request, the item is drawn afresh at
//   random with probability q (a batch's sums differ run to run);
// - quantNoise σ: normal noise on each reasoning token's logits (fixed per
//   item and position, as a quantization's error is); where it puts another
//   token on top, the answer takes that token there.
//
// Logprobs: each position's top 5 tokens and the rest of the vocabulary as
// a softmax of logits — the chosen token at 0, the others and the rest a
// margin below it, drawn per item and position.

import {
  builtinAccuracySuite,
  ITEMS_PER_FAMILY,
  MAX_ITEMS_PER_FAMILY,
} from "../accuracy/builtin.ts";
import type { TokenLogprobs } from "../accuracy/divergence.ts";
import { type AccuracyItem, CHOICE_LETTERS } from "../accuracy/items.ts";
import { at, isRecord } from "../common/arrays.ts";
import { hashString, mixSeeds, Rng } from "../workload/rng.ts";
import { WORDS } from "../workload/words.ts";
import type { MockProfile } from "./profile.ts";
import type { StructuredPlan } from "./structured.ts";

export type AccuracyKnobs = Pick<
  MockProfile,
  "accuracy" | "accuracyFlips" | "accuracyNondeterminism" | "quantNoise"
>;

const TOP_K = 5;

let byPrompt: Map<string, AccuracyItem> | undefined;

/**
 * The built-in item a prompt asks, if any (the mock "knows" the suite it was
 * built with, at its largest; a prompt generated twice is its first item).
 */
export function builtinItemOf(promptText: string): AccuracyItem | undefined {
  if (!byPrompt) {
    byPrompt = new Map();
    for (const i of builtinAccuracySuite(MAX_ITEMS_PER_FAMILY).items) {
      const key = i.messages.map((m) => m.content).join("\n");
      if (!byPrompt.has(key)) byPrompt.set(key, i);
    }
  }
  return byPrompt.get(promptText);
}

/** An item's block: its index within its family ÷ the default suite's items a family. */
const blockOf = (id: string): number =>
  Math.floor(Number(id.slice(id.lastIndexOf("-") + 1)) / ITEMS_PER_FAMILY);

/** A uniform in [0, 1) from the item's id and a purpose. */
const hashed = (id: string, purpose: string, ...more: number[]): number =>
  new Rng(mixSeeds(hashString(`${purpose}\u0000${id}`), ...more)).uniform();

const rightSets = new Map<string, Set<string>>();

/** The ids of one block the mock answers right under accuracy p with flips f (exact counts over the block). */
function rightSet(p: number, f: number, block: number): Set<string> {
  const key = `${p}/${f}/${block}`;
  const cached = rightSets.get(key);
  if (cached) return cached;
  const ids = builtinAccuracySuite(MAX_ITEMS_PER_FAMILY)
    .items.map((i) => i.id)
    .filter((id) => blockOf(id) === block);
  const by = (purpose: string) => (a: string, b: string) => hashed(a, purpose) - hashed(b, purpose);
  const ranked = [...ids].sort(by("right"));
  const cut = Math.round(p * ids.length);
  const [right, wrong] = [ranked.slice(0, cut), ranked.slice(cut)];
  const each = Math.min(Math.round((f * ids.length) / 2), right.length, wrong.length);
  const turned = new Set([...right].sort(by("flip")).slice(0, each));
  const set = new Set([
    ...right.filter((id) => !turned.has(id)),
    ...[...wrong].sort(by("flip")).slice(0, each),
  ]);
  rightSets.set(key, set);
  return set;
}

/** Whether this request's answer to the item is right; `draw` is the request's own random source. */
export function answersRight(id: string, knobs: AccuracyKnobs, draw: () => number): boolean {
  if (knobs.accuracyNondeterminism > 0 && draw() < knobs.accuracyNondeterminism)
    return draw() < knobs.accuracy;
  return rightSet(knobs.accuracy, knobs.accuracyFlips, blockOf(id)).has(id);
}

/** A wrong answer to the item, one of three (`which`), told apart from the right one by its match. */
export function wrongAnswer(item: AccuracyItem, which: number): string {
  const offset = 1 + which;
  switch (item.match.kind) {
    case "numeric":
      return String(Number(item.answer) + offset);
    case "choice": {
      const n = Math.max(2, item.match.choices.length);
      const i = CHOICE_LETTERS.indexOf(String(item.answer));
      return CHOICE_LETTERS[(i + offset) % n] ?? "A";
    }
    case "json_path": {
      const entries = Object.entries(isRecord(item.answer) ? item.answer : {});
      const [path, value] = entries.find(([, v]) => typeof v === "number") ??
        entries[0] ?? ["$.x", 0];
      const wrong = typeof value === "number" ? value + offset : `${String(value)} ${offset}`;
      return JSON.stringify(jsonOf({ ...Object.fromEntries(entries), [path]: wrong }));
    }
    default:
      return `${String(item.answer)} ${["or so", "roughly", "perhaps"][which % 3]}`;
  }
}

/** The object a json_path answer describes (top-level keys only: the built-in suite's). */
const jsonOf = (answer: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(answer).map(([path, v]) => [path.replace(/^\$\./, ""), v]));

/**
 * The mock's tokens of a text: each run of white space with the word after
 * it. Its answers are made of such pieces, so a text it wrote splits back
 * into the tokens it generated (the teacher-forced scoring relies on it).
 */
export const mockTokens = (text: string): string[] => text.match(/\s*\S+/g) ?? [];

/** How many reasoning words the item's answer starts with (none for a JSON answer). */
function reasoningCount(item: AccuracyItem): number {
  if (item.match.kind === "json_path") return 0;
  return 4 + new Rng(mixSeeds(hashString(`words\u0000${item.id}`))).int(0, 8);
}

/** The answer's tokens: a few reasoning words, then the final answer line (or the JSON object). */
function answerPieces(
  item: AccuracyItem,
  right: boolean,
  which: number,
): { reasoning: string[]; answer: string[] } {
  if (item.match.kind === "json_path") {
    const text = right
      ? JSON.stringify(jsonOf(isRecord(item.answer) ? item.answer : {}))
      : wrongAnswer(item, which);
    return { reasoning: [], answer: mockTokens(text) };
  }
  const rng = new Rng(mixSeeds(hashString(`words\u0000${item.id}`)));
  const count = 4 + rng.int(0, 8);
  const reasoning = Array.from({ length: count }, (_, i) => {
    const w = at(WORDS, rng.int(0, WORDS.length - 1));
    return i === 0 ? w : ` ${w}`;
  });
  const final = right ? String(item.answer) : wrongAnswer(item, which);
  return { reasoning, answer: ["\nAnswer:", ...mockTokens(` ${final}`)] };
}

const softmaxLog = (logits: number[]): number[] => {
  const max = Math.max(...logits);
  const total = logits.reduce((s, l) => s + Math.exp(l - max), 0);
  return logits.map((l) => l - max - Math.log(total));
};

/**
 * One position: the chosen token and four alternatives with their logits,
 * the rest of the vocabulary as one more; with noise σ on every logit, the
 * token the noisy logits put on top (and their logprobs).
 */
function position(
  item: AccuracyItem,
  index: number,
  chosen: string,
  sigma: number,
  also?: string,
): { token: string; logprobs: TokenLogprobs } {
  const rng = new Rng(mixSeeds(hashString(`pos\u0000${item.id}`), index));
  const margin = 1.5 + 4.5 * rng.uniform();
  const others = Array.from({ length: TOP_K - 1 }, () => ` ${WORDS[rng.int(0, WORDS.length - 1)]}`);
  // `also`: a token the caller needs listed (the given one, when this arm would write another).
  const tokens = [...new Set([chosen, ...(also === undefined ? [] : [also]), ...others])];
  const logits = [0, ...tokens.slice(1).map((_, j) => -(margin + 0.8 * j)), -(margin + 0.2)];
  const noise = new Rng(mixSeeds(hashString(`quant\u0000${item.id}`), index));
  const noisy = sigma > 0 ? logits.map((l) => l + sigma * noise.normal()) : logits;
  const logprobs = softmaxLog(noisy);
  const listed = tokens.map((token, j) => ({ token, logprob: at(logprobs, j) }));
  const top = listed.reduce((a, b) => (b.logprob > a.logprob ? b : a));
  return {
    token: top.token,
    logprobs: {
      token: top.token,
      logprob: top.logprob,
      top: [...listed].sort((a, b) => b.logprob - a.logprob),
    },
  };
}

/**
 * Teacher-forced scoring (vLLM's `prompt_logprobs` with the reply given as
 * the final assistant message): for a built-in item, each token of the given
 * reply with this mock's next-token distribution there — its own token at
 * that position on top (where it would write another, the given token just
 * below it), the same logits as
 * when it generates, its quantization noise on the reasoning positions —
 * after a null for each prompt token (as vLLM lists them); undefined when
 * the prompt is not a built-in item's.
 */
export function forcedLogprobs(
  promptText: string,
  reply: string,
  knobs: AccuracyKnobs,
): TokenLogprobs[] | undefined {
  const item = builtinItemOf(promptText);
  if (!item) return undefined;
  const noisy = reasoningCount(item);
  // What this mock would write itself (its batch draws aside).
  const writes = planAccuracy(promptText, knobs, () => 1)?.pieces ?? [];
  return mockTokens(reply).map((token, i) => {
    const mine = writes[i];
    const sigma = i < noisy ? knobs.quantNoise : 0;
    const p =
      mine !== undefined && mine !== token
        ? position(item, i, mine, sigma, token)
        : position(item, i, token, sigma);
    // The given token's own logprob, not the top's.
    const given = p.logprobs.top.find((t) => t.token === token);
    return { ...p.logprobs, token, logprob: given?.logprob ?? p.logprobs.logprob };
  });
}

/** The plan of a request for a built-in accuracy item: its tokens and their logprobs; undefined otherwise. */
export function planAccuracy(
  promptText: string,
  knobs: AccuracyKnobs,
  draw: () => number,
): StructuredPlan | undefined {
  const item = builtinItemOf(promptText);
  if (!item) return undefined;
  const right = answersRight(item.id, knobs, draw);
  const which = Math.floor(hashed(item.id, "which") * 3);
  const { reasoning, answer } = answerPieces(item, right, which);
  const pieces: string[] = [];
  const logprobs: TokenLogprobs[] = [];
  for (const [i, word] of reasoning.entries()) {
    const p = position(item, i, word, knobs.quantNoise);
    pieces.push(p.token);
    logprobs.push(p.logprobs);
  }
  for (const [i, piece] of answer.entries()) {
    const p = position(item, reasoning.length + i, piece, 0);
    pieces.push(piece);
    logprobs.push(p.logprobs);
  }
  return {
    kind: "content",
    pieces,
    toolName: "",
    finishReason: "stop",
    emptyToolCalls: false,
    logprobs,
  };
}
