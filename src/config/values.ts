// Parsers for single setting values. Each names the setting, the bad value
// and what is accepted when it rejects one.

import { InputError, rejectValue } from "../common/errors.ts";
import { hasUserinfo, httpUrl } from "../common/url.ts";
import { type LengthSpec, MAX_TOKENS } from "../workload/lengths.ts";

export { MAX_TOKENS };

export interface NumberRule {
  min?: number;
  max?: number;
  /** min excluded */
  above?: number;
  integer?: boolean;
}

function describe(rule: NumberRule): string {
  const kind = rule.integer ? "an integer" : "a number";
  const parts: string[] = [];
  if (rule.above !== undefined) parts.push(`> ${rule.above}`);
  if (rule.min !== undefined) parts.push(`≥ ${rule.min}`);
  if (rule.max !== undefined) parts.push(`≤ ${rule.max}`);
  return parts.length > 0 ? `${kind} ${parts.join(" and ")}` : kind;
}

/** Decimal notation only: Number() would also take "0x10", "1_000" is not a number, "" is 0. */
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

export function parseNumber(name: string, raw: string, rule: NumberRule = {}): number {
  const text = raw.trim();
  const value = DECIMAL.test(text) ? Number(text) : Number.NaN;
  const ok =
    Number.isFinite(value) &&
    (!rule.integer || Number.isInteger(value)) &&
    (rule.min === undefined || value >= rule.min) &&
    (rule.max === undefined || value <= rule.max) &&
    (rule.above === undefined || value > rule.above);
  if (!ok) throw rejectValue(name, raw, describe(rule));
  return value;
}

const DURATION_UNITS_S: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };

/** "30" (seconds), "30s", "500ms", "2m", "1h" → seconds. */
export function parseDurationS(
  name: string,
  raw: string,
  rule: { min?: number; above?: number; max?: number } = {},
): number {
  const m = raw.trim().match(/^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/);
  const seconds = m ? Number(m[1]) * (DURATION_UNITS_S[m[2] ?? "s"] as number) : Number.NaN;
  const ok =
    Number.isFinite(seconds) &&
    (rule.min === undefined || seconds >= rule.min) &&
    (rule.above === undefined || seconds > rule.above) &&
    (rule.max === undefined || seconds <= rule.max);
  if (!ok) {
    const lower =
      rule.above !== undefined
        ? ` > ${rule.above} s`
        : rule.min !== undefined
          ? ` ≥ ${rule.min} s`
          : "";
    const upper = rule.max !== undefined ? ` and ≤ ${formatSeconds(rule.max)}` : "";
    throw rejectValue(name, raw, `a duration such as 30, 30s, 500ms or 2m${lower}${upper}`);
  }
  return seconds;
}

export function parseChoice<T extends string>(name: string, raw: string, choices: readonly T[]): T {
  const value = raw.trim() as T;
  if (!choices.includes(value)) throw rejectValue(name, raw, `one of ${choices.join(", ")}`);
  return value;
}

export function parseBoolean(name: string, raw: string): boolean {
  const value = raw.trim().toLowerCase();
  if (["true", "yes", "1", "on"].includes(value)) return true;
  if (["false", "no", "0", "off", ""].includes(value)) return false;
  throw rejectValue(name, raw, "true or false");
}

export function parseJsonObject(name: string, raw: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw rejectValue(name, raw, "a JSON object");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw rejectValue(name, raw, "a JSON object");
  }
  return value as Record<string, unknown>;
}

/** "Name: value" lines (one per entry) → headers. */
export function parseHeaders(name: string, entries: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const entry of entries.flatMap((e) => e.split(/\r?\n/)).filter((e) => e.trim() !== "")) {
    const colon = entry.indexOf(":");
    const key = colon > 0 ? entry.slice(0, colon).trim() : "";
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(key)) {
      // The value may be a secret: show only the part before the colon.
      throw rejectValue(
        name,
        colon > 0 ? `${entry.slice(0, colon)}: …` : "(a line without a colon)",
        '"Name: value" lines',
      );
    }
    headers[key.toLowerCase()] = entry.slice(colon + 1).trim();
  }
  return headers;
}

/** "5%" or a fraction "0.05", at most max. */
export function parseFraction(name: string, raw: string, max = 1, positive = false): number {
  const t = raw.trim();
  const m = t.match(/^(\d+(?:\.\d+)?)\s*%$/);
  const v = m ? Number(m[1]) / 100 : /^\d+(\.\d+)?$/.test(t) ? Number(t) : Number.NaN;
  if (!(Number.isFinite(v) && (positive ? v > 0 : v >= 0) && v <= max)) {
    throw rejectValue(
      name,
      raw,
      `a percentage such as 5% or a fraction such as 0.05, ${positive ? "above 0 and " : ""}at most ${max * 100}%`,
    );
  }
  return v;
}

const formatSeconds = (s: number) => (s % 3600 === 0 ? `${s / 3600}h` : `${s} s`);

/** "512", "128..1024" (uniform, inclusive) or "normal:512,64", at most MAX_TOKENS. */
export function parseLengthSpec(name: string, raw: string): LengthSpec {
  const spec = parseLengthForm(name, raw);
  const largest =
    spec.kind === "fixed"
      ? spec.tokens
      : spec.kind === "uniform"
        ? spec.max
        : spec.mean + 4 * spec.sd;
  if (largest > MAX_TOKENS) {
    throw rejectValue(name, raw, `token counts up to ${MAX_TOKENS.toLocaleString("en-US")}`);
  }
  return spec;
}

function parseLengthForm(name: string, raw: string): LengthSpec {
  const t = raw.trim();
  if (/^\d+$/.test(t) && Number(t) >= 1) return { kind: "fixed", tokens: Number(t) };
  const range = t.match(/^(\d+)\s*\.\.\s*(\d+)$/);
  if (range && Number(range[1]) >= 1 && Number(range[1]) <= Number(range[2])) {
    return { kind: "uniform", min: Number(range[1]), max: Number(range[2]) };
  }
  const normal = t.match(/^normal:\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)$/);
  if (normal && Number(normal[1]) >= 1) {
    return { kind: "normal", mean: Number(normal[1]), sd: Number(normal[2]) };
  }
  throw rejectValue(
    name,
    raw,
    'a token count ("512"), an inclusive range ("128..1024") or "normal:MEAN,SD"',
  );
}

/** An OpenAI base URL (http or https, not an endpoint path, no credentials), without a trailing slash. */
export function parseBaseUrl(name: string, raw: string): string {
  // Before any message that quotes the value: credentials are never echoed.
  const refused = new InputError(
    `${name}: credentials in the URL are not accepted (the URL is not shown); use api-key`,
  );
  if (hasUserinfo(raw)) throw refused;
  const url = httpUrl(raw.trim());
  if (!url) throw rejectValue(name, raw, "an http(s) base URL such as http://127.0.0.1:8000/v1");
  if (url.username || url.password) throw refused;
  if (/\/(chat\/)?completions\/?$/.test(url.pathname)) {
    throw rejectValue(
      name,
      raw,
      "the OpenAI base URL (ending in /v1), not an endpoint path; the endpoint setting picks chat or completions",
    );
  }
  return url.toString().replace(/\/+$/, "");
}
