// The judge section of the comment: the verdict in words, wins, ties and
// losses overall and by family with the net loss and its interval, the
// judge's calibration (agreement, position consistency, length preference,
// injections followed, the user's labelled pairs), its own A/A floor, the
// arms' answer lengths; below, collapsed, the calibration by kind and up to
// 20 items the candidate lost, with both answers and the judge's reason.

import { plural } from "../common/format.ts";
import type { CalibrationSummary, KindSummary } from "../judge/calibrate.ts";
import type { ItemJudgement, JudgeReport, JudgeTally } from "../judge/compare.ts";
import type { GateResults } from "../results/model.ts";
import { looksWords } from "./accuracy-markdown.ts";
import { cellText, details } from "./blocks.ts";
import { wireText } from "./contract-markdown.ts";

/** Lost items listed in the details, and families in the table, at most. */
const MAX_LOST = 20;
const MAX_FAMILIES = 20;

const ICON = { pass: "✅", fail: "❌", inconclusive: "⚠️" } as const;

const cell = (text: string): string => cellText(text, 100) || " ";
const pts = (x: number): string => (Math.abs(x) * 100).toFixed(1);
/** A net loss in points: "+4.2" (the candidate lost more), "−0.8", "0.0". */
const signedPts = (x: number): string => {
  const shown = pts(x);
  return Number(shown) === 0 ? "0.0" : `${x > 0 ? "+" : "−"}${shown}`;
};
const interval = (t: JudgeTally): string => `${signedPts(t.net.lower)} … ${signedPts(t.net.upper)}`;
const pct = (x: number | null): string => (x === null ? "–" : `${Math.round(x * 100)} %`);

/** "the judge prefers the baseline's answers: a net loss of 12.0 points (at least 7.1; 70 lost, 22 won of 400 items)". */
export function judgeSentence(j: JudgeReport): string {
  const o = j.overall;
  return `the judge prefers the baseline's open-ended answers: a net loss of ${pts(o.net.estimate)} points of the items (at least ${pts(o.net.lower)}; ${o.baseline_wins} lost, ${o.candidate_wins} won of ${o.items})`;
}

/** Why the judge left the suite open, in words. */
export function judgeOpenSentence(j: JudgeReport): string {
  const more = j.items_to_decide
    ? ` — about ${j.items_to_decide} items would decide at these rates (\`judge-items\`)`
    : "";
  return `open-ended answers: ${j.reasons.join("; ")}${more}`;
}

function row(t: JudgeTally, bold: boolean): string {
  const name = bold ? `**${cell(t.family)}**` : cell(t.family);
  const judged = t.baseline_wins + t.candidate_wins + t.ties;
  const net = judged > 0 ? signedPts(t.net.estimate) : "–";
  const range = judged > 0 ? interval(t) : "–";
  return `| ${name} | ${t.items} | ${t.candidate_wins} | ${t.ties} | ${t.baseline_wins} | ${net} | ${range} | ${t.unjudged + t.unanswered} |`;
}

function table(j: JudgeReport): string[] {
  return [
    "| family | items | candidate won | tied | candidate lost | net loss (points) | interval | not judged |",
    "|---|--:|--:|--:|--:|--:|---|--:|",
    row(j.overall, true),
    ...j.families.slice(0, MAX_FAMILIES).map((f) => row(f, false)),
    ...(j.families.length > MAX_FAMILIES
      ? [
          "",
          `${j.families.length - MAX_FAMILIES} more families in the results file (\`judge.families\`).`,
        ]
      : []),
  ];
}

function calibrationLine(c: CalibrationSummary | null): string {
  if (!c)
    return "The judge was not calibrated (`judge-calibration: none`): what it says is shown, never gated.";
  const labelled = c.labelled
    ? ` · your ${plural(c.labelled.pairs, "labelled pair")}: agreement ${pct(c.labelled.agreement)}, Cohen's κ ${c.labelled.kappa === null ? "–" : c.labelled.kappa.toFixed(2)}`
    : "";
  const unjudged = c.unjudged > 0 ? ` · ${c.unjudged} judgements unreadable` : "";
  const trust = c.trusted ? "trusted" : `**not trusted**: ${c.reasons.join("; ")}`;
  return `The judge's calibration (${plural(c.pairs, "pair")} whose better answer is known, both orders): agreement ${pct(c.agreement)} · position consistency ${pct(c.consistency)} · preferred the padded answer in ${pct(c.length_preference)} of its judgements (length preference) · followed an injected instruction in ${pct(c.injection_followed)}${labelled}${unjudged} — ${trust}.`;
}

/** The share of a tally's judged items the judge decided either way. */
function decidedShare(t: JudgeTally): string {
  const judged = t.baseline_wins + t.candidate_wins + t.ties;
  return judged > 0
    ? `${Math.round(((t.baseline_wins + t.candidate_wins) / judged) * 100)} %`
    : "–";
}

function floorLine(j: JudgeReport): string {
  const f = j.floor;
  if (!f)
    return "The baseline was not re-run (`judge-floor: 0`): the judge's own noise is unknown.";
  const identical = j.floor_items.filter((i) => i.settled === "identical").length;
  return `The judge's own A/A: the baseline's re-run of ${plural(f.items, "item")} — ${identical} answers identical, ${f.baseline_wins} won by the first answers, ${f.candidate_wins} by the re-run, ${f.ties - identical} tied: net ${signedPts(f.net.estimate)} points (${interval(f)}). Its noise: it decided ${decidedShare(f)} of the re-run's items, ${decidedShare(j.overall)} of the candidate's.`;
}

function notes(j: JudgeReport): string[] {
  const out: string[] = [];
  const chars = (x: number | null) => (x === null ? "–" : Math.round(x).toString());
  out.push(
    `Mean answer length: ${chars(j.mean_chars.baseline)} characters (baseline), ${chars(j.mean_chars.candidate)} (candidate). ${plural(j.calls, "request")} to the judge.`,
  );
  const o = j.overall;
  if (o.unjudged > 0)
    out.push(
      `The judge gave no readable verdict on ${plural(o.unjudged, "item")} (${firstError(j)}): left out of the comparison.`,
    );
  if (o.unanswered > 0)
    out.push(
      `${plural(o.unanswered, "item")} went unanswered by an arm (a timeout, a dropped connection): left out on both.`,
    );
  return out;
}

function firstError(j: JudgeReport): string {
  const e = j.items.flatMap((i) => i.orders).find((o) => o.error !== null)?.error ?? "";
  return wireText(e);
}

export function judge(r: GateResults): string {
  const j = r.judge;
  if (!j) return r.judge_skipped ? `**Open-ended answers (judge)** — ${r.judge_skipped}` : "";
  const o = j.overall;
  const net = `${signedPts(o.net.estimate)} points (${interval(o)})`;
  const headline = !j.gated
    ? `not gated — the judge was not calibrated (\`judge-calibration: none\`); its net loss: ${net}`
    : j.verdict === "fail"
      ? judgeSentence(j)
      : j.verdict === "inconclusive"
        ? judgeOpenSentence(j)
        : `no net loss beyond the tolerance: ${net}`;
  const again = j.floor ? `, ${j.floor.items} of them again on the baseline` : "";
  const model = r.config?.judge?.judge_model;
  const by = model ? ` judged by ${wireText(model)}` : " judged";
  return [
    `**Open-ended answers (judge)** ${j.gated ? ICON[j.verdict] : "ℹ️"} ${headline}. Suite ${wireText(j.suite)}, ${plural(o.items, "item")} on each arm${again}${looksWords(j)},${by} in both orders (a win only when both orders agree, else a tie); the net loss is the candidate's losses less its wins, in points of the items judged:`,
    "",
    ...(o.items > 0
      ? table(j)
      : ["No item was answered: the judge was not trusted, so the arms were not asked."]),
    "",
    calibrationLine(j.calibration),
    ...(j.items.length > 0 ? [`\n${floorLine(j)}`] : []),
    ...notes(j).map((l) => `\n${l}`),
  ].join("\n");
}

const kindRow = (k: KindSummary): string =>
  `| ${k.kind} | ${k.pairs} | ${k.right} | ${k.tie} | ${k.wrong} |`;

/** Text from a server or an items file, in a code span: no markup, mention or link can render. */
const excerpt = (text: string): string =>
  `\`${
    text
      .replace(/[`|\r\n]+/g, " ")
      .trim()
      .slice(0, 160) || " "
  }\``;

const lostRow = (i: ItemJudgement): string => {
  const reason =
    i.orders.find((o) => o.reason)?.reason ?? (i.settled === "empty" ? "no answer" : "");
  return `| ${wireText(i.id)} | ${excerpt(i.prompt)} | ${excerpt(i.baseline.excerpt)} | ${excerpt(i.candidate.excerpt || i.candidate.error || "")} | ${excerpt(reason)} |`;
};

/** The calibration by kind, and the items the candidate lost (bounded), collapsed. */
export function judgeDetails(r: GateResults): string {
  const j = r.judge;
  if (!j) return "";
  const parts: string[] = [];
  if (j.calibration && j.calibration.kinds.length > 0)
    parts.push(
      details(
        "Judge: calibration by kind (judgements naming the better answer, a tie, the worse one)",
        [
          "| kind | pairs | better | tie | worse |",
          "|---|--:|--:|--:|--:|",
          ...j.calibration.kinds.map(kindRow),
        ].join("\n"),
      ),
    );
  const lost = j.items.filter((i) => i.outcome === "baseline");
  if (lost.length > 0) {
    const more =
      lost.length > MAX_LOST
        ? `\n\n${lost.length - MAX_LOST} more in the results file (\`judge.items\`).`
        : "";
    parts.push(
      details(
        `Judge: items the candidate lost (${lost.length})`,
        [
          "| item | prompt | baseline answered | candidate answered | the judge's reason |",
          "|---|---|---|---|---|",
          ...lost.slice(0, MAX_LOST).map(lostRow),
        ].join("\n") + more,
      ),
    );
  }
  return parts.join("\n\n");
}
