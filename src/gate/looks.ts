// The item suites' looks as a gate runs them (accuracy's, the judge's): the
// suite's items interleaved across its families, a block a look, each look
// judged on every item so far; the suite stops at the first look that
// decides, at the last, or when the items left cannot decide (said in the
// log and kept in the report).

import { interleaveFamilies, itemLooks } from "../accuracy/looks.ts";
import type { Arm } from "../common/arms.ts";

/** Where a report was judged: the items by each look, the look (0-based), why it stopped early. */
export interface LookAt {
  items: number[];
  at: number;
  futile: string | null;
}

/** The arms in look k's order, alternating (B C, C B, …): a server's drift falls on both. */
export const armsOfLook = (k: number): Arm[] =>
  k % 2 === 0 ? ["baseline", "candidate"] : ["candidate", "baseline"];

/** What a suite does at each look. */
export interface LookRun<T, R> {
  /** Answers (and judges) the look's block; the report on every item so far (null: cancelled). */
  look(block: readonly T[], asked: readonly T[], at: LookAt): Promise<R | null>;
  /** Why the items left cannot decide after this report, or null. */
  futile(report: R, looks: number[]): string | null;
}

/** Runs a suite look by look; the last report (null: cancelled, or no item). */
export async function runLooks<
  T extends { family: string },
  R extends { verdict: string; looks?: LookAt },
>(
  suite: string,
  all: readonly T[],
  firstLook: number,
  log: (line: string) => void,
  run: LookRun<T, R>,
): Promise<R | null> {
  const items = interleaveFamilies(all);
  const looks = itemLooks(firstLook, items.length);
  let report: R | null = null;
  for (let k = 0; k < looks.length; k++) {
    const from = looks[k - 1] ?? 0;
    if (looks.length > 1)
      log(`${suite}: look ${k + 1} of ${looks.length}: items ${from + 1}–${looks[k]}`);
    const at = { items: looks, at: k, futile: null };
    report = await run.look(items.slice(from, looks[k]), items.slice(0, looks[k]), at);
    if (report === null) return null;
    if (report.verdict !== "inconclusive" || k === looks.length - 1) break;
    const futile = run.futile(report, looks);
    if (futile) {
      log(`${suite}: stopped at ${looks[k]} items: ${futile}`);
      return { ...report, looks: { ...at, futile } };
    }
  }
  return report;
}
