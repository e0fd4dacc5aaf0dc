// Public LLM serving traces, replayed: arrival times and token lengths (and,
// in Mooncake's, the prefix blocks requests share). Formats:
// - azure:    CSV `TIMESTAMP,ContextTokens,GeneratedTokens`, TIMESTAMP a
//             date-time ("2023-11-16 18:15:46.6805900", read as UTC)
// - mooncake: JSONL {"timestamp": ms, "input_length", "output_length",
//             "hash_ids": [...]}, each hash id one 512-token block
// - burstgpt: CSV `Timestamp,Model,Request tokens,Response tokens,…`,
//             Timestamp in seconds
// Times become offsets (ms) from the first row; a bad row is an error that
// names the file, the line and the field.

import { parse as parseCsv } from "csv-parse/sync";
import { at } from "../common/arrays.ts";
import { errorMessage, InputError } from "../common/errors.ts";
import { linesOf } from "../common/lines.ts";
import { MAX_TOKENS } from "./lengths.ts";

export const TRACE_FORMATS = ["azure", "mooncake", "burstgpt"] as const;
export type TraceFormat = (typeof TRACE_FORMATS)[number];

/** Tokens per Mooncake hash id. */
export const MOONCAKE_BLOCK_TOKENS = 512;

export interface TraceRow {
  /** From the trace's first row. */
  offsetMs: number;
  inputTokens: number;
  outputTokens: number;
  /** Mooncake: the prompt's blocks; equal ids are shared prefix blocks. */
  hashIds: number[] | undefined;
}

export interface Trace {
  name: string;
  format: TraceFormat;
  rows: TraceRow[];
}

function fail(name: string, line: number, problem: string): never {
  throw new InputError(`trace ${name}: line ${line}: ${problem}`);
}

/** Rows a trace may have: a trial's requests must fit in memory (the trial's own cap). */
export const MAX_TRACE_ROWS = 2_000_000;
const MAX_BLOCKS = Math.ceil(MAX_TOKENS / MOONCAKE_BLOCK_TOKENS);

function tooManyRows(name: string): never {
  throw new InputError(
    `trace ${name}: more than ${MAX_TRACE_ROWS.toLocaleString("en-US")} rows; expected at most that many (one trial's requests must fit in memory: cut the trace)`,
  );
}

function tokens(name: string, line: number, field: string, value: unknown): number {
  const n = typeof value === "number" ? value : Number(String(value ?? "").trim());
  if (String(value ?? "").trim() === "" || !Number.isInteger(n) || n < 0 || n > MAX_TOKENS)
    fail(
      name,
      line,
      `${field} = ${JSON.stringify(value ?? null)?.slice(0, 40)} is not accepted; expected a whole number of tokens from 0 to ${MAX_TOKENS.toLocaleString("en-US")}`,
    );
  return n;
}

/** The format a file's first line says it is in, or undefined. */
export function detectFormat(content: string): TraceFormat | undefined {
  const first = (content.split("\n", 1)[0] ?? "").trim();
  if (first.startsWith("{")) return "mooncake";
  const header = first.toLowerCase();
  if (header.includes("contexttokens") && header.includes("generatedtokens")) return "azure";
  if (header.includes("request tokens") && header.includes("response tokens")) return "burstgpt";
  return undefined;
}

// "2023-11-16 18:15:46.6805900": 7 fractional digits, which Date cannot read.
const AZURE_TIME = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d+))?$/;

function azureMs(name: string, line: number, value: string): number {
  const m = AZURE_TIME.exec(value.trim());
  const whole = m ? Date.parse(`${m[1]}T${m[2]}Z`) : Number.NaN;
  if (!m || Number.isNaN(whole))
    fail(
      name,
      line,
      `TIMESTAMP = ${JSON.stringify(value)} is not accepted; expected a date-time like 2023-11-16 18:15:46.6805900`,
    );
  return whole + Number(`0.${m[3] ?? "0"}`) * 1000;
}

function csvRows(
  content: string,
  name: string,
): { record: Record<string, string>; line: number }[] {
  try {
    return (
      // One record past the cap, so that a larger file is refused without parsing it all.
      (
        parseCsv(content, {
          columns: true,
          skip_empty_lines: true,
          trim: true,
          info: true,
          to: MAX_TRACE_ROWS + 1,
        }) as {
          record: Record<string, string>;
          info: { lines: number };
        }[]
      ).map((r) => ({ record: r.record, line: r.info.lines }))
    );
  } catch (error) {
    throw new InputError(`trace ${name}: not readable as CSV: ${errorMessage(error)}`);
  }
}

function column(record: Record<string, string>, wanted: string): string | undefined {
  const key = Object.keys(record).find((k) => k.toLowerCase() === wanted.toLowerCase());
  return key === undefined ? undefined : record[key];
}

function required(
  name: string,
  line: number,
  record: Record<string, string>,
  field: string,
): string {
  const v = column(record, field);
  if (v === undefined)
    fail(name, line, `no ${field} column (the header names ${Object.keys(record).join(", ")})`);
  return v;
}

type TimedRow = Omit<TraceRow, "offsetMs"> & { atMs: number; line: number };

/** A time beyond this is no trace's (1e13 ms: a Unix time in milliseconds, to the year 2286). */
const MAX_TIME_MS = 1e13;

/** A row's time: within the bound, and not before the row above it (a trace is replayed in its time order). */
function inOrder(
  rows: readonly TimedRow[],
  atMs: number,
  name: string,
  line: number,
  field: string,
) {
  if (atMs > MAX_TIME_MS)
    fail(
      name,
      line,
      `${field} is ${atMs} ms from zero, not accepted; expected at most ${MAX_TIME_MS} ms (a Unix time in milliseconds)`,
    );
  const previous = rows[rows.length - 1];
  if (previous && atMs < previous.atMs)
    fail(
      name,
      line,
      `${field} is ${(previous.atMs - atMs) / 1000} s before line ${previous.line}'s: a trace is replayed in its time order, not accepted out of it; expected the rows sorted by ${field}`,
    );
}

/** The CSV formats' columns: the arrival time, the prompt and the output tokens. */
const CSV_COLUMNS = {
  azure: { time: "TIMESTAMP", input: "ContextTokens", output: "GeneratedTokens" },
  burstgpt: { time: "Timestamp", input: "Request tokens", output: "Response tokens" },
} as const;

function parseRows(content: string, name: string, format: TraceFormat): TimedRow[] {
  const out: TimedRow[] = [];
  if (format === "mooncake") {
    for (const { line: text, number: line } of linesOf(content)) {
      if (text.trim() === "") continue;
      let row: Record<string, unknown>;
      try {
        row = JSON.parse(text);
      } catch {
        fail(name, line, "not a JSON object");
      }
      if (typeof row !== "object" || row === null || Array.isArray(row))
        fail(name, line, "not a JSON object");
      const at = row.timestamp;
      if (typeof at !== "number" || !Number.isFinite(at) || at < 0)
        fail(
          name,
          line,
          `timestamp = ${JSON.stringify(at ?? null)} is not accepted; expected milliseconds ≥ 0`,
        );
      const ids = row.hash_ids;
      if (
        ids !== undefined &&
        (!Array.isArray(ids) || ids.length > MAX_BLOCKS || !ids.every((h) => Number.isInteger(h)))
      )
        fail(
          name,
          line,
          `hash_ids = ${JSON.stringify(ids).slice(0, 80)} is not accepted; expected a list of at most ${MAX_BLOCKS.toLocaleString("en-US")} integers (${MAX_TOKENS.toLocaleString("en-US")} tokens in ${MOONCAKE_BLOCK_TOKENS}-token blocks)`,
        );
      if (out.length === MAX_TRACE_ROWS) tooManyRows(name);
      inOrder(out, at, name, line, "timestamp");
      out.push({
        line,
        atMs: at,
        inputTokens: tokens(name, line, "input_length", row.input_length),
        outputTokens: tokens(name, line, "output_length", row.output_length),
        hashIds: ids as number[] | undefined,
      });
    }
    return out;
  }
  const columns = CSV_COLUMNS[format];
  for (const { record, line } of csvRows(content, name)) {
    if (out.length === MAX_TRACE_ROWS) tooManyRows(name);
    const field = (f: string) => required(name, line, record, f);
    const time = field(columns.time);
    let atMs: number;
    if (format === "azure") atMs = azureMs(name, line, time);
    else {
      atMs = Number(time) * 1000;
      if (time === "" || !Number.isFinite(atMs) || atMs < 0)
        fail(
          name,
          line,
          `${columns.time} = ${JSON.stringify(time)} is not accepted; expected seconds ≥ 0`,
        );
    }
    inOrder(out, atMs, name, line, columns.time);
    out.push({
      line,
      atMs,
      inputTokens: tokens(name, line, columns.input, field(columns.input)),
      outputTokens: tokens(name, line, columns.output, field(columns.output)),
      hashIds: undefined,
    });
  }
  return out;
}

/** A trace file's rows, in time order, with offsets from its first row. */
export function parseTrace(content: string, name: string, format: TraceFormat | "auto"): Trace {
  const chosen = format === "auto" ? detectFormat(content) : format;
  if (!chosen)
    throw new InputError(
      `trace ${name}: its format is not recognised from its first line; set trace-format to one of ${TRACE_FORMATS.join(", ")}`,
    );
  const rows = parseRows(content, name, chosen);
  if (rows.length === 0) throw new InputError(`trace ${name}: no rows`);
  // In time order (each row checked against the one above it): offsets from the first.
  const t0 = at(rows, 0).atMs;
  return {
    name,
    format: chosen,
    rows: rows.map(({ atMs, line: _, ...r }) => ({ ...r, offsetMs: atMs - t0 })),
  };
}
