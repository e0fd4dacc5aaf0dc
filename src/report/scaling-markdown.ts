// The scaling section of the comment: the load it was, each rule's numbers
// and verdict, what each arm's fleet did (replicas at the step and at their
// peak, the first answer of a new replica, scale-ins, streams cut); collapsed
// below, both arms' replicas, offered load and p95 TTFT through the pair
// where the candidate reacted worst.

import type { Arm } from "../common/arms.ts";
import { count, percent, plural, signedPercent, signedPoints } from "../common/format.ts";
import type { ScalingReport } from "../gate/scaling.ts";
import type { GateResults } from "../results/model.ts";
import type { ScalingCheck } from "../stress/scaling-compare.ts";
import type { ScalingReading } from "../stress/scaling-read.ts";
import { COLOR_NAMES, cellText, details } from "./blocks.ts";
import { chart, replicasChart } from "./surge-markdown.ts";

const VERDICT_WORDS = {
  pass: "pass",
  fail: "**fail**",
  inconclusive: "inconclusive",
  skipped: "skipped",
} as const;

const seconds = (x: number) => `${count(Math.round(x * 10) / 10)} s`;
const turns = (x: number) => `${Math.round(x * 10) / 10}`;
const signedTurns = (x: number) => `${x >= 0 ? "+" : ""}${turns(x)}`;

const LABELS: Record<ScalingCheck["id"], string> = {
  reaction: "time to the first added replica",
  slo: "not served within the SLO until scaled up",
  flaps: "turns of the replica count per 10 min of hover",
  cut: "streams cut from the step down on",
  scale_up_budget: "budget: time to the first added replica",
  flaps_budget: "budget: turns per 10 min of hover",
  cut_budget: "budget: streams cut a trial",
};

/** How a check's values read: seconds, a share, turns, a count. */
function shown(id: ScalingCheck["id"]): {
  value: (x: number) => string;
  change: (x: number) => string;
} {
  if (id === "reaction") return { value: seconds, change: signedPercent };
  if (id === "scale_up_budget") return { value: seconds, change: seconds };
  if (id === "slo" || id === "cut") return { value: percent, change: signedPoints };
  if (id === "cut_budget") return { value: turns, change: turns };
  return { value: turns, change: signedTurns };
}

/** An arm's mean reaction, "≥" where every pair's was censored (no replica before the step down). */
function valueCell(
  c: ScalingCheck,
  arm: "baseline" | "candidate",
  v: (x: number | null) => string,
) {
  const shownValue = v(c[arm]);
  const censored = c.censored?.[arm] ?? 0;
  if (censored === 0 || c.censored === undefined) return shownValue;
  return censored === c.censored.pairs
    ? `≥ ${shownValue}`
    : `${shownValue} (${censored} of ${c.censored.pairs} without a replica added)`;
}

function row(c: ScalingCheck): string {
  const f = shown(c.id);
  const v = (x: number | null) => (x === null ? "–" : f.value(x));
  const bound = (x: number | null) => (x === null ? "–" : f.change(x));
  const budget = c.id.endsWith("_budget");
  const change =
    c.change === null
      ? budget && c.change_lower !== null
        ? `(${bound(c.change_lower)} … ${bound(c.change_upper)})`
        : "–"
      : `${f.change(c.change)}${c.change_lower !== null || c.change_upper !== null ? ` (${bound(c.change_lower)} … ${bound(c.change_upper)})` : ""}`;
  const rule = budget
    ? `≤ ${f.value(c.tolerance)}`
    : c.id === "cut"
      ? "Fisher"
      : `≤ ${f.change(c.tolerance)}`;
  return `| ${LABELS[c.id]} | ${valueCell(c, "baseline", v)} | ${valueCell(c, "candidate", v)} | ${change} | ${rule} | ${VERDICT_WORDS[c.verdict]} |`;
}

/** What an arm's fleet did, over its pairs. */
function behaviour(s: ScalingReport, arm: Arm): string {
  const rs: ScalingReading[] = s.pairs.map((p) => p[arm]);
  const counted = rs.filter((r) => r.start_replicas !== null);
  const starts = counted.map((r) => r.start_replicas ?? 0);
  const peaks = counted.map((r) => r.peak_replicas ?? 0);
  // The earliest first answer of a new replica, with that answer's own TTFT.
  const first = [...rs]
    .filter((r) => r.served_s !== null)
    .sort((a, b) => (a.served_s ?? 0) - (b.served_s ?? 0))[0];
  const scaleIns = counted.reduce((a, r) => a + (r.scale_ins ?? 0), 0);
  const cut = rs.reduce((a, r) => a + r.cut, 0);
  const parts = [
    counted.length > 0
      ? `from ${Math.min(...starts)} to ${Math.max(...peaks)} replicas`
      : "no replica count",
    ...(first
      ? [
          `a new replica's first answer was due ${seconds(first.served_s ?? 0)} after the step (its TTFT ${count(Math.round(first.served_ttft_ms ?? 0))} ms)`,
        ]
      : []),
    ...(counted.length > 0 ? [`${plural(scaleIns, "scale-in")}`] : []),
    cut === 0 ? "no stream cut" : `${plural(cut, "stream")} cut`,
  ];
  return `${arm}: ${parts.join(", ")}`;
}

/** The headline's words when the scenario failed. */
export function scalingSentence(s: ScalingReport): string {
  return s.comparison.checks
    .filter((c) => c.verdict === "fail")
    .map(
      (c) => `the candidate's ${LABELS[c.id].replace("budget: ", "")}: ${cellText(c.reason, 200)}`,
    )
    .join("; ");
}

/** The headline's words when the scenario was left open. */
export function scalingOpenSentence(s: ScalingReport): string {
  const open = s.comparison.checks.filter((c) => c.verdict === "inconclusive");
  return `the scaling scenario's ${open.map((c) => LABELS[c.id].replace("budget: ", "budget on the ")).join(" and ")} could not be decided (${open.map((c) => cellText(c.reason, 200)).join("; ")})`;
}

export function scaling(r: GateResults): string {
  const s = r.scaling;
  if (!s) return r.scaling_skipped ? `### Scaling\n\n${r.scaling_skipped}` : "";
  const sp = s.span;
  return [
    "### Scaling",
    "",
    `${s.steady_per_s} req/s, then ${s.step_per_s} req/s for ${sp.downS - sp.stepS} s (${s.factor} × the ${s.relative_to === "capacity" ? "baseline's capacity" : "rate"}), ${s.steady_per_s} req/s for ${sp.hoverS - sp.downS} s, then ${s.hover_per_s} req/s ±10 % for ${sp.endS - sp.hoverS} s; ${plural(s.pairs.length, "pair")} compared — ${VERDICT_WORDS[s.verdict]}`,
    "",
    "| | baseline | candidate | change | rule | verdict |",
    "|---|---|---|---|---|---|",
    ...s.comparison.checks.map(row),
    "",
    `${behaviour(s, "baseline")}; ${behaviour(s, "candidate")}.`,
    ...s.comparison.checks
      .filter((c) => c.verdict !== "pass")
      .map((c) => `\n- ${LABELS[c.id]}: ${cellText(c.reason, 300)}`),
    ...s.notes.map((n) => `\n- ${cellText(n, 300)}`),
  ].join("\n");
}

/** The pair whose candidate reacted worst against its baseline (its reaction's ratio). */
export function scalingWorstPair(s: ScalingReport): number | null {
  const ratio = (p: ScalingReport["pairs"][number]) =>
    ((p.candidate.reaction_s ?? 0) + 1) / ((p.baseline.reaction_s ?? 0) + 1);
  return [...s.pairs].sort((a, b) => ratio(b) - ratio(a))[0]?.pair ?? null;
}

export function scalingDetails(r: GateResults): string {
  const s = r.scaling;
  const pair = s ? scalingWorstPair(s) : null;
  if (!s || pair === null) return "";
  const timeline = (arm: Arm) => s.trials.find((t) => t.pair === pair && t.arm === arm)?.timeline;
  const [b, c] = [timeline("baseline"), timeline("candidate")];
  if (!b || !c) return "";
  const title = `Scaling pair ${pair + 1}`;
  const ttft = (t: typeof b) => t.buckets.map((x) => x.ttft_p95_ms ?? 0);
  const offered = (t: typeof b) => t.buckets.map((x) => x.offered / t.bucket_s);
  const body = [
    ...replicasChart(title, b, c),
    "",
    chart(
      `${title}: offered load (req/s)`,
      "requests due per second",
      offered(b),
      offered(c),
      b.bucket_s,
    ),
    "",
    chart(`${title}: p95 TTFT (ms)`, "p95 TTFT (ms)", ttft(b), ttft(c), b.bucket_s),
    "",
    `The step runs from ${s.span.stepS} s to ${s.span.downS} s; the hover from ${s.span.hoverS} s to ${s.span.endS} s.`,
  ].join("\n");
  return details(
    `Scaling: pair ${pair + 1}, where the candidate reacted worst (${COLOR_NAMES[0]}: baseline, ${COLOR_NAMES[1]}: candidate)`,
    body,
  );
}
