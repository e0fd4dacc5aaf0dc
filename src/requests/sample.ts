// A bounded sample of a requests file for the report's per-request scatter:
// read as one stream pipeline (gzipped or not, JSONL or CSV) that any error or
// limit tears down whole — at most MAX_LINES lines, MAX_BYTES of text and
// MAX_READ_MS of reading, a line longer than MAX_LINE_CHARS skipped — into a
// uniform reservoir of at most `perSeries` requests per arm (seeded: the same
// file draws the same sample).

import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { PassThrough, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { StringDecoder } from "node:string_decoder";
import { createGunzip } from "node:zlib";
import { parse as csvStream } from "csv-parse";
import { errorMessage } from "../common/errors.ts";
import { Rng } from "../workload/rng.ts";

export const MAX_LINES = 2_000_000;
export const MAX_BYTES = 512 * 1024 ** 2;
export const MAX_LINE_CHARS = 64 * 1024;
export const MAX_READ_MS = 30_000;

export interface RequestPoint {
  /** The arm, or "endpoint" for a single endpoint's file. */
  series: string;
  promptTokens: number | null;
  ttftMs: number | null;
  ok: boolean;
  /** The pair and its attempt (null outside the pairs). */
  pair: number | null;
  attempt: number | null;
}

export interface RequestSample {
  source: string;
  perSeries: number;
  /** Requests read per series (of the pairs' kept attempts, when only those are drawn). */
  read: Record<string, number>;
  points: RequestPoint[];
  /** Lines that were not a request (malformed, too long). */
  skipped: number;
  /** Why reading stopped early, if it did. */
  stopped: string | null;
}

const numberOr = (v: unknown): number | null => {
  const n = typeof v === "string" && v !== "" ? Number(v) : v;
  return typeof n === "number" && Number.isFinite(n) ? n : null;
};

/** A requests line (its JSON object or CSV record) as a point; null: not a request. */
export function requestPoint(row: unknown): RequestPoint | null {
  if (typeof row !== "object" || row === null) return null;
  const r: Record<string, unknown> = Object.fromEntries(Object.entries(row));
  if (typeof r.outcome !== "string") return null;
  return {
    series: r.arm === "baseline" || r.arm === "candidate" ? r.arm : "endpoint",
    promptTokens: numberOr(r.prompt_tokens_server) ?? numberOr(r.prompt_tokens_intended),
    ttftMs: numberOr(r.ttft_ms),
    ok: r.outcome === "ok",
    pair: numberOr(r.pair),
    attempt: numberOr(r.attempt),
  };
}

/** What reading stopped at: a limit (the sample so far stands), not a failure. */
class LimitReached extends Error {}

/**
 * Uniform reservoirs, one per series. A re-run pair's earlier attempts are
 * dropped at the end: what is left is still a uniform sample of the kept
 * attempts (a little smaller when a pair ran again).
 */
class Reservoirs {
  private readonly counts = new Map<
    string,
    { series: string; pair: number | null; attempt: number; n: number }
  >();
  private readonly seen = new Map<string, number>();
  private readonly kept = new Map<string, RequestPoint[]>();
  private readonly lastAttempt = new Map<number, number>();
  private readonly rng = new Rng(0x5ca77e2);
  private readonly size: number;
  private readonly pairsOnly: boolean;
  constructor(size: number, pairsOnly: boolean) {
    this.size = size;
    this.pairsOnly = pairsOnly;
  }

  add(p: RequestPoint): void {
    if (this.pairsOnly && p.pair === null) return;
    const attempt = p.attempt ?? 0;
    if (p.pair !== null)
      this.lastAttempt.set(p.pair, Math.max(this.lastAttempt.get(p.pair) ?? 0, attempt));
    const group = `${p.series} ${p.pair ?? "-"} ${attempt}`;
    const counted = this.counts.get(group) ?? { series: p.series, pair: p.pair, attempt, n: 0 };
    counted.n++;
    this.counts.set(group, counted);
    const n = (this.seen.get(p.series) ?? 0) + 1;
    this.seen.set(p.series, n);
    const kept = this.kept.get(p.series) ?? [];
    this.kept.set(p.series, kept);
    if (kept.length < this.size) kept.push(p);
    else {
      const k = Math.floor(this.rng.uniform() * n);
      if (k < this.size) kept[k] = p;
    }
  }

  private isKept = (pair: number | null, attempt: number | null) =>
    pair === null || (attempt ?? 0) === this.lastAttempt.get(pair);

  /** The kept requests counted per series, and the sample of them. */
  result(): { read: Record<string, number>; points: RequestPoint[] } {
    const read: Record<string, number> = {};
    for (const c of this.counts.values())
      if (this.isKept(c.pair, c.attempt)) read[c.series] = (read[c.series] ?? 0) + c.n;
    const points = [...this.kept.values()].flat().filter((p) => this.isKept(p.pair, p.attempt));
    return { read, points };
  }
}

/** Reading's limits and what it skipped. */
class Limits {
  bytes = 0;
  lines = 0;
  skipped = 0;
  /** A CSV record the parser could not end (over the cap, a quote never closed): it takes the rest of the file with it. */
  cut: string | null = null;
}

/** Counts the text's bytes (decompressed) against the cap; past it, the pipeline stops. */
function byteCap(limits: Limits): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      limits.bytes += chunk.length;
      if (limits.bytes <= MAX_BYTES) done(null, chunk);
      else done(new LimitReached(`stopped after ${MAX_BYTES / 1024 ** 2} MiB of text`));
    },
  });
}

type OnRow = (row: unknown) => void;

/** JSONL's lines as rows; a line too long or not JSON is skipped. */
function jsonlSink(onRow: OnRow, limits: Limits) {
  const parse = (line: string) => {
    if (line.trim() === "") return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      limits.skipped++;
      return;
    }
    onRow(row);
  };
  return async (source: AsyncIterable<Buffer>): Promise<void> => {
    // A character split between two chunks stays whole.
    const decoder = new StringDecoder("utf8");
    let pending = "";
    let tooLong = false;
    for await (const chunk of source) {
      const parts = (pending + decoder.write(chunk)).split("\n");
      pending = parts.pop() ?? "";
      for (const line of parts) {
        if (tooLong) limits.skipped++;
        else parse(line);
        tooLong = false;
      }
      if (pending.length > MAX_LINE_CHARS) [pending, tooLong] = ["", true];
    }
    if (tooLong) limits.skipped++;
    else parse(pending + decoder.end());
  };
}

function csvSink(onRow: OnRow) {
  return async (rows: AsyncIterable<unknown>): Promise<void> => {
    for await (const row of rows) onRow(row);
  };
}

/** The reading's stages: the file, gunzip, the byte cap, the CSV parser, the rows' sink. */
async function readRows(path: string, limits: Limits, onRow: OnRow): Promise<void> {
  // Opened first, then checked: a FIFO does not block the open, a link is not followed.
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  const stats = await handle.stat();
  if (!stats.isFile()) {
    await handle.close();
    throw new Error("it is not a regular file");
  }
  const signal = AbortSignal.timeout(MAX_READ_MS);
  const file = handle.createReadStream();
  const unzip = path.endsWith(".gz") ? createGunzip() : new PassThrough();
  const cap = byteCap(limits);
  if (/\.csv(\.gz)?$/.test(path)) {
    const parser = csvStream({
      columns: true,
      relax_column_count: true,
      skip_records_with_error: true,
      max_record_size: MAX_LINE_CHARS,
    });
    parser.on("skip", (error: { code?: string }) => {
      limits.skipped++;
      if (error.code === "CSV_MAX_RECORD_SIZE" || error.code === "CSV_QUOTE_NOT_CLOSED")
        limits.cut ??= `stopped at a record it could not end (${error.code}): the rest of the file is not read`;
    });
    await pipeline(file, unzip, cap, parser, csvSink(onRow), { signal });
  } else await pipeline(file, unzip, cap, jsonlSink(onRow, limits), { signal });
}

/** Why reading ended early, in words; null: it read the whole file. */
function stopReason(error: unknown): string {
  if (error instanceof LimitReached) return error.message;
  if (error instanceof Error && error.name === "TimeoutError")
    return `stopped after ${MAX_READ_MS / 1000} s of reading`;
  return `the file could not be read: ${errorMessage(error)}`;
}

/**
 * Samples a requests file; `pairsOnly`: only the pairs' kept attempts (a
 * gate's file also holds sweep points, surge trials, re-runs). A file that
 * cannot be read, or not whole, is a sample of what was read and why it stopped.
 */
export async function sampleRequests(
  path: string,
  options: { perSeries?: number; pairsOnly?: boolean } = {},
): Promise<RequestSample> {
  const perSeries = options.perSeries ?? 1500;
  const reservoirs = new Reservoirs(perSeries, options.pairsOnly ?? false);
  const limits = new Limits();
  const onRow = (row: unknown) => {
    if (++limits.lines > MAX_LINES)
      throw new LimitReached(`stopped after ${MAX_LINES.toLocaleString("en-US")} lines`);
    const point = requestPoint(row);
    if (point) reservoirs.add(point);
    else limits.skipped++;
  };
  let stopped: string | null = null;
  try {
    await readRows(path, limits, onRow);
  } catch (error) {
    stopped = stopReason(error);
  }
  stopped ??= limits.cut;
  return {
    source: path.split("/").at(-1) ?? path,
    perSeries,
    ...reservoirs.result(),
    skipped: limits.skipped,
    stopped,
  };
}
