// The contract section of the comment: regressions the candidate brings (they
// fail the gate), behaviour changes for the reviewer, what was already broken
// and what did not show again; the evidence from both arms below.

import { plural } from "../common/format.ts";
import type { ContractFinding, ContractReport } from "../contract/diff.ts";
import type { RuntimeId } from "../contract/runtime.ts";
import type { GateResults } from "../results/model.ts";
import { details, fenced } from "./blocks.ts";

/** A server's words in a table cell: a code span, nothing that can break the table or mention anyone. */
export const wireText = (text: string): string =>
  `\`${text.replace(/[`|\r\n]+/g, " ").slice(0, 100) || " "}\``;

/** "the contract changed: stream.incremental (deltas repeat the text so far)". */
export function contractSentence(c: ContractReport): string {
  const named = c.regressions
    .slice(0, 3)
    .map((f) => `${f.id} (${f.candidate.value.slice(0, 60)})`)
    .join(", ");
  const more = c.regressions.length > 3 ? ` and ${c.regressions.length - 3} more` : "";
  return `the candidate breaks the API contract: ${named}${more}`;
}

/** "vllm 0.10.0", or the server header, or null. */
function runtimeLabel(r: RuntimeId | null | undefined): string | null {
  if (!r) return null;
  if (r.name) return r.version ? `${r.name} ${r.version}` : r.name;
  return r.server_header;
}

/** "vllm 0.10.0 → 0.11.0", when either arm said what it runs. */
export function runtimesLine(c: ContractReport | null | undefined): string | null {
  if (!c) return null;
  const b = runtimeLabel(c.runtimes.baseline);
  const a = runtimeLabel(c.runtimes.candidate);
  if (!b && !a) return null;
  return `${b ?? "unknown"} → ${a ?? "unknown"}`;
}

const rows = (findings: ContractFinding[]) => [
  "| item | baseline | candidate |",
  "|---|---|---|",
  ...findings.map(
    (f) => `| ${f.id} | ${wireText(f.baseline.value)} | ${wireText(f.candidate.value)} |`,
  ),
];

const listed = (findings: ContractFinding[]) =>
  findings.map((f) => `${f.id} (${wireText(f.candidate.value)})`).join(", ");

export function contract(r: GateResults): string {
  const c = r.contract;
  if (!c) return r.contract_skipped ? `**Contract** — ${r.contract_skipped}` : "";
  const items = c.items.candidate.length;
  const lines =
    c.verdict === "fail"
      ? [
          `**Contract** ❌ ${contractSentence(c)} — held on the baseline, broken on the candidate, both times:`,
          "",
          ...rows(c.regressions),
        ]
      : [
          `**Contract** ✅ no regression — ${plural(items, "item")} probed on each arm, one request at a time.`,
        ];
  if (c.changes.length > 0)
    lines.push(
      "",
      "Behaviour changes (nothing the API documents broke; check your clients):",
      "",
      ...rows(c.changes),
    );
  if (c.fixed.length > 0) lines.push("", `Fixed by the candidate: ${listed(c.fixed)}.`);
  if (c.preexisting.length > 0)
    lines.push("", `Broken on both (pre-existing): ${listed(c.preexisting)}.`);
  if (c.flaky.length > 0)
    lines.push(
      "",
      `Differed once, not on the re-run (not gated): ${c.flaky.map((f) => f.id).join(", ")}.`,
    );
  return lines.join("\n");
}

/** The evidence of every regression and change: what each arm answered. */
export function contractDetails(r: GateResults): string {
  const c = r.contract;
  if (!c) return "";
  const shown = [...c.regressions, ...c.changes];
  if (shown.length === 0) return "";
  const body = shown.flatMap((f) => [
    `**${f.id}**`,
    "",
    "baseline:",
    ...fenced(f.baseline.evidence, 4),
    "candidate:",
    ...fenced(f.candidate.evidence, 4),
    "",
  ]);
  return details(`Contract evidence (${plural(shown.length, "item")})`, body.join("\n"));
}
