// Numbers that are not finite — YAML's .inf and .nan, JSON's 1e999 — parse
// without complaint and turn into null when written back: a file holding one
// would poison what is made from it (a history whose later reports refuse
// it). Refused wherever a parsed file's numbers are read.

/** The first number in a parsed value that is not finite, with its path (floor.ms, lanes[0].x), or null. */
export function nonFiniteIn(value: unknown): { path: string; value: number } | null {
  // An explicit stack: a hostile file may nest deeper than the call stack goes.
  const stack: { at: string; v: unknown }[] = [{ at: "", v: value }];
  // YAML aliases can make a value its own member: each object is walked once.
  const seen = new WeakSet<object>();
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { at, v } = next;
    if (typeof v === "object" && v !== null) {
      if (seen.has(v)) continue;
      seen.add(v);
    }
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return { path: at || "the value", value: v };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ at: `${at}[${i}]`, v: v[i] });
    } else if (typeof v === "object" && v !== null) {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, x] = entries[i] ?? ["", undefined];
        stack.push({ at: at ? `${at}.${k}` : k, v: x });
      }
    }
  }
  return null;
}

/** Why a parsed file is refused for a number that is not finite, or null when all are. */
export function nonFiniteReason(value: unknown): string | null {
  const found = nonFiniteIn(value);
  return found
    ? `${found.path} = ${found.value} is not a finite number; expected a finite number`
    : null;
}
