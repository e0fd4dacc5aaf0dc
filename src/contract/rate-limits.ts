// The contract item the load trials themselves give: a 429 or 503 tells the
// client when to come back (`retry-after`); without it clients hammer back at
// once. Read from the trials' failure examples (a few per class and trial).

import { type ContractItem, EVIDENCE_CHARS, item } from "./items.ts";

export interface FailureSample {
  status: number;
  headers: Record<string, string> | undefined;
  body: string | undefined;
}

/**
 * One item per status (429, 503): whether its answers said when to retry.
 * Which statuses come depends on the load, so each is judged on its own — a
 * regression needs the baseline's 429s to carry it and the candidate's not.
 */
export function retryAfterItems(samples: readonly FailureSample[]): ContractItem[] {
  return [429, 503].map((status) => {
    const id = `ratelimit.retry_after_${status}`;
    const seen = samples.filter((s) => s.status === status);
    if (seen.length === 0)
      return item(id, null, `no ${status} seen`, `the load trials got no ${status}`);
    const without = seen.filter((s) => s.headers?.["retry-after"] === undefined);
    const shown = without[0] ?? seen[0];
    const body = (shown?.body ?? "").replace(/\s+/g, " ").slice(0, EVIDENCE_CHARS);
    return item(
      id,
      without.length === 0,
      without.length === 0 ? "with retry-after" : "without retry-after",
      `${without.length} of ${seen.length} sampled ${status}s without retry-after: ${body}`,
    );
  });
}
