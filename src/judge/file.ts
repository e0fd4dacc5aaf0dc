// A user's open-ended items and labelled pairs: JSONL, one a line (blank
// lines and lines starting with # skipped), each validated against its
// shipped schema (schemas/judge-items.schema.json, judge-pairs.schema.json)
// before any request is sent. Every error names the setting, the file, the
// line and what is accepted.

import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import itemsSchema from "../../schemas/judge-items.schema.json" with { type: "json" };
import pairsSchema from "../../schemas/judge-pairs.schema.json" with { type: "json" };
import type { ChatMessage } from "../accuracy/items.ts";
import { InputError } from "../common/errors.ts";
import { describeSchemaError } from "../common/schema-errors.ts";
import type { CalibrationPair } from "./calibration.ts";
import type { JudgeItem, JudgeSuite } from "./items.ts";

/** An items file holds at most this many items; a calibration file this many pairs. */
export const MAX_ITEMS = 100_000;
export const MAX_PAIRS = 10_000;
const DEFAULT_MAX_TOKENS = 512;

interface Prompted {
  id?: string;
  prompt?: string;
  messages?: ChatMessage[];
  reference?: string;
  rubric?: string;
}

interface ItemLine extends Prompted {
  family?: string;
  max_tokens?: number;
}

interface PairLine extends Prompted {
  a: string;
  b: string;
  label: "a" | "b" | "tie";
}

const ajv = new Ajv2020({ allErrors: false, strict: false });
const validItem = ajv.compile<ItemLine>(itemsSchema);
const validPair = ajv.compile<PairLine>(pairsSchema);

/** Each JSON line of a file validated, with its line number and id; at most `most` of them. */
function jsonLines<T extends Prompted>(
  text: string,
  where: (line: number) => string,
  valid: ValidateFunction<T>,
  most: number,
  tooMany: string,
): { line: number; value: T }[] {
  const out: { line: number; value: T }[] = [];
  const seen = new Set<string>();
  for (const [i, raw] of text.split("\n").entries()) {
    const lineText = raw.trim();
    if (lineText === "" || lineText.startsWith("#")) continue;
    if (out.length >= most) throw new InputError(tooMany);
    let parsed: unknown;
    try {
      parsed = JSON.parse(lineText);
    } catch {
      throw new InputError(`${where(i + 1)} is not JSON; expected one JSON object per line`);
    }
    if (!valid(parsed))
      throw new InputError(`${where(i + 1)}: ${describeSchemaError(valid.errors, "(the line)")}`);
    if ((parsed.messages === undefined) === (parsed.prompt === undefined))
      throw new InputError(`${where(i + 1)}: a line has either messages or a prompt (one of them)`);
    const id = parsed.id ?? `line-${i + 1}`;
    if (seen.has(id))
      throw new InputError(`${where(i + 1)}: the id ${JSON.stringify(id)} is used twice`);
    seen.add(id);
    out.push({ line: i + 1, value: { ...parsed, id } });
  }
  return out;
}

const messagesOf = (line: Prompted): ChatMessage[] =>
  line.messages ?? [{ role: "user", content: line.prompt ?? "" }];

/** Parses an items file's text (already read through the bounded reader). */
export function parseJudgeItems(text: string, source: string): JudgeSuite {
  const lines = jsonLines(
    text,
    (n) => `judge ${source}: line ${n}`,
    validItem,
    MAX_ITEMS,
    `judge ${source} holds more than ${MAX_ITEMS} items (the most a file may hold)`,
  );
  if (lines.length === 0)
    throw new InputError(`judge ${source} holds no item; expected one JSON object per line`);
  const items: JudgeItem[] = lines.map(({ line, value }) => ({
    id: value.id ?? `line-${line}`,
    family: value.family ?? "items",
    messages: messagesOf(value),
    reference: value.reference ?? null,
    rubric: value.rubric ?? null,
    maxTokens: value.max_tokens ?? DEFAULT_MAX_TOKENS,
  }));
  return { name: source, items };
}

/** Parses a calibration file of labelled pairs (already read through the bounded reader). */
export function parseLabelledPairs(text: string, source: string): CalibrationPair[] {
  const lines = jsonLines(
    text,
    (n) => `judge-calibration ${source}: line ${n}`,
    validPair,
    MAX_PAIRS,
    `judge-calibration ${source} holds more than ${MAX_PAIRS} pairs (the most a file may hold)`,
  );
  if (lines.length === 0)
    throw new InputError(
      `judge-calibration ${source} holds no pair; expected one JSON object per line`,
    );
  return lines.map(({ line, value }) => ({
    id: `labelled-${value.id ?? `line-${line}`}`,
    kind: "labelled",
    messages: messagesOf(value),
    reference: value.reference ?? null,
    rubric: value.rubric ?? null,
    first: value.a,
    second: value.b,
    better: value.label === "a" ? "first" : value.label === "b" ? "second" : "tie",
  }));
}
