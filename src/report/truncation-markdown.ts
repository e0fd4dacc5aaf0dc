// The truncation section of the comment: per arm, the requests that ended
// stop under load replayed at idle — how many said materially more at idle
// (cut short by load), how many idle answers differed anyway (the floor) —
// and the comparison's words.

import type { Arm } from "../common/arms.ts";
import { percent } from "../common/format.ts";
import type { GateResults } from "../results/model.ts";
import type { ArmTruncation, TruncationReport } from "../stress/truncation.ts";

const VERDICT_WORDS = { pass: "pass", fail: "**fail**", inconclusive: "inconclusive" } as const;

const row = (arm: Arm, a: ArmTruncation) =>
  `| ${arm} | ${a.replayed} | ${a.truncated} (${percent(a.rate)}) | ${a.differs_at_idle} (${percent(a.floor)}) | ${percent(a.net)} | ${a.failed} |`;

export function truncation(r: GateResults): string {
  const t = r.truncation;
  if (!t)
    return r.truncation_skipped ? `### Answers cut short by load\n\n${r.truncation_skipped}` : "";
  return [
    `### Answers cut short by load — ${VERDICT_WORDS[t.verdict]}`,
    "",
    "Requests that ended `stop` under load, replayed one at a time at idle (temperature 0, the same prompt and seed), twice:",
    "",
    "| | replayed | longer at idle (cut short under load) | idle answers differing (floor) | net | replays failed |",
    "|---|---|---|---|---|---|",
    row("baseline", t.arms.baseline),
    row("candidate", t.arms.candidate),
    "",
    t.reason,
  ].join("\n");
}

/** The headline's words when it failed. */
export function truncationSentence(t: TruncationReport): string {
  const [b, c] = [t.arms.baseline, t.arms.candidate];
  return `the candidate cut ${c.truncated} of ${c.replayed} answers short under load (a stop, materially shorter than at idle) vs ${b.truncated} of ${b.replayed} on the baseline`;
}
