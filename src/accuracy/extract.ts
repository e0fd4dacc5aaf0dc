// The answer in a model's reply, and whether it is right. Deterministic and
// documented (docs/accuracy.md), so that both arms are read the same way:
//
// 1. The final answer is the text after the last answer marker — "Answer:",
//    "Final answer:", "the answer is", "####" — up to the end of its line, or
//    the inside of the last \boxed{…}; without a marker, the last non-empty
//    line. Markdown emphasis, code ticks and a trailing period are dropped.
// 2. By the item's match: numeric — the last number of the final answer
//    (else of the whole reply), with thousands separators (1,234 1_234),
//    decimals, a sign, a fraction (3/4), currency and units around it;
//    choice — the letter chosen ("(B)", "B)", "B.", "option B", a lone "B",
//    or the text of exactly one option); exact — the final answer normalized
//    (case, spaces, quotes, markup); regex — the pattern found in the final
//    answer (else the reply), case-insensitive, in linear time (RE2);
//    json_path — the first JSON object of the reply (code fences allowed),
//    each path's value equal (strings compared trimmed and case-insensitive,
//    numbers within 1e-9).
//
// Only the reply's last 8,000 characters are read: an answer is at its end.

import { isRecord } from "../common/arrays.ts";
import { compilePattern } from "../common/pattern.ts";
import { type AccuracyItem, CHOICE_LETTERS } from "./items.ts";

/** What an item's reply was read as, and whether that is the item's answer. */
export interface Scored {
  /** The answer read (a number, a letter, normalized text, JSON), "" when none was found. */
  answer: string;
  correct: boolean;
}

const TAIL_CHARS = 8000;
const MARKERS = /\b(?:final answer(?:\s+is)?\s*[:=]?|answer\s+is\s*[:=]?|answer\s*[:=])|####/gi;

const unmarked = (text: string): string =>
  text
    .replace(/\*\*|__|`/g, "")
    .trim()
    .replace(/[.。]+$/, "")
    .trim();

/** The final answer: after the last marker (to the end of its line), the last \boxed{}, or the last line. */
export function finalAnswer(reply: string): string {
  const text = reply.slice(-TAIL_CHARS);
  const boxed = [...text.matchAll(/\\boxed\{([^{}]*)\}/g)].at(-1);
  let last: RegExpExecArray | undefined;
  for (const m of text.matchAll(MARKERS)) last = m;
  if (last && (!boxed || last.index > (boxed.index ?? 0))) {
    const rest = text.slice(last.index + last[0].length).replace(/^\s*\n/, "");
    const line = rest.split("\n")[0] ?? "";
    if (line.trim() !== "") return unmarked(line);
  }
  if (boxed) return unmarked(boxed[1] ?? "");
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  return unmarked(lines.at(-1) ?? "");
}

const NUMBER =
  /[-−+]?(?:\d{1,3}(?:[,_\u202f\u00a0]\d{3})+|\d+)(?:\.\d+)?(?:\s*\/\s*\d+(?:\.\d+)?)?|[-−+]?\.\d+/g;

/** The value of a number as written: separators dropped, a fraction divided, − as minus. */
function numberValue(written: string): number {
  const plain = written.replace(/[,_\u202f\u00a0\s]/g, "").replace("−", "-");
  const [top, bottom] = plain.split("/");
  const value = Number(top);
  return bottom === undefined ? value : value / Number(bottom);
}

/** The last number written in the text, or null. */
export function lastNumber(text: string): number | null {
  const found = [...text.matchAll(NUMBER)].at(-1);
  if (!found) return null;
  const value = numberValue(found[0]);
  return Number.isFinite(value) ? value : null;
}

/** A number as the report shows it: up to 6 decimals, no trailing zeros. */
const shownNumber = (x: number): string => String(Number(x.toFixed(6)));

/** Text compared as exact answers are: lower case, quotes and markup dropped, spaces folded. */
export function normalized(text: string): string {
  return unmarked(text)
    .toLowerCase()
    .replace(/["'“”‘’]/g, "")
    .replace(/\s*,\s*/g, ", ")
    .replace(/\s+/g, " ")
    .trim();
}

/** The letter chosen in the final answer, or "" when none can be told. */
export function chosenLetter(final: string, letters: string, choices: readonly string[]): string {
  const allowed = `[${letters}]`;
  const patterns = [
    // "B)", "(B)"; "B", "B.", "B: …", "B - …" — not "A cat" (a letter, then a word).
    new RegExp(`^\\(?(${allowed})\\)`),
    new RegExp(`^(${allowed})(?:[.:\\]]|\\s*$|\\s+[-–—:(])`),
    new RegExp(`\\((${allowed})\\)`),
    new RegExp(`\\b(?:[Oo]ption|[Cc]hoice|[Ll]etter)\\s+\\(?(${allowed})\\b`),
  ];
  for (const p of patterns) {
    const m = final.match(p);
    if (m?.[1]) return m[1];
  }
  const text = normalized(final);
  const named = choices.flatMap((c, i) =>
    c.trim() !== "" && text.includes(normalized(c)) ? [letters[i] ?? ""] : [],
  );
  if (named.length === 1) return named[0] ?? "";
  // A lone capital among the letters — but "A" and "I" before a word are an article and a pronoun.
  for (const m of final.matchAll(new RegExp(`(?:^|[^A-Za-z])(${allowed})(?![A-Za-z])`, "g"))) {
    const letter = m[1] ?? "";
    const after = final.slice((m.index ?? 0) + m[0].length);
    if (!((letter === "A" || letter === "I") && /^\s+[a-z]/.test(after))) return letter;
  }
  return "";
}

/** Opening braces tried, at most: each try scans to its closing brace (a reply of braces is no quadratic stall). */
const MAX_OBJECT_STARTS = 50;

/** The first JSON object in the reply (code fences allowed), or undefined. */
export function firstJsonObject(reply: string): Record<string, unknown> | undefined {
  const text = reply.slice(0, 64 * 1024);
  let tries = 0;
  for (
    let start = text.indexOf("{");
    start >= 0 && tries++ < MAX_OBJECT_STARTS;
    start = text.indexOf("{", start + 1)
  ) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const ch = text[i];
      if (inString) {
        if (ch === "\\") i++;
        else if (ch === '"') inString = false;
      } else if (ch === '"') inString = true;
      else if (ch === "{") depth++;
      else if (ch === "}" && --depth === 0) {
        try {
          const value: unknown = JSON.parse(text.slice(start, i + 1));
          if (isRecord(value)) return value;
        } catch {
          // not JSON from here: try the next brace
        }
        break;
      }
    }
  }
  return undefined;
}

/** A path's steps: "$.a.b[0]" → ["a", "b", 0]; null when it is not such a path. */
export function pathSteps(path: string): (string | number)[] | null {
  if (!path.startsWith("$")) return null;
  const steps: (string | number)[] = [];
  const re = /\.([A-Za-z_][\w-]*)|\[(\d+)\]|\["([^"]*)"\]/gy;
  re.lastIndex = 1;
  while (re.lastIndex < path.length) {
    const m = re.exec(path);
    if (!m) return null;
    steps.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : (m[3] ?? "")));
  }
  return steps;
}

function valueAt(value: unknown, steps: readonly (string | number)[]): unknown {
  let v = value;
  for (const s of steps) {
    if (typeof s === "number") v = Array.isArray(v) ? v[s] : undefined;
    else v = isRecord(v) ? v[s] : undefined;
  }
  return v;
}

/** Two JSON values equal as json_path compares them. */
export function sameValue(expected: unknown, got: unknown): boolean {
  if (typeof expected === "number")
    return typeof got === "number" ? Math.abs(expected - got) <= 1e-9 : got === String(expected);
  if (typeof expected === "string")
    return (
      (typeof got === "string" || typeof got === "number") &&
      normalized(String(got)) === normalized(expected)
    );
  return JSON.stringify(expected) === JSON.stringify(got);
}

/** The item's reply read by its match, and whether it is the answer. */
export function scoreReply(item: AccuracyItem, reply: string): Scored {
  const final = finalAnswer(reply);
  const m = item.match;
  switch (m.kind) {
    case "numeric": {
      const x = lastNumber(final) ?? lastNumber(reply.slice(-TAIL_CHARS));
      if (x === null) return { answer: "", correct: false };
      return { answer: shownNumber(x), correct: Math.abs(x - Number(item.answer)) <= m.tolerance };
    }
    case "choice": {
      const letters =
        m.choices.length > 0 ? CHOICE_LETTERS.slice(0, m.choices.length) : CHOICE_LETTERS;
      const letter = chosenLetter(final, letters, m.choices);
      return {
        answer: letter,
        correct: letter !== "" && letter === String(item.answer).toUpperCase(),
      };
    }
    case "exact": {
      const answer = normalized(final);
      return { answer, correct: answer === normalized(String(item.answer)) };
    }
    case "regex": {
      const pattern = compilePattern(String(item.answer), "i");
      const inFinal = pattern.test(final);
      return {
        answer: final.slice(0, 200),
        correct: inFinal || pattern.test(reply.slice(-TAIL_CHARS)),
      };
    }
    case "json_path": {
      const object = firstJsonObject(reply.replace(/```(?:json)?/g, ""));
      const expected = isRecord(item.answer) ? item.answer : {};
      if (!object) return { answer: "", correct: false };
      const picked = Object.fromEntries(
        Object.keys(expected).map((p) => [p, valueAt(object, pathSteps(p) ?? [])]),
      );
      const correct = Object.entries(expected).every(([p, v]) => sameValue(v, picked[p]));
      return { answer: JSON.stringify(picked).slice(0, 400), correct };
    }
  }
}
