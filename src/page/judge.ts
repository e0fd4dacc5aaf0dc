// The judge's outcomes as a picture: per task family, the items the
// candidate won, tied and lost (and those not judged), as stacked bars, the
// counts in a table beside them.

import type { JudgeReport, JudgeTally } from "../judge/compare.ts";
import { PALETTE } from "../report/blocks.ts";
import { figure, type Html, table } from "./html.ts";
import { chartSvg } from "./svg.ts";

/** The outcomes in the order they stack, with their colours: won green, tied grey, lost red. */
const OUTCOMES = [
  ["candidate won", PALETTE[3]],
  ["tied", PALETTE[2]],
  ["candidate lost", PALETTE[1]],
  ["not judged", "#cccccc"],
] as const;

const counts = (t: JudgeTally): number[] => [
  t.candidate_wins,
  t.ties,
  t.baseline_wins,
  t.unjudged + t.unanswered,
];

/** Families drawn at most (the comment's table shows as many; the results file has all). */
const MAX_FAMILIES = 20;

/** Wins, ties and losses per family as stacked bars; null when no item was judged. */
export async function judgeFigure(j: JudgeReport): Promise<Html | null> {
  if (j.overall.items === 0) return null;
  // The overall row's name is no family's: a family a file calls "all items" is marked as one.
  const rows = [
    { ...j.overall, family: "all items" },
    ...j.families
      .slice(0, MAX_FAMILIES)
      .map((f) => (f.family === "all items" ? { ...f, family: "all items (a family)" } : f)),
  ];
  const values = rows.flatMap((t) =>
    counts(t).map((n, k) => ({ family: t.family, outcome: OUTCOMES[k]?.[0], items: n, order: k })),
  );
  const svg = await chartSvg({
    width: 420,
    height: { step: 22 },
    data: { values },
    mark: "bar",
    encoding: {
      y: { field: "family", type: "nominal", sort: rows.map((t) => t.family), title: null },
      x: {
        field: "items",
        type: "quantitative",
        stack: "normalize",
        title: "share of the items",
        axis: { format: "%" },
      },
      color: {
        field: "outcome",
        type: "nominal",
        scale: { domain: OUTCOMES.map((o) => o[0]), range: OUTCOMES.map((o) => o[1]) },
        legend: { title: null },
      },
      order: { field: "order" },
    },
  });
  const caption =
    'The judge: per family, the share of the items the candidate won, tied and lost (a win counts only when both orders agree); "all" is every item.';
  return figure(
    "judge",
    caption,
    svg,
    table([
      ["family", ...OUTCOMES.map((o) => o[0])],
      ...rows.map((t) => [t.family, ...counts(t).map(String)]),
    ]),
  );
}
