// Prompt files: JSONL of {messages, max_tokens?} (one request per line) or
// ShareGPT JSON (an array of {conversations: [{from, value}, ...]}: the first
// human turn is the prompt, the following model turn's length the output length;
// the later human turns, with their replies' lengths, are a session's later turns).

import { isRecord } from "../common/arrays.ts";
import { errorMessage, InputError } from "../common/errors.ts";
import { linesOf } from "../common/lines.ts";
import type { ChatMessage } from "../openai/target.ts";

export interface DatasetEntry {
  messages: ChatMessage[];
  /** Requested output tokens, when the file says. */
  maxTokens: number | undefined;
  /** A conversation's later user turns (ShareGPT), for multi-turn sessions; [] for JSONL. */
  later: { user: string; maxTokens: number | undefined }[];
}

/** ~4 characters per token: the estimate used wherever no tokenizer is at hand. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function fail(source: string, where: string, problem: string): never {
  throw new InputError(`${source}: ${where}: ${problem}`);
}

function checkMessages(value: unknown, source: string, where: string): ChatMessage[] {
  if (!Array.isArray(value) || value.length === 0) {
    fail(source, where, "`messages` must be a non-empty array of {role, content}");
  }
  return value.map((m, i) => {
    if (
      typeof m !== "object" ||
      m === null ||
      typeof m.role !== "string" ||
      typeof m.content !== "string"
    ) {
      fail(
        source,
        `${where}, messages[${i}]`,
        "each message needs a string role and a string content",
      );
    }
    return { role: m.role, content: m.content };
  });
}

function parseJsonl(text: string, source: string): DatasetEntry[] {
  const entries: DatasetEntry[] = [];
  for (const { line, number } of linesOf(text)) {
    if (line.trim() === "") continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (error) {
      fail(source, `line ${number}`, `not JSON (${errorMessage(error)})`);
    }
    if (!isRecord(row)) return fail(source, `line ${number}`, "expected a JSON object");
    const { messages, max_tokens: maxTokens } = row;
    if (
      maxTokens !== undefined &&
      !(typeof maxTokens === "number" && Number.isInteger(maxTokens) && maxTokens >= 1)
    ) {
      fail(
        source,
        `line ${number}`,
        `max_tokens = ${JSON.stringify(maxTokens)}; expected an integer ≥ 1`,
      );
    }
    entries.push({
      messages: checkMessages(messages, source, `line ${number}`),
      maxTokens: typeof maxTokens === "number" ? maxTokens : undefined,
      later: [],
    });
  }
  return entries;
}

function parseShareGpt(rows: unknown[], source: string): DatasetEntry[] {
  const entries: DatasetEntry[] = [];
  for (const row of rows) {
    const turns = isRecord(row) ? row.conversations : undefined;
    if (!Array.isArray(turns)) continue;
    const first = turns.findIndex(
      (t) => ["human", "user"].includes(t?.from) && typeof t?.value === "string",
    );
    if (first < 0) continue;
    const replyLength = (k: number) =>
      typeof turns[k + 1]?.value === "string" ? estimateTokens(turns[k + 1].value) : undefined;
    const later: DatasetEntry["later"] = [];
    for (let k = first + 1; k < turns.length; k++) {
      const t = turns[k];
      if (["human", "user"].includes(t?.from) && typeof t?.value === "string")
        later.push({ user: t.value, maxTokens: replyLength(k) });
    }
    entries.push({
      messages: [{ role: "user", content: turns[first].value }],
      maxTokens: replyLength(first),
      later,
    });
  }
  if (entries.length === 0) {
    fail(
      source,
      "ShareGPT JSON",
      'no conversation with a human turn; expected [{conversations: [{from: "human", value}, …]}]',
    );
  }
  return entries;
}

/** Parses a prompt file's text; the format is told by its content. */
export function parseDataset(text: string, source: string): DatasetEntry[] {
  const trimmed = text.trimStart();
  let entries: DatasetEntry[];
  if (trimmed.startsWith("[")) {
    let rows: unknown;
    try {
      rows = JSON.parse(trimmed);
    } catch (error) {
      fail(source, "ShareGPT JSON", `not JSON (${errorMessage(error)})`);
    }
    entries = parseShareGpt(rows as unknown[], source);
  } else {
    entries = parseJsonl(text, source);
  }
  if (entries.length === 0) fail(source, "file", "holds no requests");
  return entries;
}
