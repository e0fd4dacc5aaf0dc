// What a setting accepts, as data: the settings table holds one per setting,
// the parsers validate with it, and the help and the docs print it — so the
// bounds a user reads are the bounds a value is checked against.

import { rejectValue } from "../common/errors.ts";
import { parseRate, RATE_ACCEPTS } from "./rate.ts";
import { parseBoolean, parseDurationS, parseFraction, parseNumber } from "./values.ts";

export type Accepts =
  | { kind: "number"; min?: number; above?: number; max?: number; integer?: boolean }
  /** Seconds, written "30", "30s", "500ms", "2m" or "1h". */
  | { kind: "duration"; min?: number; above?: number; max?: number }
  /** "5%" or "0.05", at most max. */
  /** positive: 0 is refused (a resolution or an attainment of nothing means nothing). */
  | { kind: "fraction"; max: number; positive?: boolean }
  | { kind: "choice"; choices: readonly string[] }
  /** Several of the choices, comma- or space-separated. */
  | { kind: "list"; choices: readonly string[] }
  | { kind: "boolean" }
  /** Requests per second, or a shape of steps and ramps (rate.ts). */
  | { kind: "rate" }
  /** Anything else, checked where it is read; `what` says what is expected. */
  | { kind: "text"; what: string };

/** Seconds as a setting writes them: 0, 500ms, 30s, 2m, 1h. */
function unit(s: number): string {
  if (s === 0) return "0";
  if (s < 1) return `${Number((s * 1000).toPrecision(6))}ms`;
  return s % 3600 === 0 ? `${s / 3600}h` : s % 60 === 0 ? `${s / 60}m` : `${s}s`;
}

function rangeWords(a: { min?: number; above?: number; max?: number }, fmt: (v: number) => string) {
  const parts: string[] = [];
  if (a.above !== undefined) parts.push(`> ${fmt(a.above)}`);
  if (a.min !== undefined) parts.push(`≥ ${fmt(a.min)}`);
  if (a.max !== undefined) parts.push(`≤ ${fmt(a.max)}`);
  return parts.join(", ");
}

/** What is accepted, in a few words: "an integer ≥ 1, ≤ 100", "one of never, per-trial". */
export function describeAccepts(a: Accepts): string {
  switch (a.kind) {
    case "number": {
      const range = rangeWords(a, String);
      return `${a.integer ? "an integer" : "a number"}${range ? ` ${range}` : ""}`;
    }
    case "duration": {
      const range = rangeWords(a, unit);
      return `a duration (30s, 500ms, 2m)${range ? ` ${range}` : ""}`;
    }
    case "fraction":
      return `a percentage (5%) or fraction (0.05), ${a.positive ? "> 0 and " : ""}≤ ${Number((a.max * 100).toPrecision(6))}%`;
    case "choice":
      return `one of ${a.choices.join(", ")}`;
    case "list":
      return `comma-separated: ${a.choices.join(", ")}`;
    case "boolean":
      return "true or false";
    case "rate":
      return RATE_ACCEPTS;
    case "text":
      return a.what;
  }
}

/** The value parsed by its rule: a number, seconds, a fraction, a boolean or the text. */
export function parseAccepted(name: string, raw: string, a: Accepts): number | boolean | string {
  switch (a.kind) {
    case "number":
      return parseNumber(name, raw, a);
    case "duration":
      return parseDurationS(name, raw, a);
    case "fraction":
      return parseFraction(name, raw, a.max, a.positive);
    case "boolean":
      return parseBoolean(name, raw);
    case "choice": {
      const v = raw.trim();
      if (!a.choices.includes(v)) throw rejectValue(name, raw, describeAccepts(a));
      return v;
    }
    case "list": {
      const values = raw.split(/[\s,]+/).filter(Boolean);
      const bad = values.find((v) => !a.choices.includes(v));
      if (bad !== undefined) throw rejectValue(name, bad, `one of ${a.choices.join(", ")}`);
      return values.join(",");
    }
    case "rate":
      parseRate(name, raw);
      return raw.trim();
    case "text":
      return raw.trim();
  }
}
