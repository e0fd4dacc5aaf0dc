// The prompt texts of a workload's requests, generated on demand from the
// seed, the request and the prompt round: synthetic words (counted by the
// model's tokenizer, or 4 characters a token), shared prefixes, trace blocks,
// dataset entries, and a later turn's messages after its session's history.

import { at } from "../common/arrays.ts";
import type { ChatMessage } from "../openai/target.ts";
import { estimateTokens } from "./dataset.ts";
import type { Workload, WorkloadSpec } from "./plan.ts";
import { mixSeeds, Rng } from "./rng.ts";
import { BLOCK_STREAM, PREFIX_STREAM, PROMPT_STREAM } from "./streams.ts";
import { countedWords } from "./tokens.ts";
import { MOONCAKE_BLOCK_TOKENS } from "./trace.ts";
import { WORDS } from "./words.ts";

/**
 * Synthetic prompt text of `tokens` tokens, unique per (seed, index, round, salt):
 * counted by the workload's tokenizer, or 4 characters per token.
 * `continued`: it follows another text (a shared prefix, a trace block).
 */
function syntheticPrompt(
  spec: WorkloadSpec,
  index: number,
  tokens: number,
  continued = false,
): string {
  const round = spec.promptRound === 0 && spec.textSalt === 0 ? [] : [spec.promptRound];
  const stream = salted(spec, PROMPT_STREAM, index, ...round);
  return wordsText(spec, new Rng(stream), tokens, continued);
}

/** A text's stream; the candidate's salt mixed in last (the baseline's texts are measure's). */
function salted(spec: WorkloadSpec, ...values: number[]): number {
  return spec.textSalt === 0
    ? mixSeeds(spec.seed, ...values)
    : mixSeeds(spec.seed, ...values, spec.textSalt);
}

/** Trace block `id` (Mooncake's hash ids): the same text wherever the trace repeats the id. */
function blockText(spec: WorkloadSpec, id: number, continued: boolean): string {
  const rng = new Rng(salted(spec, BLOCK_STREAM, id, spec.promptRound));
  return wordsText(spec, rng, MOONCAKE_BLOCK_TOKENS, continued);
}

/** The shared prefix of group g: the same text for every request of the group (and the arm). */
function prefixText(spec: WorkloadSpec, group: number, tokens: number): string {
  return wordsText(spec, new Rng(salted(spec, PREFIX_STREAM, group)), tokens, false);
}

function wordsText(spec: WorkloadSpec, rng: Rng, tokens: number, continued: boolean): string {
  if (spec.tokenizer) return countedWords(spec.tokenizer, WORDS, rng, tokens, continued);
  const chars = tokens * 4;
  let text = "";
  while (text.length < chars) text += `${WORDS[rng.int(0, WORDS.length - 1)]} `;
  return text.slice(0, chars);
}

/** The chat messages of request i. */
export function messagesFor(workload: Workload, i: number): ChatMessage[] {
  const e = at(workload.datasetIndex, i);
  const entry = e >= 0 ? workload.spec.dataset?.entries[e] : undefined;
  if (entry) return entry.messages;
  const spec = workload.spec;
  const tokens = at(workload.inputTokens, i);
  const ids = spec.trace?.rows[at(workload.traceRow, i)]?.hashIds;
  if (ids && ids.length > 0) return [{ role: "user", content: tracePrompt(spec, i, ids, tokens) }];
  const g = at(workload.prefixGroup, i);
  const prefixed = spec.prefix && g >= 0 ? spec.prefix : undefined;
  // The shared prefixes stay the same in every round: they are what a cache should hold.
  const own = syntheticPrompt(spec, i, tokens, prefixed !== undefined);
  return [{ role: "user", content: prefixed ? prefixText(spec, g, prefixed.tokens) + own : own }];
}

/** The trace's blocks, then the request's own text if it is longer; cut to its length. */
function tracePrompt(
  spec: WorkloadSpec,
  i: number,
  ids: readonly number[],
  tokens: number,
): string {
  if (!spec.tokenizer) {
    const chars = tokens * 4;
    let text = ids.map((id) => blockText(spec, id, false)).join("");
    if (text.length < chars) text += syntheticPrompt(spec, i, tokens);
    return text.slice(0, chars);
  }
  // Counted tokens cannot be cut by characters: whole blocks, then the rest of its own.
  const whole = Math.min(ids.length, Math.floor(tokens / MOONCAKE_BLOCK_TOKENS));
  const blocks = ids.slice(0, whole).map((id, k) => blockText(spec, id, k > 0));
  const left = tokens - whole * MOONCAKE_BLOCK_TOKENS;
  return blocks.join("") + (left > 0 ? syntheticPrompt(spec, i, left, whole > 0) : "");
}

/** How the workload counts prompt tokens, for reports. */
export function countedBy(spec: WorkloadSpec): string {
  const t = spec.tokenizer;
  if (!t) return "estimate (4 characters per token)";
  return `tokenizer ${t.name}${t.exact ? "" : " (word sums approximate for it)"}`;
}

/** The prompt tokens request i means to send, as the workload counts them. */
export function intendedPromptTokens(workload: Workload, i: number): number {
  const e = at(workload.datasetIndex, i);
  const entry = e >= 0 ? workload.spec.dataset?.entries[e] : undefined;
  if (entry) {
    const text = entry.messages.map((m) => m.content).join("");
    return workload.spec.tokenizer ? workload.spec.tokenizer.count(text) : estimateTokens(text);
  }
  const prefixed = at(workload.prefixGroup, i) >= 0 ? (workload.spec.prefix?.tokens ?? 0) : 0;
  return at(workload.inputTokens, i) + prefixed;
}

/** A later turn's messages: the session so far (the answers the server gave), then its own user message. */
export function turnMessages(
  workload: Workload,
  i: number,
  history: readonly ChatMessage[],
): ChatMessage[] {
  const e = at(workload.datasetIndex, i);
  const entry = e >= 0 ? workload.spec.dataset?.entries[e] : undefined;
  const own = entry?.later[at(workload.turnOf, i) - 1]?.user;
  return [
    ...history,
    {
      role: "user",
      content: own ?? syntheticPrompt(workload.spec, i, at(workload.inputTokens, i)),
    },
  ];
}
