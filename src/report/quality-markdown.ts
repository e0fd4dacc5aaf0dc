// The quality section of the comment: the verdict with its reasons, the
// per-check table, flaky, pre-existing and agreeing cases, then the details.

import { plural } from "../common/format.ts";
import type { KindComparison } from "../quality/paired.ts";
import type { GateResults } from "../results/model.ts";
import { details } from "./blocks.ts";
import { qualitySentence } from "./quality-words.ts";

const DECISION: Record<KindComparison["decision"], string> = {
  pass: "pass",
  fail: "❌ fail",
  counted: "counted once, as strict",
};

const hist = (h: Record<string, number>) =>
  Object.entries(h)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(", ") || "none";

export function quality(r: GateResults): string {
  const q = r.quality;
  if (!q) return r.quality_skipped ? `**Quality** — ${r.quality_skipped}` : "";
  const lines = [
    q.verdict === "fail"
      ? `**Quality** ❌ ${qualitySentence(q)}. Suite \`${q.suite}\`, ${plural(q.cases, "case")}, one request at a time; per check:`
      : `**Quality** ✅ no regression — suite \`${q.suite}\`, ${plural(q.cases, "case")}, one request at a time.`,
    ...q.reasons.map((reason) => `- ${reason.message}`),
    "",
    "| check | cases | baseline pass | candidate pass | b (newly fail) | c (newly pass) | p | decision |",
    "|---|--:|--:|--:|--:|--:|--:|---|",
    ...q.kinds.map(
      (k) =>
        `| ${k.kind} | ${k.n} | ${(k.baseline_rate * 100).toFixed(0)} % | ${(k.candidate_rate * 100).toFixed(0)} % | ${k.b} | ${k.c} | ${k.p < 0.001 ? "<0.001" : k.p.toFixed(3)} | ${DECISION[k.decision]} |`,
    ),
  ];
  const unconfirmed = q.strict.filter((c) => !c.confirmed);
  if (unconfirmed.length > 0) {
    lines.push(
      "",
      `Strict-check failures not confirmed by re-runs (flaky, not gated): ${unconfirmed.map((c) => `${c.id} (${c.candidate_failures}/${c.runs})`).join(", ")}.`,
    );
  }
  if (q.pre_existing.length > 0) {
    lines.push(
      "",
      `Pre-existing (the baseline already fails them; excluded): ${q.pre_existing.map((p) => `${p.id} [${p.codes.join(", ")}]`).join("; ")}.`,
    );
  }
  if (q.agreement.n > 0) {
    lines.push(
      "",
      `Agreement with the baseline: ${q.agreement.agreed} of ${q.agreement.n} cases${q.agreement.differing.length ? ` (differ: ${q.agreement.differing.join(", ")})` : ""}.`,
    );
  }
  return lines.join("\n");
}

export function qualityDetails(r: GateResults): string {
  const q = r.quality;
  if (!q) return "";
  const flipped = q.kinds.flatMap((k) =>
    k.flipped.map(
      (f) =>
        `| ${k.kind} | ${f.id} | ${f.direction === "b" ? "newly fails" : "newly passes"} | ${f.codes.join(", ")} | ${f.diff.replaceAll("|", "\\|")} |`,
    ),
  );
  return details(
    "Quality details: flipped cases, finish reasons, tool-call failure codes",
    [
      flipped.length > 0
        ? [
            "| check | case | change | codes | baseline → candidate |",
            "|---|---|---|---|---|",
            ...flipped,
          ].join("\n")
        : "No case flipped.",
      "",
      `finish_reason — baseline: ${hist(q.finish_reasons.baseline)}; candidate: ${hist(q.finish_reasons.candidate)}`,
      "",
      `tool-call failure codes — baseline: ${hist(q.tool_codes.baseline)}; candidate: ${hist(q.tool_codes.candidate)}`,
      ...(q.irregular_deltas.candidate.length > 0 || q.irregular_deltas.baseline.length > 0
        ? [
            "",
            `irregular streamed tool-call deltas — baseline: ${q.irregular_deltas.baseline.join(", ") || "none"}; candidate: ${q.irregular_deltas.candidate.join(", ") || "none"}`,
          ]
        : []),
    ].join("\n"),
  );
}
