// The forest plot: per gated metric, each pair's change (a dot) and the
// estimate's interval at the deciding look (a bar), against the lines the
// rule judges it by — no change, the fail floor (half the tolerance under the
// margin rule) and the tolerance. The picture of the rule.

import { signedPercent } from "../common/format.ts";
import type { PercentileKey } from "../common/percentiles.ts";
import { comparedPairs } from "../compare/gated.ts";
import { type MetricComparison, toChange } from "../compare/metric.ts";
import type { TrialEntry } from "../compare/trials.ts";
import { figure, type Html, plainText, table } from "./html.ts";
import { type ChartSpec, chartSvg } from "./svg.ts";

const LINES = ["no change", "fail floor", "tolerance"] as const;
const LINE_COLORS = ["#57606a", "#bf8700", "#cf222e"];

interface Row {
  row: string;
  change: number;
  note: string;
}

/** The pair numbers (1-based) of a comparison's pairs, as the comparison took them. */
function pairNumbers(c: MetricComparison, trials: readonly TrialEntry[], p: PercentileKey) {
  const numbers = comparedPairs(c.id, trials, p).map((pair) => pair + 1);
  return numbers.length === c.pairs.length ? numbers : c.pairs.map((_, i) => i + 1);
}

/** Each pair's change, candidate ÷ baseline − 1, and what the table says of it. */
function pairRows(c: MetricComparison, numbers: readonly number[]): Row[] {
  return c.pairs.flatMap((p, i) => {
    const change = p.candidate / p.baseline - 1;
    if (!Number.isFinite(change)) return [];
    const note = [
      p.outlier ? "outlier" : "",
      p.censored ? `${p.censored} censored (a lower bound)` : "",
      i >= c.decided_at ? "after the deciding look" : "",
    ].filter(Boolean);
    return [{ row: `pair ${numbers[i] ?? i + 1}`, change, note: note.join(", ") }];
  });
}

/** The rule's lines as changes of the metric: down is worse for goodput. */
function ruleLines(c: MetricComparison) {
  const sign = c.higher_is_worse ? 1 : -1;
  return {
    floor: toChange(c.floor_d, c.higher_is_worse),
    tolerance: sign * c.tolerance,
  };
}

const bounded = (c: MetricComparison) =>
  Number.isFinite(c.change_lower) && Number.isFinite(c.change_upper);

function forestSpec(c: MetricComparison, rows: Row[]): ChartSpec {
  const estimate = {
    row: `estimate (${c.decided_at} pairs)`,
    change: c.change,
    lower: c.change_lower,
    upper: c.change_upper,
  };
  const order = [...rows.map((r) => r.row), estimate.row];
  const y = { field: "row", type: "ordinal", sort: order, title: null };
  const x = (field: string) => ({
    field,
    type: "quantitative",
    axis: { format: "+.1~%", title: `${plainText(c.label)}: change` },
  });
  const { floor, tolerance } = ruleLines(c);
  const lines = [
    { line: LINES[0], x: 0 },
    { line: LINES[1], x: floor },
    { line: LINES[2], x: tolerance },
  ];
  return {
    width: 460,
    height: 22 * order.length + 10,
    layer: [
      {
        data: { values: lines },
        mark: { type: "rule", strokeDash: [4, 3], strokeWidth: 1.5 },
        encoding: {
          x: x("x"),
          color: {
            field: "line",
            type: "nominal",
            scale: { domain: [...LINES], range: LINE_COLORS },
            legend: { title: null },
          },
        },
      },
      {
        data: { values: rows },
        mark: { type: "point", filled: true, size: 50, color: "#1b1f24" },
        encoding: { x: x("change"), y },
      },
      // An open metric with no look yet has no bounds: its estimate alone.
      ...(bounded(c)
        ? [
            {
              data: { values: [estimate] },
              mark: { type: "rule", strokeWidth: 3, color: "#0969da" },
              encoding: { x: x("lower"), x2: { field: "upper" }, y },
            },
          ]
        : []),
      {
        data: { values: [estimate] },
        mark: { type: "point", shape: "diamond", filled: true, size: 120, color: "#0969da" },
        encoding: { x: x("change"), y },
      },
    ],
  };
}

const percentOr = (x: number | null) =>
  x !== null && Number.isFinite(x) ? signedPercent(x) : "unbounded";

function forestNumbers(c: MetricComparison, rows: Row[]): Html {
  const { floor, tolerance } = ruleLines(c);
  return table(
    [
      ["", "change", "note"],
      ...rows.map((r) => [r.row, signedPercent(r.change), r.note]),
      [
        `estimate, ${c.decided_at} pairs`,
        percentOr(c.change),
        `${percentOr(c.change_lower)} … ${percentOr(c.change_upper)}: the bounds the rule read at that look (the comment's interval)`,
      ],
      ["tolerance", signedPercent(tolerance), `verdict: ${c.verdict}`],
      ["fail floor", signedPercent(floor), c.status],
    ],
    c.label,
  );
}

/** One forest plot per gated metric; `percentile`: the one the comparisons read. */
export async function forestFigures(
  comparisons: readonly MetricComparison[],
  trials: readonly TrialEntry[],
  percentile: PercentileKey,
): Promise<Html[]> {
  const figures: Html[] = [];
  for (const c of comparisons) {
    const rows = pairRows(c, pairNumbers(c, trials, percentile));
    if (rows.length === 0) continue;
    const svg = await chartSvg(forestSpec(c, rows));
    const caption = `${c.label}: each pair's change (dots), the estimate and its interval at the deciding look (bar), the rule's lines. ${c.reason}`;
    figures.push(figure(`forest-${c.id}`, caption, svg, forestNumbers(c, rows)));
  }
  return figures;
}
