// A user's accuracy items: JSONL, one item a line (blank lines and lines
// starting with # skipped), each validated against the shipped schema
// (schemas/accuracy-items.schema.json) before any request is sent. Every
// error names the file, the line and what is accepted.
//
// Public formats convert in one line (docs/accuracy.md): GSM8K's answer
// "…#### 72" is read as a numeric answer by the reply's own extractor, and a
// multiple-choice item's `answer` may be the option's index or its letter.

import { Ajv2020 } from "ajv/dist/2020.js";
import schema from "../../schemas/accuracy-items.schema.json" with { type: "json" };
import { InputError } from "../common/errors.ts";
import { compilePattern } from "../common/pattern.ts";
import { describeSchemaError } from "../common/schema-errors.ts";
import { finalAnswer, lastNumber, pathSteps } from "./extract.ts";
import {
  type AccuracyItem,
  type AccuracySuite,
  CHOICE_LETTERS,
  type ChatMessage,
  type Match,
  type MatchKind,
} from "./items.ts";
import { ANSWER_LINE } from "./tasks/shared.ts";

/** An items file holds at most this many items. */
export const MAX_ITEMS = 100_000;
const DEFAULT_MAX_TOKENS = 512;

interface ItemLine {
  id?: string;
  family?: string;
  prompt?: string;
  messages?: ChatMessage[];
  choices?: string[];
  answer: string | number | Record<string, unknown>;
  match?: MatchKind;
  tolerance?: number;
  max_tokens?: number;
}

const validate = new Ajv2020({ allErrors: false, strict: false }).compile<ItemLine>(schema);

/** The match the line asks for, or the one its answer implies. */
function matchKindOf(line: ItemLine): MatchKind {
  if (line.match) return line.match;
  if (line.choices) return "choice";
  if (typeof line.answer === "number") return "numeric";
  if (typeof line.answer === "object") return "json_path";
  return "exact";
}

/** The item's answer in its match's terms; refused, naming the line (`where`), when it has none. */
function answerOf(line: ItemLine, kind: MatchKind, where: string): AccuracyItem["answer"] {
  const a = line.answer;
  const refuse = (why: string): never => {
    throw new InputError(`${where}: ${why}`);
  };
  switch (kind) {
    case "numeric": {
      // "…#### 72", "1,234", "3/4": read as a reply would be.
      const x =
        typeof a === "number" ? a : typeof a === "string" ? lastNumber(finalAnswer(a)) : null;
      return x === null ? refuse("a numeric match needs a number (or text ending in one)") : x;
    }
    case "choice": {
      const n = line.choices?.length ?? CHOICE_LETTERS.length;
      const letters = CHOICE_LETTERS.slice(0, n);
      const letter =
        typeof a === "number" && Number.isInteger(a) && a >= 0 && a < n
          ? letters[a]
          : typeof a === "string" &&
              a.trim().length === 1 &&
              letters.includes(a.trim().toUpperCase())
            ? a.trim().toUpperCase()
            : undefined;
      return (
        letter ?? refuse(`a choice answer is an option's index (0–${n - 1}) or letter (${letters})`)
      );
    }
    case "json_path": {
      if (typeof a !== "object") return refuse("a json_path answer is an object of path → value");
      const bad = Object.keys(a).find((p) => pathSteps(p) === null);
      return bad === undefined
        ? a
        : refuse(`${JSON.stringify(bad)} is not a path such as $.a.b[0]`);
    }
    case "regex": {
      if (typeof a !== "string") return refuse("a regex answer is a pattern");
      try {
        compilePattern(a, "i");
        return a;
      } catch (e) {
        return refuse(
          `the pattern cannot run on RE2 (${e instanceof Error ? e.message : String(e)})`,
        );
      }
    }
    case "exact":
      return typeof a === "string"
        ? a
        : typeof a === "number"
          ? String(a)
          : refuse("an exact answer is text");
  }
}

function matchOf(line: ItemLine, kind: MatchKind): Match {
  switch (kind) {
    case "numeric":
      return { kind, tolerance: line.tolerance ?? 1e-6 };
    case "choice":
      return { kind, choices: line.choices ?? [] };
    default:
      return { kind };
  }
}

/** The messages sent: the line's own, or its prompt with the options and the answer-line instruction. */
function messagesOf(line: ItemLine): ChatMessage[] {
  if (line.messages) return line.messages;
  const options = (line.choices ?? []).map((c, i) => `${CHOICE_LETTERS[i]}) ${c}`).join("\n");
  const ask = line.choices
    ? "Give the letter of the right option on the last line as: Answer: <letter>"
    : ANSWER_LINE;
  const content = [line.prompt ?? "", options, ask].filter((x) => x !== "").join("\n");
  return [{ role: "user", content }];
}

/** Parses an items file's text (already read through the bounded reader). */
export function parseAccuracyItems(text: string, source: string): AccuracySuite {
  const where = (n: number) => `accuracy ${source}: line ${n}`;
  const items: AccuracyItem[] = [];
  const seen = new Set<string>();
  for (const [i, raw] of text.split("\n").entries()) {
    const lineText = raw.trim();
    if (lineText === "" || lineText.startsWith("#")) continue;
    if (items.length >= MAX_ITEMS)
      throw new InputError(
        `accuracy ${source} holds more than ${MAX_ITEMS} items (the most a file may hold)`,
      );
    let parsed: unknown;
    try {
      parsed = JSON.parse(lineText);
    } catch {
      throw new InputError(`${where(i + 1)} is not JSON; expected one JSON object per line`);
    }
    if (!validate(parsed))
      throw new InputError(
        `${where(i + 1)}: ${describeSchemaError(validate.errors, "(the item)")}`,
      );
    if ((parsed.messages === undefined) === (parsed.prompt === undefined))
      throw new InputError(
        `${where(i + 1)}: an item has either messages or a prompt (one of them)`,
      );
    const kind = matchKindOf(parsed);
    const answer = answerOf(parsed, kind, where(i + 1));
    const id = parsed.id ?? `line-${i + 1}`;
    if (seen.has(id))
      throw new InputError(`${where(i + 1)}: the id ${JSON.stringify(id)} is used twice`);
    seen.add(id);
    items.push({
      id,
      family: parsed.family ?? "items",
      messages: messagesOf(parsed),
      answer,
      match: matchOf(parsed, kind),
      maxTokens: parsed.max_tokens ?? DEFAULT_MAX_TOKENS,
    });
  }
  if (items.length === 0)
    throw new InputError(`accuracy ${source} holds no item; expected one JSON object per line`);
  return { name: source, items };
}
