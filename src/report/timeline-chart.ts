// The comment's timeline: when a metric regressed or a trial was invalid, the
// deciding metric over time inside one pair, baseline and candidate on one
// chart — so a stall, a warm-up tail or a mid-trial crash is visible.

import type { Arm } from "../common/arms.ts";
import type { TrialTimeline } from "../metrics/timeline.ts";
import type { GateResults } from "../results/model.ts";
import { COLOR_NAMES, chartColors, details } from "./blocks.ts";

type Trial = GateResults["trials"][number];

/** The pair to show and why: a trial that failed its self-checks, else the regressed metric's worst pair. */
export function timelinePick(
  r: GateResults,
): { pair: number; metric: "ttft" | "itl"; why: string } | null {
  const invalid = r.trials.find((t) => !t.report.validity.valid && t.report.timeline);
  if (invalid)
    return {
      pair: invalid.pair,
      metric: "ttft",
      why: `its ${invalid.arm} trial failed its self-checks`,
    };
  const regressed = r.comparisons.find((c) => c.verdict === "regressed" && c.pairs.length > 0);
  if (!regressed) return null;
  const metric = regressed.id === "itl" || regressed.id === "tpot" ? "itl" : "ttft";
  const worst = worstPair(r, metric);
  return worst === null
    ? null
    : { pair: worst, metric, why: `the largest change of ${metric === "ttft" ? "TTFT" : "ITL"}` };
}

/** The pair (its number, not its place among the compared ones) whose candidate is worst against its baseline. */
export function worstPair(r: GateResults, metric: "ttft" | "itl"): number | null {
  const p = r.config?.percentile ?? "p95";
  const value = (pair: number, arm: Arm) =>
    r.trials.find((t) => t.pair === pair && t.arm === arm)?.report.metrics[`${metric}_ms`][p];
  let worst: { pair: number; ratio: number } | null = null;
  for (const pair of new Set(r.trials.map((t) => t.pair))) {
    const [b, c] = [value(pair, "baseline"), value(pair, "candidate")];
    if (typeof b !== "number" || typeof c !== "number" || !(b > 0)) continue;
    if (worst === null || c / b > worst.ratio) worst = { pair, ratio: c / b };
  }
  return worst?.pair ?? null;
}

const series = (t: TrialTimeline | undefined, metric: "ttft" | "itl") =>
  (t?.buckets ?? []).map((b) => (metric === "ttft" ? b.ttft_p95_ms : b.itl_p95_ms) ?? 0);

export function timelineChart(r: GateResults): string {
  const chosen = timelinePick(r);
  if (!chosen) return "";
  const trialOf = (arm: Arm): Trial | undefined =>
    r.trials.find((t) => t.pair === chosen.pair && t.arm === arm);
  const [b, c] = [trialOf("baseline")?.report.timeline, trialOf("candidate")?.report.timeline];
  if (!b || !c) return "";
  const label = chosen.metric === "ttft" ? "p95 TTFT (ms)" : "p95 ITL (ms)";
  const [base, cand] = [series(b, chosen.metric), series(c, chosen.metric)];
  const length = Math.max(base.length, cand.length);
  const pad = (xs: number[]) => [...xs, ...Array<number>(length - xs.length).fill(0)];
  const round = (v: number) => Number(v.toPrecision(3));
  const top = Number((Math.max(1, ...base, ...cand) * 1.15).toPrecision(2));
  const step = b.bucket_s;
  const body = [
    "```mermaid",
    chartColors(2),
    "xychart-beta",
    `  title "Pair ${chosen.pair + 1}, ${label} per ${step === 1 ? "second" : `${step} s`}: baseline vs candidate"`,
    `  x-axis "seconds from the trial's start" [${Array.from({ length }, (_, k) => `"${k * step}"`).join(", ")}]`,
    `  y-axis "${label}" 0 --> ${top}`,
    `  line [${pad(base).map(round).join(", ")}]`,
    `  line [${pad(cand).map(round).join(", ")}]`,
    "```",
    "",
    `0: no ok request was due in that ${step === 1 ? "second" : "interval"}. Each trial's whole timeline (offered, completed, failures, the server's queue) is in the results file.`,
  ].join("\n");
  return details(
    `Timeline: pair ${chosen.pair + 1}, ${chosen.why} (${COLOR_NAMES[0]}: baseline, ${COLOR_NAMES[1]}: candidate)`,
    body,
  );
}
