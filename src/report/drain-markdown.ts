// The drain section of the comment: each server's stop with long streams in
// flight — how many it completed and cut (by class), how its process ended —
// and what the comparison found.

import type { Arm } from "../common/arms.ts";
import type { Outcome } from "../common/outcomes.ts";
import type { DrainReport } from "../gate/drain.ts";
import type { GateResults } from "../results/model.ts";
import type { DrainProbe } from "../servers/drain.ts";
import { cellText } from "./blocks.ts";

const cell = (text: string) => cellText(text, 300);

const VERDICT_WORDS = { pass: "pass", fail: "**fail**", inconclusive: "inconclusive" } as const;

function row(arm: Arm, p: DrainProbe): string {
  const inFlight = p.streams.filter((s) => s.in_flight);
  // A timeout is the probe's own limit, not the stop's doing (servers/drain.ts wasCut).
  const cut = inFlight.filter((s) => s.outcome !== "ok" && s.outcome !== "censored");
  const classes = new Map<Outcome, number>();
  for (const s of cut) classes.set(s.outcome, (classes.get(s.outcome) ?? 0) + 1);
  const by = [...classes].map(([o, n]) => `${o} ${n}`).join(", ");
  const ended = `${cell(p.exit)} after ${p.seconds} s${p.clean ? "" : " — not a clean stop"}`;
  return `| ${arm} | ${inFlight.length} | ${inFlight.length - cut.length} | ${cut.length}${by ? ` (${by})` : ""} | ${ended} |`;
}

export function drain(r: GateResults): string {
  const d = r.drain;
  if (!d) return r.drain_skipped ? `### Drain\n\n${r.drain_skipped}` : "";
  return [
    `### Drain: stopping each server with streams in flight — ${VERDICT_WORDS[d.verdict]}`,
    "",
    "| | streams in flight | completed | cut | how the process ended |",
    "|---|---|---|---|---|",
    row("baseline", d.baseline),
    row("candidate", d.candidate),
    ...(d.findings.length > 0 ? ["", ...d.findings.map((f) => `- ${cell(f)}`)] : []),
  ].join("\n");
}

/** The headline's words when the drain failed. */
export function drainSentence(d: DrainReport): string {
  const found = d.findings.filter((f) => !f.endsWith("pre-existing")).map(cell);
  return `stopping the candidate's server: ${found.join("; ")}`;
}
