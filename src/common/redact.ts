// Secrets never leave the process: every string that is kept or printed —
// response bodies, server log tails, guards, headlines, log lines — has each
// known secret value replaced by "***".

export type Redact = (text: string) => string;

/** Shorter values would redact ordinary words; no real key is this short. */
const MIN_SECRET_CHARS = 4;

export function redactor(secrets: readonly (string | undefined)[]): Redact {
  const values = [...new Set(secrets)]
    .filter((s): s is string => typeof s === "string" && s.length >= MIN_SECRET_CHARS)
    // The longest first: a key that contains another is replaced whole.
    .sort((a, b) => b.length - a.length);
  if (values.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const v of values) if (out.includes(v)) out = out.split(v).join("***");
    return out;
  };
}

/** A copy of JSON-like data with every string redacted. */
export function redactDeep<T>(value: T, redact: Redact): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return redact(v);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === "object" && v !== null) {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [redact(k), walk(x)]));
    }
    return v;
  };
  return walk(value) as T;
}
