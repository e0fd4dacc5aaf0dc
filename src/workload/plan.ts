// A trial's workload: when each request is sent and what it asks for. Built
// once from a seed, identical for both arms and on every machine. Prompts are
// generated on demand from (seed, index), so memory does not grow with prompt
// length; offsets and lengths live in typed arrays.

import type { ChatMessage } from "../openai/target.ts";
import { type ArrivalSpec, arrivalOffsetsMs, describeArrivals } from "./arrivals.ts";
import { type DatasetEntry, estimateTokens } from "./dataset.ts";
import { formatLengthSpec, type LengthSpec, sampleLength } from "./lengths.ts";
import { hashString, mixSeeds, Rng } from "./rng.ts";
import { countedWords, type TokenCounter } from "./tokens.ts";
import { MOONCAKE_BLOCK_TOKENS, type Trace, type TraceRow } from "./trace.ts";
import { WORDS } from "./words.ts";

export interface WorkloadSpec {
  arrival: ArrivalSpec;
  warmupS: number;
  durationS: number;
  seed: number;
  /** Synthetic prompt length (ignored with a dataset). */
  inputLen: LengthSpec;
  /** Requested output length; with a dataset, overrides the file's. */
  outputLen: LengthSpec | undefined;
  /** A cap on every request's max_tokens. */
  maxTokens: number | undefined;
  ignoreEos: boolean;
  dataset: { name: string; entries: DatasetEntry[] } | undefined;
  /**
   * Which set of synthetic prompt texts (the schedule and lengths stay): the
   * gate gives each pair, and the sweep each point, its own, so that a server's
   * prefix cache cannot serve one trial's prompts to the next. 0 for `measure`.
   */
  promptRound: number;
  /** Shared prefixes before each synthetic prompt (system prompts, RAG templates); undefined: none. */
  prefix: PrefixSpec | undefined;
  /** The rows of a replayed trace (the arrival is then `trace`); undefined: none. */
  trace: Trace | undefined;
  /** Multi-turn sessions: the arrivals start sessions; undefined: single requests. */
  sessions: SessionSpec | undefined;
  /** A model's tokenizer: synthetic prompts of exactly their token lengths; undefined: 4 characters per token. */
  tokenizer: TokenCounter | undefined;
}

/**
 * Sessions arrive on the arrival process (open loop); within one, each turn is
 * sent `thinkS` after the previous answer ended, carrying the whole history
 * (the answers the server gave) and a new user message: input-len tokens in
 * the first turn, `laterInputLen` in the others.
 */
export interface SessionSpec {
  turns: number;
  thinkS: number;
  laterInputLen: LengthSpec;
}

export interface PrefixSpec {
  /** How many distinct prefixes. */
  groups: number;
  /** Tokens of each prefix, before the request's own input-len tokens. */
  tokens: number;
  /** Zipf exponent of the group a request picks: 0 = uniform. */
  zipfS: number;
}

export interface Workload {
  spec: WorkloadSpec;
  /**
   * All requests, warm-up first; offsets from the trial start, ascending.
   * With sessions, the first `scheduledCount` are the sessions' first turns;
   * a later turn (NaN here) is due when the turn before it has ended.
   */
  offsetsMs: Float64Array;
  /** Requests sent on the precomputed schedule: all, or the sessions' first turns. */
  scheduledCount: number;
  /** Warm-up requests (every turn of a session that starts in the warm-up): sent, never recorded. */
  warmupCount: number;
  /** Sessions (without sessions: requests) that start in the warm-up. */
  warmupSessions: number;
  /** Per request: its session and turn (0-based); without sessions, i and 0. */
  sessionOf: Int32Array;
  turnOf: Int32Array;
  /** Per session: its turns (a ShareGPT conversation may have fewer than `turns`) and where its later turns start. */
  turnsOf: Int32Array;
  laterStart: Int32Array;
  /** Requested max_tokens per request, 0 = none sent. */
  maxTokens: Int32Array;
  /** Synthetic prompt tokens per request (0 for dataset prompts). */
  inputTokens: Int32Array;
  /** Dataset entry per request, -1 for synthetic prompts. */
  datasetIndex: Int32Array;
  /** Shared-prefix group per request, -1 for none. */
  prefixGroup: Int32Array;
  /** Trace row per request, -1 for none. */
  traceRow: Int32Array;
  /** Start of the measurement window, ms from the trial start. */
  windowStartMs: number;
  windowMs: number;
  /** Identifies the schedule and prompts; both arms of a pair must match. */
  fingerprint: string;
}

const ARRIVAL_STREAM = 0xa7715;
const LENGTH_STREAM = 0x1e9;
const PROMPT_STREAM = 0x9c0;
const SHUFFLE_STREAM = 0x5f1;
const PREFIX_STREAM = 0x9f1;
const PREFIX_PICK_STREAM = 0x9f2;
const BLOCK_STREAM = 0xb10c;

/** Cumulative probabilities of groups 1..G under Zipf(s); s = 0 is uniform. */
function groupCdf(p: PrefixSpec): Float64Array {
  const weights = Array.from({ length: p.groups }, (_, k) => 1 / (k + 1) ** p.zipfS);
  const total = weights.reduce((a, b) => a + b, 0);
  let acc = 0;
  return Float64Array.from(weights, (w) => {
    acc += w / total;
    return acc;
  });
}

function pickGroup(cdf: Float64Array, u: number): number {
  const i = cdf.findIndex((c) => u < c);
  return i < 0 ? cdf.length - 1 : i;
}

export function buildWorkload(spec: WorkloadSpec): Workload {
  const warmupMs = spec.warmupS * 1000;
  const windowMs = spec.durationS * 1000;
  const arrivalRng = new Rng(mixSeeds(spec.seed, ARRIVAL_STREAM));
  let warmup: number[];
  let measured: number[];
  let rows: number[] = [];
  const kind = spec.arrival.kind;
  if (spec.arrival.kind === "trace") {
    // The trace's own times, from its start, scaled; the window continues the warm-up.
    rows = replayedRows(spec, warmupMs + windowMs);
    const at = rows.map((r) => traceOffsetMs(spec, r));
    warmup = at.filter((t) => t < warmupMs);
    measured = at.filter((t) => t >= warmupMs);
  } else if (kind === "all-at-once" || kind === "poisson" || kind === "gamma") {
    // Warm-up and window each get their own requests: a burst at the start of
    // each, or exactly their share of a random process's arrivals.
    warmup = warmupMs > 0 ? arrivalOffsetsMs(spec.arrival, 0, warmupMs, arrivalRng) : [];
    measured = arrivalOffsetsMs(spec.arrival, warmupMs, warmupMs + windowMs, arrivalRng);
  } else {
    // One grid from 0: the window continues the warm-up's arrivals.
    const all = arrivalOffsetsMs(spec.arrival, 0, warmupMs + windowMs, arrivalRng);
    warmup = all.filter((t) => t < warmupMs);
    measured = all.filter((t) => t >= warmupMs);
  }
  const firsts = [...warmup, ...measured];
  const s = firsts.length;
  const entries = spec.dataset?.entries;
  const order = entries ? shuffledIndices(entries.length, spec.seed) : undefined;
  const entryOf = (session: number) =>
    entries && order
      ? (entries[order[session % order.length] as number] as DatasetEntry)
      : undefined;
  // Sessions: the first turns in arrival order, then each session's later turns.
  const turns = spec.sessions?.turns ?? 1;
  const turnsOf = Int32Array.from({ length: s }, (_, k) =>
    Math.min(turns, 1 + (entryOf(k)?.later.length ?? turns)),
  );
  const laterStart = new Int32Array(s + 1);
  laterStart[0] = s;
  for (let k = 0; k < s; k++)
    laterStart[k + 1] = (laterStart[k] as number) + (turnsOf[k] as number) - 1;
  const n = laterStart[s] as number;
  const offsetsMs = Float64Array.from({ length: n }, (_, i) =>
    i < s ? (firsts[i] as number) : Number.NaN,
  );
  const sessionOf = Int32Array.from({ length: n }, (_, i) => (i < s ? i : 0));
  const turnOf = new Int32Array(n);
  for (let k = 0; k < s; k++) {
    for (let t = 1; t < (turnsOf[k] as number); t++) {
      const i = (laterStart[k] as number) + t - 1;
      sessionOf[i] = k;
      turnOf[i] = t;
    }
  }
  const maxTokens = new Int32Array(n);
  const inputTokens = new Int32Array(n);
  const datasetIndex = new Int32Array(n).fill(-1);
  const prefixGroup = new Int32Array(n).fill(-1);
  const traceRow = Int32Array.from({ length: n }, (_, i) => rows[i] ?? -1);
  const cdf = spec.prefix && !spec.dataset ? groupCdf(spec.prefix) : undefined;
  for (let i = 0; i < n; i++) {
    const rng = new Rng(mixSeeds(spec.seed, LENGTH_STREAM, i));
    let requested: number | undefined;
    const row = spec.trace?.rows[traceRow[i] as number];
    if (row) {
      inputTokens[i] = Math.max(1, row.inputTokens);
      requested = Math.max(1, row.outputTokens);
    } else if (entries && order) {
      const session = sessionOf[i] as number;
      const e = order[session % order.length] as number;
      const turn = turnOf[i] as number;
      datasetIndex[i] = e;
      const entry = entries[e] as DatasetEntry;
      requested = turn === 0 ? entry.maxTokens : entry.later[turn - 1]?.maxTokens;
    } else {
      const later = spec.sessions && i >= s ? spec.sessions : undefined;
      inputTokens[i] = sampleLength(later ? later.laterInputLen : spec.inputLen, rng);
      // Its own stream: adding prefixes leaves every other draw as it was. A
      // session's prefix is in its first turn, and so in every later turn's history.
      if (cdf && !later)
        prefixGroup[i] = pickGroup(
          cdf,
          new Rng(mixSeeds(spec.seed, PREFIX_PICK_STREAM, i)).uniform(),
        );
    }
    if (spec.outputLen && !row) requested = sampleLength(spec.outputLen, rng);
    if (spec.maxTokens !== undefined)
      requested = Math.min(requested ?? spec.maxTokens, spec.maxTokens);
    maxTokens[i] = requested ?? 0;
  }
  const workload: Workload = {
    spec,
    offsetsMs,
    scheduledCount: s,
    // The warm-up sessions' first turns and their later ones.
    warmupCount: warmup.length + (laterStart[warmup.length] as number) - s,
    warmupSessions: warmup.length,
    sessionOf,
    turnOf,
    turnsOf,
    laterStart,
    maxTokens,
    inputTokens,
    datasetIndex,
    prefixGroup,
    traceRow,
    windowStartMs: warmupMs,
    windowMs,
    fingerprint: "",
  };
  workload.fingerprint = fingerprint(workload);
  return workload;
}

/** The rows a trial replays: from the trace's start offset, within the trial, at most maxRequests. */
function replayedRows(spec: WorkloadSpec, endMs: number): number[] {
  const a = spec.arrival;
  const rows = spec.trace?.rows ?? [];
  if (a.kind !== "trace") return [];
  const out: number[] = [];
  for (
    let r = 0;
    r < rows.length && out.length < (a.maxRequests ?? Number.POSITIVE_INFINITY);
    r++
  ) {
    const row = rows[r] as TraceRow;
    if (row.offsetMs < a.startS * 1000) continue;
    if (traceOffsetMs(spec, r) >= endMs) break;
    out.push(r);
  }
  return out;
}

/** When trace row r is sent, ms from the trial start. */
export function traceOffsetMs(spec: WorkloadSpec, r: number): number {
  const a = spec.arrival;
  const row = spec.trace?.rows[r];
  if (a.kind !== "trace" || !row) return Number.NaN;
  return (row.offsetMs - a.startS * 1000) * a.timeScale;
}

function shuffledIndices(count: number, seed: number): Int32Array {
  const rng = new Rng(mixSeeds(seed, SHUFFLE_STREAM));
  const order = Int32Array.from({ length: count }, (_, i) => i);
  for (let i = count - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  return order;
}

/**
 * Synthetic prompt text of `tokens` tokens, unique per (seed, index, round):
 * counted by the workload's tokenizer, or 4 characters per token.
 * `continued`: it follows another text (a shared prefix, a trace block).
 */
function syntheticPrompt(
  spec: WorkloadSpec,
  index: number,
  tokens: number,
  continued = false,
): string {
  const { seed, promptRound: round } = spec;
  const stream =
    round === 0
      ? mixSeeds(seed, PROMPT_STREAM, index)
      : mixSeeds(seed, PROMPT_STREAM, index, round);
  return wordsText(spec, new Rng(stream), tokens, continued);
}

/** Trace block `id` (Mooncake's hash ids): the same text wherever the trace repeats the id. */
function blockText(spec: WorkloadSpec, id: number, continued: boolean): string {
  const rng = new Rng(mixSeeds(spec.seed, BLOCK_STREAM, id, spec.promptRound));
  return wordsText(spec, rng, MOONCAKE_BLOCK_TOKENS, continued);
}

/** The shared prefix of group g: the same text for every request of the group. */
function prefixText(spec: WorkloadSpec, group: number, tokens: number): string {
  return wordsText(spec, new Rng(mixSeeds(spec.seed, PREFIX_STREAM, group)), tokens, false);
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
  const e = workload.datasetIndex[i] as number;
  const entry = e >= 0 ? workload.spec.dataset?.entries[e] : undefined;
  if (entry) return entry.messages;
  const spec = workload.spec;
  const tokens = workload.inputTokens[i] as number;
  const ids = spec.trace?.rows[workload.traceRow[i] as number]?.hashIds;
  if (ids && ids.length > 0) return [{ role: "user", content: tracePrompt(spec, i, ids, tokens) }];
  const g = workload.prefixGroup[i] as number;
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
  const e = workload.datasetIndex[i] as number;
  const entry = e >= 0 ? workload.spec.dataset?.entries[e] : undefined;
  if (entry) {
    const text = entry.messages.map((m) => m.content).join("");
    return workload.spec.tokenizer ? workload.spec.tokenizer.count(text) : estimateTokens(text);
  }
  const prefixed =
    (workload.prefixGroup[i] as number) >= 0 ? (workload.spec.prefix?.tokens ?? 0) : 0;
  return (workload.inputTokens[i] as number) + prefixed;
}

/** The expected output length when the workload fixes it (ignore_eos with max_tokens), else undefined. */
export function fixedOutputTokens(workload: Workload, i: number): number | undefined {
  const m = workload.maxTokens[i] as number;
  return workload.spec.ignoreEos && m > 0 ? m : undefined;
}

export function measuredCount(workload: Workload): number {
  return workload.offsetsMs.length - workload.warmupCount;
}

/** Request i's session and turn (0-based); without sessions, its own session's only turn. */
export function sessionTurn(workload: Workload, i: number): { session: number; turn: number } {
  return { session: workload.sessionOf[i] as number, turn: workload.turnOf[i] as number };
}

/** The request index of a session's turn. */
export function turnIndex(workload: Workload, session: number, turn: number): number {
  return turn === 0 ? session : (workload.laterStart[session] as number) + turn - 1;
}

/** How many turns session s has. */
export function turnsIn(workload: Workload, session: number): number {
  return workload.turnsOf[session] as number;
}

export function isWarmup(workload: Workload, i: number): boolean {
  return (workload.sessionOf[i] as number) < workload.warmupSessions;
}

/** A later turn's messages: the session so far (the answers the server gave), then its own user message. */
export function turnMessages(
  workload: Workload,
  i: number,
  history: readonly ChatMessage[],
): ChatMessage[] {
  const e = workload.datasetIndex[i] as number;
  const entry = e >= 0 ? workload.spec.dataset?.entries[e] : undefined;
  const own = entry?.later[(workload.turnOf[i] as number) - 1]?.user;
  return [
    ...history,
    {
      role: "user",
      content: own ?? syntheticPrompt(workload.spec, i, workload.inputTokens[i] as number),
    },
  ];
}

function fingerprint(w: Workload): string {
  let h = hashString(
    JSON.stringify({
      ...w.spec,
      dataset: w.spec.dataset?.name,
      trace: w.spec.trace?.name,
      tokenizer: w.spec.tokenizer?.name,
    }),
  );
  h = mixSeeds(h, w.offsetsMs.length, w.warmupCount);
  for (let i = 0; i < w.offsetsMs.length; i++) {
    h = mixSeeds(
      h,
      // A later turn has no offset (NaN): it is due when the turn before it ends.
      Number.isNaN(w.offsetsMs[i]) ? -1 : Math.round((w.offsetsMs[i] as number) * 1000),
      w.maxTokens[i] as number,
      w.inputTokens[i] as number,
      w.datasetIndex[i] as number,
    );
    // Only with prefixes: the fingerprints of workloads without them stay as they were.
    if (w.spec.prefix) h = mixSeeds(h, w.prefixGroup[i] as number);
  }
  if (w.spec.dataset) h = mixSeeds(h, hashString(JSON.stringify(w.spec.dataset.entries)));
  if (w.spec.trace) h = mixSeeds(h, hashString(JSON.stringify(w.spec.trace.rows)));
  return h.toString(16).padStart(8, "0");
}

/** The workload spec as reports show it. */
export interface WorkloadDescription {
  arrival: string;
  seed: number;
  warmup_s: number;
  duration_s: number;
  input_len: string;
  output_len: string | null;
  max_tokens: number | null;
  ignore_eos: boolean;
  dataset: string | null;
  /** "8 groups × 512 tokens, uniform" before each prompt, or null. */
  prefix: string | null;
  /** "4 turns, think 1 s, later turns 64 tokens" (the arrivals start sessions), or null. */
  sessions: string | null;
}

export function describePrefix(p: PrefixSpec | undefined): string | null {
  if (!p) return null;
  const pick = p.zipfS === 0 ? "uniform" : `zipf ${p.zipfS}`;
  return `${p.groups} ${p.groups === 1 ? "group" : "groups"} × ${p.tokens} tokens, ${pick}`;
}

export function describeWorkload(w: WorkloadSpec): WorkloadDescription {
  return {
    // With sessions the arrivals are sessions, each of several requests.
    arrival: w.sessions
      ? describeArrivals(w.arrival).replace(/ req\/s\b/, " sessions/s")
      : describeArrivals(w.arrival),
    seed: w.seed,
    warmup_s: w.warmupS,
    duration_s: w.durationS,
    input_len: w.trace ? "trace" : w.dataset ? "dataset" : formatLengthSpec(w.inputLen),
    output_len: w.trace ? "trace" : w.outputLen ? formatLengthSpec(w.outputLen) : null,
    max_tokens: w.maxTokens ?? null,
    ignore_eos: w.ignoreEos,
    dataset: w.dataset?.name ?? null,
    prefix: w.dataset ? null : describePrefix(w.prefix),
    sessions: w.sessions
      ? `${w.dataset ? "up to " : ""}${w.sessions.turns} turns, think ${w.sessions.thinkS} s, later turns ${w.dataset ? "from the dataset" : `${formatLengthSpec(w.sessions.laterInputLen)} tokens`}`
      : null,
  };
}
