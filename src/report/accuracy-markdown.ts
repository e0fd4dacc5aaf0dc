// The accuracy section of the comment: the verdict in words, a table per task
// family (accuracy on both arms, the change and its interval, flips, the
// token-level divergence), the flips against the baseline's own re-run; the
// items that flipped right → wrong, with both answers, collapsed below.

import type { AccuracyComparison, AccuracyReport, ItemAnswers } from "../accuracy/compare.ts";
import { plural } from "../common/format.ts";
import type { GateResults } from "../results/model.ts";
import { cellText, details } from "./blocks.ts";
import { wireText } from "./contract-markdown.ts";

/** Flipped items listed in the details, and families in the table, at most. */
const MAX_LISTED = 50;
const MAX_FAMILIES = 20;

/** A name from the items (a family) in a table cell: nothing that can end the cell, the row or a span. */
const cell = (text: string): string => cellText(text, 100) || " ";

/** Points of accuracy: "4.2". */
const pts = (x: number): string => (Math.abs(x) * 100).toFixed(1);
/** A change in points: "−4.2", "+0.8", "0.0". */
const signedPts = (x: number): string => {
  const shown = pts(x);
  return Number(shown) === 0 ? "0.0" : `${x > 0 ? "+" : "−"}${shown}`;
};
/** The change's interval (candidate − baseline) from the drop's bounds. */
const changeInterval = (c: AccuracyComparison): string =>
  `${signedPts(-c.drop.upper)} … ${signedPts(-c.drop.lower)}`;
const share = (x: number, of: number) => (of > 0 ? `${((x / of) * 100).toFixed(1)} %` : "–");

/** The baseline's own right → wrong flips, scaled to the items compared. */
function floorFlips(a: AccuracyReport): string {
  const f = a.floor;
  if (!f) return "";
  const expected = Math.round((f.right_to_wrong / f.items) * a.overall.items);
  return ` vs ${expected} in the baseline's own re-run (scaled to ${a.overall.items} items)`;
}

/** "the candidate answers 4.2 points fewer items right (−6.1 … −2.3), 31 flips right → wrong vs 9 in the baseline's own re-run". */
export function accuracySentence(a: AccuracyReport): string {
  const o = a.overall;
  const parts: string[] = [];
  if (o.drop.verdict === "fail")
    parts.push(
      `the candidate answers ${pts(o.drop.estimate)} points fewer items right (${changeInterval(o)}), ${o.right_to_wrong} flips right → wrong${floorFlips(a)}`,
    );
  if (a.flip_rule?.verdict === "fail")
    parts.push(
      `the candidate flips ${share(o.right_to_wrong + o.wrong_to_right, o.items)} of the items' answers, ${pts(a.flip_rule.estimate)} points beyond the baseline's own re-run (max-flip-rate)`,
    );
  if (a.kld_rule?.verdict === "fail")
    parts.push(
      `the candidate's next-token distributions diverge by ${a.kld_rule.estimate.toPrecision(3)} nats per token (max-kld)`,
    );
  return parts.join("; ");
}

/** Why accuracy is left open, in words. */
export function accuracyOpenSentence(a: AccuracyReport): string {
  const o = a.overall;
  const parts: string[] = [];
  if (o.drop.verdict === "inconclusive") {
    const more = a.items_to_decide
      ? ` — about ${a.items_to_decide} items would decide at these rates (\`accuracy-items\`)`
      : "";
    parts.push(
      `accuracy ${signedPts(-o.drop.estimate)} points (${changeInterval(o)}) neither shown within the tolerance nor beyond it${more}`,
    );
  }
  if (a.flip_rule?.verdict === "inconclusive")
    parts.push("flips beyond the baseline's own neither shown within max-flip-rate nor beyond it");
  if (a.kld_rule?.verdict === "inconclusive")
    parts.push("the KL divergence neither shown within max-kld nor beyond it");
  return parts.join("; ");
}

const ICON = { pass: "✅", fail: "❌", inconclusive: "⚠️" } as const;

const nats = (x: number | null): string => (x === null ? "–" : x.toPrecision(2));

function row(c: AccuracyComparison, bold: boolean, forced: boolean): string {
  const name = bold ? `**${cell(c.family)}**` : cell(c.family);
  const diverged = c.compared > 0 ? `${c.diverged} of ${c.compared}` : "–";
  const first = c.first_divergence === null ? "–" : String(c.first_divergence);
  const top = c.same_top === null ? "–" : `${(c.same_top * 100).toFixed(1)} %`;
  const whole = forced ? ` ${nats(c.kld_forced)} |` : "";
  return `| ${name} | ${c.items} | ${share(c.baseline_correct, c.items)} | ${share(c.candidate_correct, c.items)} | ${signedPts(-c.drop.estimate)} | ${changeInterval(c)} | ${c.right_to_wrong} | ${c.wrong_to_right} | ${c.changed} | ${diverged} | ${first} | ${nats(c.kld)} |${whole} ${top} |`;
}

/** The per-family table; the teacher-forced column where the candidate scored the baseline's answers. */
function table(a: AccuracyReport): string[] {
  const forced = a.overall.kld_forced !== null && (a.scoring?.scored ?? 0) > 0;
  return [
    `| family | items | baseline | candidate | change | interval | right → wrong | wrong → right | changed | diverged | first difference (median token) | KLD (nats/token) |${forced ? " KLD, the baseline's whole answer |" : ""} same top token |`,
    `|---|--:|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|${forced ? "--:|" : ""}--:|`,
    row(a.overall, true, forced),
    ...a.families.slice(0, MAX_FAMILIES).map((f) => row(f, false, forced)),
    ...(a.families.length > MAX_FAMILIES
      ? [
          "",
          `${a.families.length - MAX_FAMILIES} more families in the results file (\`accuracy.families\`).`,
        ]
      : []),
  ];
}

/** What the teacher-forced scoring did, in words (nothing when it was not asked). */
function scoringLine(a: AccuracyReport): string[] {
  const s = a.scoring;
  if (!s) return [];
  if (!s.supported)
    return [
      `The candidate does not score given text (vLLM's \`prompt_logprobs\`): the divergence stops where the answers first differ (${plural(s.items, "answer")} parted).`,
    ];
  return [
    `Where the answers part, the candidate scored the baseline's answer token by token (teacher-forced: ${s.scored} of ${plural(s.items, "answer")} lined up with its tokens): "the baseline's whole answer".`,
  ];
}

function floorLine(a: AccuracyReport): string {
  const o = a.overall;
  const flips = o.right_to_wrong + o.wrong_to_right;
  const candidate = `The candidate flipped ${flips} of ${o.items} answers (${share(flips, o.items)}): ${o.right_to_wrong} right → wrong, ${o.wrong_to_right} wrong → right; ${o.changed} wrong on both with another answer.`;
  const f = a.floor;
  if (!f)
    return `${candidate} The baseline was not re-run (accuracy-floor 0): its own flips are unknown.`;
  return `${candidate} The baseline's own re-run of ${f.items} items flipped ${f.flips} (${share(f.flips, f.items)}, up to ${(f.rate_upper * 100).toFixed(1)} %): greedy decoding on a batching server is not bit-exact, so flips mean something only beyond that.`;
}

function ruleLines(a: AccuracyReport): string[] {
  const lines: string[] = [];
  if (a.flip_rule)
    lines.push(
      `Flips beyond the floor: ${signedPts(a.flip_rule.estimate)} points (${signedPts(a.flip_rule.lower)} … ${signedPts(a.flip_rule.upper)}) — ${a.flip_rule.verdict} against max-flip-rate.`,
    );
  if (a.kld_rule)
    lines.push(
      `Mean KL divergence per token, item by item: ${a.kld_rule.estimate.toPrecision(3)} nats (${a.kld_rule.lower.toPrecision(3)} … ${a.kld_rule.upper.toPrecision(3)}) — ${a.kld_rule.verdict} against max-kld.`,
    );
  return lines;
}

function notes(a: AccuracyReport): string[] {
  const out: string[] = [];
  const { logprobs } = a;
  for (const arm of ["baseline", "candidate"] as const) {
    // Those compared: an item the other arm lost is left out, not counted.
    const refused = a.answers.filter(
      (x) => x[arm].error !== null && !x.baseline.lost && !x.candidate.lost,
    ).length;
    if (refused > 0)
      out.push(
        `The ${arm} gave no answer to ${plural(refused, "item")} (${firstError(a, arm)}): counted as wrong.`,
      );
  }
  const left = a.left_out;
  if (left && left.items > 0)
    out.push(
      `${plural(left.items, "item")} left out of the comparison on both arms (${left.baseline} lost on the baseline, ${left.candidate} on the candidate): no answer came back — a timeout or a dropped connection, also when asked again alone with twice the timeout — which says nothing of the model${left.items > 5 ? "; the server may be overloaded at accuracy-concurrency" : ""}. First: ${left.ids.map((id) => `\`${wireText(id)}\``).join(", ")}.`,
    );
  if (!logprobs.baseline || !logprobs.candidate) {
    const missing = ["baseline", "candidate"].filter((arm) => !logprobs[arm as "baseline"]);
    out.push(`No logprobs from the ${missing.join(" and the ")}: no token-level divergence.`);
  } else
    out.push(
      "Divergence: from the positions both arms decoded with the same context (up to the first token that differs; an answer that does not differ counts its length), on the tokens both servers listed in their top logprobs and the rest of the vocabulary as one bin — a lower bound on the full KL divergence.",
    );
  return out;
}

/** Where the looks stopped: ", decided at look 1 of 5 (up to 4,800 items)"; nothing with one look. */
export function looksWords(a: Pick<AccuracyReport, "looks" | "verdict">): string {
  const l = a.looks;
  if (!l || l.items.length <= 1) return "";
  const most = (l.items.at(-1) ?? 0).toLocaleString("en-US");
  const where = `look ${l.at + 1} of ${l.items.length} (up to ${most} items)`;
  if (l.futile) return `, stopped at ${where}: ${l.futile}`;
  return a.verdict === "inconclusive" ? `, open after ${where}` : `, decided at ${where}`;
}

function firstError(a: AccuracyReport, arm: "baseline" | "candidate"): string {
  const e = a.answers.find((x) => x[arm].error !== null && !x[arm].lost)?.[arm].error ?? "";
  return wireText(e);
}

export function accuracy(r: GateResults): string {
  const a = r.accuracy;
  if (!a) return r.accuracy_skipped ? `**Accuracy** — ${r.accuracy_skipped}` : "";
  const o = a.overall;
  const headline =
    a.verdict === "fail"
      ? accuracySentence(a)
      : a.verdict === "inconclusive"
        ? accuracyOpenSentence(a)
        : `no drop beyond the tolerance: ${signedPts(-o.drop.estimate)} points (${changeInterval(o)})`;
  const again = a.floor ? `, ${a.floor.items} of them again on the baseline` : "";
  return [
    `**Accuracy** ${ICON[a.verdict]} ${headline}. Suite ${wireText(a.suite)}, ${plural(o.items, "item")} on each arm${again}${looksWords(a)}; change and interval in points (candidate − baseline):`,
    "",
    ...table(a),
    "",
    floorLine(a),
    ...ruleLines(a).map((l) => `\n${l}`),
    ...notes(a).map((l) => `\n${l}`),
    ...scoringLine(a).map((l) => `\n${l}`),
  ].join("\n");
}

const flippedRow = (x: ItemAnswers): string =>
  `| ${wireText(x.id)} | ${wireText(x.expected)} | ${wireText(x.baseline.answer)} | ${wireText(x.candidate.answer || x.candidate.error || "")} |`;

/** The items that flipped right → wrong, with both answers (bounded). */
export function accuracyDetails(r: GateResults): string {
  const a = r.accuracy;
  if (!a) return "";
  const flipped = a.answers.filter((x) => x.baseline.correct && !x.candidate.correct);
  if (flipped.length === 0) return "";
  const more =
    flipped.length > MAX_LISTED
      ? `\n\n${flipped.length - MAX_LISTED} more in the results file (\`accuracy.answers\`).`
      : "";
  return details(
    `Accuracy: items right on the baseline, wrong on the candidate (${flipped.length})`,
    [
      "| item | expected | baseline answered | candidate answered |",
      "|---|---|---|---|",
      ...flipped.slice(0, MAX_LISTED).map(flippedRow),
    ].join("\n") + more,
  );
}
