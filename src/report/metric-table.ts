// The gated-metric table and the run's context under it: each metric with
// both arms, the change, its interval and the verdict; the failure rate; then
// what the trials ran, their noise and the smallest detectable change.

import { median } from "simple-statistics";
import { compact as num, percent, plural, signedPercent as signed } from "../common/format.ts";
import { PERCENTILE_VALUES, percentileLabel } from "../common/percentiles.ts";
import type { MetricComparison } from "../compare/metric.ts";
import type { ConfigDescription, GateResults } from "../results/model.ts";
import { cachedUsageLine, outputLengthLine, reasoningLine } from "./model-lines.ts";

export const ROW_ICON: Record<MetricComparison["verdict"], string> = {
  pass: "✅",
  regressed: "❌",
  inconclusive: "⚠️",
  improved: "🚀",
};

function gate(c: MetricComparison): string {
  return c.higher_is_worse ? `≤ ${signed(c.tolerance)}` : `≥ ${signed(-c.tolerance)}`;
}

export function metricName(c: MetricComparison): string {
  return c.unit ? `${c.label} (${c.unit})` : c.label;
}

export function metricTable(r: GateResults, config: ConfigDescription): string {
  const scheduleOnly = offeredOnly(r, config).length > 0;
  const rows = r.comparisons.map((c) => {
    const bounds =
      c.pairs.length < 2
        ? "needs ≥ 2 pairs"
        : c.id === "goodput" && scheduleOnly
          ? "= the offered load: no request missed its SLO"
          : `${signed(c.change_lower)} … ${signed(c.change_upper)}${c.pairs.some((p) => p.censored) ? " (censored)" : ""}`;
    const flags = [
      c.noisy ? "noisy" : "",
      c.pairs.some((p) => p.outlier) ? "outlier pair" : "",
    ].filter(Boolean);
    // In an error or cancelled run nothing is decided: the numbers are shown, the verdicts are not.
    const decided = r.verdict !== "error" && r.verdict !== "cancelled";
    const verdict = decided
      ? `${c.verdict}${flags.length ? ` (${flags.join(", ")})` : ""}`
      : "not decided";
    return `| ${decided ? ROW_ICON[c.verdict] : "·"} | ${metricName(c)} | ${gate(c)} | ${num(c.baseline)} | ${num(c.candidate)} | ${signed(c.change)} | ${bounds} | ${verdict} |`;
  });
  const rel = r.reliability;
  if (rel) {
    const decided =
      r.verdict !== "cancelled" &&
      (r.verdict !== "error" || !r.guards.some((g) => g.code === "baseline_failures"));
    const pp = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x * 100).toFixed(1)} pts`;
    rows.push(
      `| ${decided ? ROW_ICON[rel.verdict] : "·"} | failure rate | ≤ ${pp(rel.tolerance)} | ${percent(rel.baseline.rate)} | ${percent(rel.candidate.rate)} | ${pp(rel.increase)} | ${rel.increase_lower === null || rel.increase_upper === null ? "–" : `${pp(rel.increase_lower)} … ${pp(rel.increase_upper)}`} | ${decided ? rel.verdict : "not decided"} |`,
    );
  }
  return [
    "| | metric | gate | baseline | candidate | change | interval | verdict |",
    "|:-:|---|---|--:|--:|--:|---|---|",
    ...rows,
  ].join("\n");
}

/** Goodput that is the schedule itself: every request of every trial met the SLO. */
function offeredOnly(r: GateResults, config: ConfigDescription): string[] {
  const gated = r.comparisons.some((c) => c.id === "goodput");
  if (!gated || r.capacity || r.trials.length === 0) return [];
  if (!r.trials.every((t) => t.report.goodput.attainment === 1)) return [];
  const met =
    Object.keys(config.slo).length === 0
      ? "every request was ok (no SLO set)"
      : "every request met the SLO";
  return [
    `goodput = the offered load on both arms: ${met}, so it could not drop at this rate — \`capacity: true\` gates it at the knee`,
  ];
}

export function context(r: GateResults, config: ConfigDescription): string {
  const w = config.workload;
  // What the trials ran: a capacity gate's rate is known only after its sweep.
  const arrival = r.trials[0]?.report.workload.arrival ?? w.arrival;
  const perTrial =
    r.trials.length > 0
      ? Math.round(r.trials.reduce((s, t) => s + t.report.scheduled, 0) / r.trials.length)
      : 0;
  const cvs = r.comparisons
    .flatMap((c) => [c.cv_baseline, c.cv_candidate])
    .filter((v): v is number => v !== null);
  const noise =
    cvs.length > 0
      ? `trial-to-trial noise (CV) up to ${(Math.max(...cvs) * 100).toFixed(1)} %`
      : "noise unknown with one pair";
  const detectable = r.comparisons
    .map((c) => `${c.label} ${c.detectable_change === null ? "n/a" : signed(c.detectable_change)}`)
    .join(", ");
  const d = r.design ?? { looks: [r.pairs], alpha: 1 - config.confidence };
  // Fewer than two requests above the percentile: it is about their largest.
  const share = 1 - PERCENTILE_VALUES[config.percentile] / 100;
  const thin =
    perTrial > 0 && perTrial * share < 2
      ? [
          `⚠️ ${percentileLabel(config.percentile)} of ~${perTrial} requests is about their largest, a noisy statistic: a higher rate or a longer duration would steady it`,
        ]
      : [];
  const bounds = `baseline, candidate: geometric means over the pairs (change = candidate ÷ baseline − 1) · interval: the one-sided bounds at the look that decided (or the last)`;
  return [
    `${plural(r.pairs, "pair")} (order ${config.order}) · ${arrival}${w.prefix ? ` · shared prefixes: ${w.prefix}` : ""}${w.sessions ? ` · sessions of ${w.sessions}` : ""} · ${w.duration_s} s window, ~${perTrial} requests per trial · seed ${w.seed}`,
    ruleLine(config.decision_rule, d),
    `${noise} · ${bounds} · smallest change this run could call a regression: ${detectable}`,
    ...thin,
    ...offeredOnly(r, config),
    ...cacheLine(r),
    ...cachedUsageLine(r),
    ...promptLine(r),
    ...reasoningLine(r, config),
    ...outputLengthLine(r),
    ...sessionsLine(r),
  ].join("  \n");
}

/** What pass and fail mean under the rule in force, and the pairs the design may add. */
function ruleLine(rule: ConfigDescription["decision_rule"], d: { looks: number[]; alpha: number }) {
  const confidence = `${Math.round((1 - d.alpha) * 1000) / 10} %`;
  const fail =
    rule === "confirm"
      ? "its bound shows more than the tolerance"
      : "its bound shows more than half the tolerance and its estimate more than all of it";
  const [first = 0, ...later] = d.looks;
  const last = d.looks.at(-1) ?? first;
  const shown = later.length > 4 ? `${later.slice(0, 2).join(", ")} … ${last}` : later.join(", ");
  const adds =
    later.length === 0
      ? "no pairs are added (max-trials = trials)"
      : `while a metric is open and none has regressed, pairs are added up to looks at ${shown} (at most ${plural(last - first, "pair")} more than the first ${first})`;
  return `rule \`${rule}\`: a metric **passes** when its bound shows it within its tolerance (${confidence} one-sided over all looks), **fails** when ${fail} (${confidence} for all the gate's metrics together), else is inconclusive; ${adds}`;
}

/** A prefix-cache hit-rate gap of this many points between the arms is flagged next to the verdict. */
const CACHE_GAP = 0.1;

/**
 * The arms' prefix-cache hit rates when they differ: the arm with more hits
 * looks faster for a reason that is not the change (a shared server, or
 * prompts a cache already held).
 */
function cacheLine(r: GateResults): string[] {
  const b = r.server_view?.baseline.prefix_cache_hit_rate;
  const c = r.server_view?.candidate.prefix_cache_hit_rate;
  if (typeof b !== "number" || typeof c !== "number" || Math.abs(c - b) < CACHE_GAP) return [];
  return [
    `⚠️ prefix-cache hit rate ${percent(b)} (baseline) vs ${percent(c)} (candidate): the arms did not meet the same cache, so part of the latency change may be the cache, not the change — two arms on one server, or prompts a cache already held`,
  ];
}

/**
 * Prompt tokens as each arm's server counted them, beside what was meant: an
 * upgrade that changes the tokenizer or the chat template changes every prompt.
 */
function promptLine(r: GateResults): string[] {
  const first = (arm: string) => r.trials.find((t) => t.arm === arm)?.report.tokens.prompt;
  const [b, c] = [first("baseline"), first("candidate")];
  if (!b || !c || b.server_mean === null || c.server_mean === null) return [];
  const changed =
    Math.abs(c.server_mean - b.server_mean) > 0.01 * b.server_mean
      ? ` — ⚠️ the arms count the same prompts differently (${signed(c.server_mean / b.server_mean - 1)}): a tokenizer or chat-template change`
      : "";
  return [
    `prompt tokens per request: ≈ ${num(b.intended_mean)} intended (${b.counted_by}); the servers counted ${num(b.server_mean)} (baseline), ${num(c.server_mean)} (candidate)${changed}`,
  ];
}

/** Sessions: TTFT by turn per arm (medians over its trials of each trial's p50) — a prefix cache shows in the later turns. */
function sessionsLine(r: GateResults): string[] {
  const byTurn = (arm: string) => {
    const runs = r.trials.filter((t) => t.arm === arm).map((t) => t.report.sessions);
    const turns = runs[0]?.turns ?? 0;
    return Array.from({ length: turns }, (_, k) => {
      const xs = runs
        .map((s) => s?.ttft_p50_ms_by_turn[k])
        .filter((v): v is number => typeof v === "number");
      return xs.length === 0 ? "–" : num(median(xs));
    }).join(", ");
  };
  const ended = (arm: string) => {
    const runs = r.trials.filter((t) => t.arm === arm).map((t) => t.report.sessions);
    return `${runs.reduce((s, x) => s + (x?.completed ?? 0), 0)} of ${runs.reduce((s, x) => s + (x?.started ?? 0), 0)}`;
  };
  if (!r.trials.some((t) => t.report.sessions)) return [];
  return [
    `sessions completed: baseline ${ended("baseline")}, candidate ${ended("candidate")} · TTFT p50 by turn (ms): baseline ${byTurn("baseline")}; candidate ${byTurn("candidate")}`,
  ];
}
