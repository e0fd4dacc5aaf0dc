// The lanes history: one JSON line per request of every burst, appended run
// after run (committed to a branch or kept as an artifact), and its CSV export.
// Rows hold lane names, never URLs' keys or the keys themselves.

import type { Outcome } from "../common/outcomes.ts";

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

/** Reads a history file's text; a bad line is an error naming the file and line. */
export function parseHistory(text: string, source: string): HistoryRow[] {
  const rows: HistoryRow[] = [];
  for (const [i, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw new Error(`history ${source}: line ${i + 1} is not JSON`);
    }
    if (typeof row !== "object" || row === null || (row as HistoryRow).schema !== HISTORY_SCHEMA)
      throw new Error(`history ${source}: line ${i + 1} is not a ${HISTORY_SCHEMA} row`);
    rows.push(row as HistoryRow);
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
