// A quality check's regular expression, compiled once when the suite is read,
// and run on RE2's linear-time engine (re2js, pure JavaScript): the pattern is
// the suite author's, the text is the server's, and a backtracking engine
// lets the two together stall the run (`^(\w+\s?)*!$` on a 64-token answer).
// RE2 has no backreferences or lookaround; such a pattern is refused by name.

import { RE2JS } from "re2js";

export interface Pattern {
  test(text: string): boolean;
}

/** The suite's flags (JavaScript's letters) as RE2's; `u` is RE2's default. */
const FLAGS: Record<string, number> = {
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
  u: 0,
};

const compiled = new Map<string, Pattern>();

/** The pattern compiled (once per pattern and flags); throws on one RE2 cannot run. */
export function compilePattern(pattern: string, flags: string): Pattern {
  const key = `${flags}/${pattern}`;
  let p = compiled.get(key);
  if (!p) {
    const bits = [...flags].reduce((sum, f) => sum | (FLAGS[f] ?? 0), 0);
    p = RE2JS.compile(RE2JS.translateRegExp(pattern), bits);
    compiled.set(key, p);
  }
  return p;
}
