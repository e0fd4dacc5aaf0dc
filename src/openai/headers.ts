// The response headers worth keeping, by name, each value cut to an excerpt:
// for a failure's evidence, a stream's rate limits, a contract probe.

import { excerpt } from "./response.ts";

const HEADER_CHARS = 200;

/** The headers whose lower-case names match, or undefined when none does (nothing allocated). */
export function keptHeaders(
  headers: Record<string, string | string[] | undefined>,
  kept: RegExp,
): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (kept.test(lower) && value !== undefined) {
      out ??= {};
      out[lower] = excerpt(Array.isArray(value) ? value.join(", ") : value, HEADER_CHARS);
    }
  }
  return out;
}
