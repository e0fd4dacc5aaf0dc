// The lanes history: one JSON line per request of every burst, appended run
// after run (committed to a branch or kept as an artifact), and its CSV export.
// Rows hold lane names, never URLs' keys or the keys themselves.

import { Ajv2020 } from "ajv/dist/2020.js";
import { nonFiniteReason } from "../common/finite.ts";
import { linesOf } from "../common/lines.ts";
import { OUTCOMES, type Outcome } from "../common/outcomes.ts";
import { describeSchemaError } from "../common/schema-errors.ts";

export const HISTORY_SCHEMA = "llm-perf-gate/lane-request@1";

export interface HistoryRow {
  schema: typeof HISTORY_SCHEMA;
  lane: string;
  /** The window ("HH:MM") the burst belongs to; null: none (run off schedule). */
  window: string | null;
  local_date: string;
  local_time: string;
  started_at: string;
  /** The request's place in its burst. */
  index: number;
  /** The final attempt's class. */
  outcome: Outcome;
  /** From the request's scheduled time, across all its attempts (ms); null unless ok. */
  ttft_ms: number | null;
  full_answer_ms: number | null;
  /** The floor the row was judged against. */
  floor: { latency: "ttft" | "full_answer"; ms: number };
  passed: boolean;
  attempts: number;
  /** The classes of the attempts that failed, the final one included when it failed. */
  failed_attempts: Outcome[];
}

export function toJsonl(rows: readonly HistoryRow[]): string {
  return rows.map((r) => `${JSON.stringify(r)}\n`).join("");
}

const ms = { type: ["number", "null"], minimum: 0 };
const outcome = { enum: [...OUTCOMES] };
/** A row as the burst writes it: a history edited by hand or another tool is read only when it keeps that shape. */
const ROW_PROPERTIES = {
  schema: { const: HISTORY_SCHEMA },
  lane: { type: "string", minLength: 1, maxLength: 200 },
  window: { type: ["string", "null"], maxLength: 5 },
  local_date: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" },
  local_time: { type: "string", maxLength: 8 },
  started_at: { type: "string", maxLength: 40 },
  index: { type: "integer", minimum: 0 },
  outcome,
  ttft_ms: ms,
  full_answer_ms: ms,
  floor: {
    type: "object",
    required: ["latency", "ms"],
    properties: {
      latency: { enum: ["ttft", "full_answer"] },
      ms: { type: "number", exclusiveMinimum: 0 },
    },
  },
  passed: { type: "boolean" },
  attempts: { type: "integer", minimum: 1 },
  failed_attempts: { type: "array", items: outcome },
};
const ROW_SCHEMA = {
  type: "object",
  required: Object.keys(ROW_PROPERTIES),
  properties: ROW_PROPERTIES,
};
const validateRow = new Ajv2020({ strict: false }).compile<HistoryRow>(ROW_SCHEMA);

/** Reads a history file's text; a bad line is an error naming the file, the line and the field. */
export function parseHistory(text: string, source: string): HistoryRow[] {
  const rows: HistoryRow[] = [];
  for (const { line, number } of linesOf(text)) {
    if (line.trim() === "") continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw new Error(`history ${source}: line ${number} is not JSON`);
    }
    const nonFinite = nonFiniteReason(row);
    if (nonFinite) throw new Error(`history ${source}: line ${number}: ${nonFinite}`);
    if (!validateRow(row))
      throw new Error(
        `history ${source}: line ${number} is not a ${HISTORY_SCHEMA} row: ${describeSchemaError(validateRow.errors, "the row")}`,
      );
    rows.push(row);
  }
  return rows;
}

const CSV_COLUMNS = [
  "lane",
  "window",
  "local_date",
  "local_time",
  "started_at",
  "index",
  "outcome",
  "ttft_ms",
  "full_answer_ms",
  "floor_ms",
  "passed",
  "attempts",
  "failed_attempts",
] as const;

export function toCsv(rows: readonly HistoryRow[]): string {
  const cell = (v: unknown) => {
    const s = v === null || v === undefined ? "" : String(v);
    return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const line = (r: HistoryRow) =>
    [
      r.lane,
      r.window,
      r.local_date,
      r.local_time,
      r.started_at,
      r.index,
      r.outcome,
      r.ttft_ms,
      r.full_answer_ms,
      r.floor.ms,
      r.passed,
      r.attempts,
      r.failed_attempts.join(" "),
    ]
      .map(cell)
      .join(",");
  return `${CSV_COLUMNS.join(",")}\n${rows.map(line).join("\n")}${rows.length > 0 ? "\n" : ""}`;
}
