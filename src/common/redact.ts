// Secrets never leave the process: every string that is kept or printed —
// response bodies, server log tails, guards, headlines, log lines — has each
// known secret value replaced by "***", and so has anything shaped like a
// credential (a provider's key, a bearer token, a URL's user:password@),
// wherever a user put it (a model name, a header, a dataset path).

export type Redact = (text: string) => string;

/** Shorter values would redact ordinary words; no real key is this short. */
const MIN_SECRET_CHARS = 4;

/** Shapes of credentials, masked wherever they appear (no 40-character rule: commit SHAs are not secrets). */
const KEY_SHAPED =
  /\b(?:sk|pk|rk|hf|ghp|gho|ghs|ghu|github_pat|xox[abpr]|glpat)[-_][A-Za-z0-9_-]{6,}|\bAKIA[A-Z0-9]{12,}/g;
const TOKEN_SHAPED = /\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi;
const USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^/?#\s@]+@/gi;

function maskShapes(text: string): string {
  return text
    .replace(KEY_SHAPED, "***")
    .replace(TOKEN_SHAPED, "$1 ***")
    .replace(USERINFO, "$1***@");
}

export function redactor(secrets: readonly (string | undefined)[]): Redact {
  const values = [...new Set(secrets)]
    .filter((s): s is string => typeof s === "string" && s.length >= MIN_SECRET_CHARS)
    // The longest first: a key that contains another is replaced whole.
    .sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const v of values) if (out.includes(v)) out = out.split(v).join("***");
    return maskShapes(out);
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
