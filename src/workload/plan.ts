// A trial's workload: when each request is sent and what it asks for. Built
// once from a seed, identical for both arms and on every machine. Prompts are
// generated on demand from (seed, index) (prompts.ts), so memory does not grow
// with prompt length; offsets and lengths live in typed arrays.

import { at } from "../common/arrays.ts";
import { type ArrivalSpec, arrivalOffsetsMs } from "./arrivals.ts";
import type { DatasetEntry } from "./dataset.ts";
import { type LengthSpec, sampleLength } from "./lengths.ts";
import { hashString, mixSeeds, Rng } from "./rng.ts";
import { ARRIVAL_STREAM, LENGTH_STREAM, PREFIX_PICK_STREAM, SHUFFLE_STREAM } from "./streams.ts";
import type { TokenCounter } from "./tokens.ts";
import type { Trace, TraceRow } from "./trace.ts";

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
   * gate gives each pair's attempt, and the sweep each point, its own, so that
   * a server's prefix cache cannot serve one trial's prompts to the next. 0
   * for `measure`.
   */
  promptRound: number;
  /**
   * Whose texts: 0 for `measure` and the baseline, 1 for the candidate. The
   * arms get distinct texts of the same token lengths (and distinct shared
   * prefixes), so that two arms on one server never share a prefix cache.
   */
  textSalt: number;
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

/** When each first request is sent: the warm-up's offsets, the window's, and the trace rows replayed. */
function firstSends(spec: WorkloadSpec): { warmup: number[]; measured: number[]; rows: number[] } {
  const warmupMs = spec.warmupS * 1000;
  const endMs = warmupMs + spec.durationS * 1000;
  const rng = new Rng(mixSeeds(spec.seed, ARRIVAL_STREAM));
  const kind = spec.arrival.kind;
  const split = (all: number[], rows: number[] = []) => ({
    warmup: all.filter((t) => t < warmupMs),
    measured: all.filter((t) => t >= warmupMs),
    rows,
  });
  if (kind === "trace") {
    // The trace's own times, from its start, scaled; the window continues the warm-up.
    const rows = replayedRows(spec, endMs);
    return split(
      rows.map((r) => traceOffsetMs(spec, r)),
      rows,
    );
  }
  if (spec.arrival.kind === "shaped") {
    // The warm-up at the shape's first rate, on the same process; the shape from the window's start.
    const { process, burstiness, segments } = spec.arrival;
    const firstPerS = segments[0]?.fromPerS ?? 0;
    const warm: ArrivalSpec =
      process === "gamma"
        ? { kind: process, ratePerS: firstPerS, burstiness }
        : { kind: process, ratePerS: firstPerS };
    return {
      warmup: warmupMs > 0 && firstPerS > 0 ? arrivalOffsetsMs(warm, 0, warmupMs, rng) : [],
      measured: arrivalOffsetsMs(spec.arrival, warmupMs, endMs, rng),
      rows: [],
    };
  }
  if (kind === "all-at-once" || kind === "poisson" || kind === "gamma") {
    // Warm-up and window each get their own requests: a burst at the start of
    // each, or exactly their share of a random process's arrivals.
    return {
      warmup: warmupMs > 0 ? arrivalOffsetsMs(spec.arrival, 0, warmupMs, rng) : [],
      measured: arrivalOffsetsMs(spec.arrival, warmupMs, endMs, rng),
      rows: [],
    };
  }
  // One grid from 0: the window continues the warm-up's arrivals.
  return split(arrivalOffsetsMs(spec.arrival, 0, endMs, rng));
}

/** Where requests sit: the first turns in arrival order (0..s−1), then each session's later turns. */
interface Layout {
  turnsOf: Int32Array;
  laterStart: Int32Array;
  sessionOf: Int32Array;
  turnOf: Int32Array;
}

function layoutSessions(
  spec: WorkloadSpec,
  s: number,
  entryOf: (k: number) => DatasetEntry | undefined,
): Layout {
  const turns = spec.sessions?.turns ?? 1;
  const turnsOf = Int32Array.from({ length: s }, (_, k) =>
    Math.min(turns, 1 + (entryOf(k)?.later.length ?? turns)),
  );
  const laterStart = new Int32Array(s + 1);
  laterStart[0] = s;
  for (let k = 0; k < s; k++) laterStart[k + 1] = at(laterStart, k) + at(turnsOf, k) - 1;
  const n = at(laterStart, s);
  const sessionOf = Int32Array.from({ length: n }, (_, i) => (i < s ? i : 0));
  const turnOf = new Int32Array(n);
  for (let k = 0; k < s; k++) {
    for (let t = 1; t < at(turnsOf, k); t++) {
      const i = at(laterStart, k) + t - 1;
      sessionOf[i] = k;
      turnOf[i] = t;
    }
  }
  return { turnsOf, laterStart, sessionOf, turnOf };
}

/** Each request's lengths, and what its prompt is drawn from: a trace row, a dataset entry or words. */
function shapeRequests(
  spec: WorkloadSpec,
  layout: Layout,
  rows: number[],
  order: Int32Array | undefined,
) {
  const n = layout.sessionOf.length;
  const s = layout.turnsOf.length;
  const entries = spec.dataset?.entries;
  const shape = {
    maxTokens: new Int32Array(n),
    inputTokens: new Int32Array(n),
    datasetIndex: new Int32Array(n).fill(-1),
    prefixGroup: new Int32Array(n).fill(-1),
    traceRow: Int32Array.from({ length: n }, (_, i) => rows[i] ?? -1),
  };
  const cdf = spec.prefix && !spec.dataset ? groupCdf(spec.prefix) : undefined;
  for (let i = 0; i < n; i++) {
    const rng = new Rng(mixSeeds(spec.seed, LENGTH_STREAM, i));
    let requested: number | undefined;
    const row = spec.trace?.rows[at(shape.traceRow, i)];
    if (row) {
      shape.inputTokens[i] = Math.max(1, row.inputTokens);
      requested = Math.max(1, row.outputTokens);
    } else if (entries && order) {
      const e = at(order, at(layout.sessionOf, i) % order.length);
      const turn = at(layout.turnOf, i);
      shape.datasetIndex[i] = e;
      const entry = at(entries, e);
      requested = turn === 0 ? entry.maxTokens : entry.later[turn - 1]?.maxTokens;
    } else {
      const later = spec.sessions && i >= s ? spec.sessions : undefined;
      shape.inputTokens[i] = sampleLength(later ? later.laterInputLen : spec.inputLen, rng);
      // Its own stream: adding prefixes leaves every other draw as it was. A
      // session's prefix is in its first turn, and so in every later turn's history.
      if (cdf && !later)
        shape.prefixGroup[i] = pickGroup(
          cdf,
          new Rng(mixSeeds(spec.seed, PREFIX_PICK_STREAM, i)).uniform(),
        );
    }
    if (spec.outputLen && !row) requested = sampleLength(spec.outputLen, rng);
    if (spec.maxTokens !== undefined)
      requested = Math.min(requested ?? spec.maxTokens, spec.maxTokens);
    shape.maxTokens[i] = requested ?? 0;
  }
  return shape;
}

export function buildWorkload(spec: WorkloadSpec): Workload {
  const { warmup, measured, rows } = firstSends(spec);
  const firsts = [...warmup, ...measured];
  const s = firsts.length;
  const entries = spec.dataset?.entries;
  const order = entries ? shuffledIndices(entries.length, spec.seed) : undefined;
  const entryOf = (k: number) =>
    entries && order ? entries[at(order, k % order.length)] : undefined;
  const layout = layoutSessions(spec, s, entryOf);
  const n = layout.sessionOf.length;
  const workload: Workload = {
    spec,
    offsetsMs: Float64Array.from({ length: n }, (_, i) => (i < s ? at(firsts, i) : Number.NaN)),
    scheduledCount: s,
    // The warm-up sessions' first turns and their later ones.
    warmupCount: warmup.length + at(layout.laterStart, warmup.length) - s,
    warmupSessions: warmup.length,
    ...layout,
    ...shapeRequests(spec, layout, rows, order),
    windowStartMs: spec.warmupS * 1000,
    windowMs: spec.durationS * 1000,
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
    [order[i], order[j]] = [at(order, j), at(order, i)];
  }
  return order;
}

/** The expected output length when the workload fixes it (ignore_eos with max_tokens), else undefined. */
export function fixedOutputTokens(workload: Workload, i: number): number | undefined {
  const m = at(workload.maxTokens, i);
  return workload.spec.ignoreEos && m > 0 ? m : undefined;
}

export function measuredCount(workload: Workload): number {
  return workload.offsetsMs.length - workload.warmupCount;
}

/** Request i's session and turn (0-based); without sessions, its own session's only turn. */
export function sessionTurn(workload: Workload, i: number): { session: number; turn: number } {
  return { session: at(workload.sessionOf, i), turn: at(workload.turnOf, i) };
}

/** The request index of a session's turn. */
export function turnIndex(workload: Workload, session: number, turn: number): number {
  return turn === 0 ? session : at(workload.laterStart, session) + turn - 1;
}

/** How many turns session s has. */
export function turnsIn(workload: Workload, session: number): number {
  return at(workload.turnsOf, session);
}

export function isWarmup(workload: Workload, i: number): boolean {
  return at(workload.sessionOf, i) < workload.warmupSessions;
}

function fingerprint(w: Workload): string {
  let h = hashString(
    JSON.stringify({
      ...w.spec,
      // Which texts (a pair's round, an arm's salt) is not the workload: its lengths and times are.
      promptRound: undefined,
      textSalt: undefined,
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
      Number.isNaN(w.offsetsMs[i]) ? -1 : Math.round(at(w.offsetsMs, i) * 1000),
      at(w.maxTokens, i),
      at(w.inputTokens, i),
      at(w.datasetIndex, i),
    );
    // Only with prefixes: the fingerprints of workloads without them stay as they were.
    if (w.spec.prefix) h = mixSeeds(h, at(w.prefixGroup, i));
  }
  if (w.spec.dataset) h = mixSeeds(h, hashString(JSON.stringify(w.spec.dataset.entries)));
  if (w.spec.trace) h = mixSeeds(h, hashString(JSON.stringify(w.spec.trace.rows)));
  return h.toString(16).padStart(8, "0");
}

/** The requests a trial schedules in its window (first turns: a session's later turns add to it). */
export function windowRequests(spec: WorkloadSpec): number {
  return firstSends(spec).measured.length;
}
