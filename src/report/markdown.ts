// The PR comment and job summary (one markdown for both): the verdict first,
// the gated metrics with their noise, outcome counts, self-checks, then
// collapsible details. Fits GitHub's comment limit by dropping the least
// important sections first, with a visible note.

import { median } from "simple-statistics";
import { ARMS } from "../common/arms.ts";
import { marker } from "../common/comment.ts";
import { compact as num, percent, plural, signedPercent as signed } from "../common/format.ts";
import type { Guard } from "../common/guard.ts";
import { OUTCOMES, zeroOutcomes } from "../common/outcomes.ts";
import { PERCENTILE_VALUES, POOLED_METRICS, percentileLabel } from "../common/percentiles.ts";
import type { MetricComparison } from "../compare/decide.ts";
import type { Verdict } from "../compare/verdict.ts";
import type { LatencySummary } from "../metrics/histogram.ts";
import type { ConfigDescription, GateResults } from "../results/model.ts";
import { COLOR_NAMES, chartColors, details, fenced } from "./blocks.ts";
import { capacityDetails, capacitySection } from "./capacity-markdown.ts";
import { describeExample } from "./failures.ts";
import { nextStep } from "./next-step.ts";
import { quality, qualityDetails } from "./quality-markdown.ts";
import { serverViewLine, serverViewSection } from "./server-view.ts";

const ICON: Record<Verdict, string> = {
  pass: "✅",
  fail: "❌",
  inconclusive: "⚠️",
  error: "🛑",
  cancelled: "⏹️",
};
const ROW_ICON: Record<MetricComparison["verdict"], string> = {
  pass: "✅",
  regressed: "❌",
  inconclusive: "⚠️",
  improved: "🚀",
};

function gate(c: MetricComparison): string {
  return c.higher_is_worse ? `≤ ${signed(c.tolerance)}` : `≥ ${signed(-c.tolerance)}`;
}

function metricName(c: MetricComparison): string {
  return c.unit ? `${c.label} (${c.unit})` : c.label;
}

function metricTable(r: GateResults, config: ConfigDescription): string {
  const scheduleOnly = offeredOnly(r, config).length > 0;
  // Two one-sided bounds at c make a (2c − 1) two-sided interval: 95 % each is a 90 % interval.
  const twoSided = `${Math.round((2 * r.confidence_per_look - 1) * 1000) / 10} %`;
  const rows = r.comparisons.map((c) => {
    const bounds =
      c.pairs.length < 2
        ? "needs ≥ 2 pairs"
        : c.id === "goodput" && scheduleOnly
          ? "= the offered load: no request missed its SLO"
          : `${signed(c.change_lower)} … ${signed(c.change_upper)}`;
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
      `| ${decided ? ROW_ICON[rel.verdict] : "·"} | failure rate | ≤ ${pp(rel.tolerance)} | ${percent(rel.baseline.rate)} | ${percent(rel.candidate.rate)} | ${pp(rel.increase)} | Fisher p = ${rel.p < 0.001 ? "<0.001" : rel.p.toFixed(3)} | ${decided ? rel.verdict : "not decided"} |`,
    );
  }
  return [
    `| | metric | gate | baseline | candidate | change | ${twoSided} interval | verdict |`,
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

function context(r: GateResults, config: ConfigDescription): string {
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
  const looks =
    r.looks > 1
      ? ` · up to ${r.looks} looks, confidence ${Math.round(r.confidence_per_look * 1000) / 10} % each`
      : "";
  // Fewer than two requests above the percentile: it is about their largest.
  const share = 1 - PERCENTILE_VALUES[config.percentile] / 100;
  const thin =
    perTrial > 0 && perTrial * share < 2
      ? [
          `⚠️ ${percentileLabel(config.percentile)} of ~${perTrial} requests is about their largest, a noisy statistic: a higher rate or a longer duration would steady it`,
        ]
      : [];
  const bounds = `baseline, candidate: geometric means over the pairs (change = candidate ÷ baseline − 1) · interval: two one-sided ${Math.round(r.confidence_per_look * 1000) / 10} % bounds, the gate's test`;
  return [
    `${plural(r.pairs, "pair")} (order ${config.order}) · ${arrival}${w.prefix ? ` · shared prefixes: ${w.prefix}` : ""}${w.sessions ? ` · sessions of ${w.sessions}` : ""} · ${w.duration_s} s window, ~${perTrial} requests per trial · seed ${w.seed} · rule \`${config.decision_rule}\`${looks}`,
    `${noise} · ${bounds} · smallest change this run could call a regression: ${detectable}`,
    ...thin,
    ...offeredOnly(r, config),
    ...promptLine(r),
    ...sessionsLine(r),
  ].join("  \n");
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

function outcomes(r: GateResults): string {
  const arms = ARMS;
  const totals = Object.fromEntries(
    arms.map((arm) => {
      const counts = zeroOutcomes();
      let scheduled = 0;
      for (const t of r.trials.filter((x) => x.arm === arm)) {
        scheduled += t.report.scheduled;
        for (const o of OUTCOMES) counts[o] += t.report.outcomes[o];
      }
      return [arm, { scheduled, counts }];
    }),
  );
  const shown = OUTCOMES.filter(
    (o) => o === "ok" || arms.some((a) => (totals[a]?.counts[o] ?? 0) > 0),
  );
  const zero = OUTCOMES.filter((o) => !shown.includes(o));
  const lines = [
    `| arm | scheduled | ${shown.join(" | ")} |`,
    `|---|--:|${shown.map(() => "--:").join("|")}|`,
    ...arms.map(
      (a) =>
        `| ${a} | ${totals[a]?.scheduled} | ${shown.map((o) => totals[a]?.counts[o]).join(" | ")} |`,
    ),
  ];
  if (zero.length > 0) lines.push("", `0 in both arms: ${zero.join(", ")}.`);
  const rel = r.reliability;
  if (rel && rel.baseline.excluded + rel.candidate.excluded > 0) {
    lines.push(
      "",
      `Not counted as failures: ${rel.excluded_classes.join(", ")} (reliability-exclude: the caller's own limits, not the server's).`,
    );
  }
  const examples = Object.entries(rel?.examples ?? {});
  if (examples.length > 0) {
    lines.push(
      "",
      "The candidate's failures, one example each:",
      "",
      ...examples.map(([o, e]) => `- \`${o}\`: ${describeExample(e).replaceAll("|", "\\|")}`),
    );
  }
  return `**Outcomes** (every scheduled request, all trials)\n\n${lines.join("\n")}`;
}

function selfChecks(r: GateResults): string {
  const invalid = r.trials.filter((t) => !t.report.validity.valid);
  const worst = (f: (t: GateResults["trials"][number]) => number) =>
    Math.max(0, ...r.trials.map(f));
  const p = r.config ? percentileLabel(r.config.percentile) : "p95";
  const effect = worst((t) =>
    Math.max(t.report.validity.skew_effect.ttft ?? 0, t.report.validity.skew_effect.e2el ?? 0),
  );
  const summary = `late sends moved ${p} TTFT/E2EL by at most ${percent(effect)}, worst send skew p99 ${num(worst((t) => t.report.validity.send_skew_ms.p99 ?? 0))} ms, event-loop delay p99 ${num(worst((t) => t.report.validity.event_loop_delay_ms.p99))} ms, GC ${(worst((t) => t.report.validity.gc.share_of_window) * 100).toFixed(2)} %, client CPU ${(worst((t) => t.report.validity.client_cpu.share_of_core) * 100).toFixed(0)} % of a core`;
  const capped = r.trials.some((t) => t.report.validity.capped)
    ? " Runs were capped by max-concurrency (closed loop)."
    : "";
  const notes = [
    ...r.reruns.flatMap((x) =>
      x.invalid.map(
        (i) =>
          `- pair ${x.pair + 1} was run again (${x.attempt}) after its ${i.arm} trial: ${i.reasons.join("; ")}`,
      ),
    ),
    ...r.idle_checks
      .filter((c) => c.busy)
      .map((c) => `- pair ${c.pair + 1} ${c.arm}: ${c.note ?? "started on a busy server"}`),
  ];
  const head =
    invalid.length === 0
      ? `**Self-checks** ✅ all ${r.trials.length} trials valid — ${summary}.${capped}`
      : `**Self-checks** 🛑 ${invalid.length} of ${r.trials.length} trials invalid — ${summary}.${capped}`;
  return [
    head,
    ...invalid.map((t) => `- pair ${t.pair + 1} ${t.arm}: ${t.report.validity.reasons.join("; ")}`),
    ...notes,
  ].join("\n");
}

function servers(r: GateResults): string {
  const warnings = r.preflight.flatMap((p) => p.warnings.map((w) => `${p.arm}: ${w}`));
  const preflight = warnings.length > 0 ? `**Preflight** — ${warnings.join("; ")}.` : "";
  if (r.servers.length === 0) return preflight;
  const starts = r.servers.map((s) => {
    const ready =
      s.time_to_ready_s === null
        ? "never ready"
        : `ready in ${num(s.time_to_ready_s)} s, cold-start TTFT ${num(s.cold_ttft_ms)} ms`;
    const warned = s.warnings.length > 0 ? ` ⚠️ ${s.warnings.join("; ")}` : "";
    return `${s.arm} start ${s.start}: ${ready}${s.exit && s.exit !== "running" ? `, then ${s.exit}` : ""} (log \`${s.log}\`)${warned}`;
  });
  return [`**Servers** started by the gate — ${starts.join("; ")}.`, preflight]
    .filter(Boolean)
    .join("\n\n");
}

function perTrial(r: GateResults, config: ConfigDescription): string {
  const p = config.percentile;
  const rows = r.trials.map((t) => {
    const m = t.report.metrics;
    const at = (s: LatencySummary) => `${s.lower_bounds.includes(p) ? "≥" : ""}${num(s[p])}`;
    return `| ${t.pair + 1} | ${t.arm} | ${t.position + 1} | ${t.seed} | ${t.report.scheduled} | ${t.report.outcomes.ok} | ${num(t.report.goodput.requests_per_s)} | ${at(m.ttft_ms)} | ${at(m.itl_ms)} | ${at(m.tpot_ms)} | ${t.report.validity.valid ? "✅" : "🛑"} |`;
  });
  const pl = percentileLabel(p);
  return details(
    "Per-trial results",
    [
      `| pair | arm | ran | seed | scheduled | ok | goodput (req/s) | ${pl} TTFT (ms) | ${pl} ITL (ms) | ${pl} TPOT (ms) | valid |`,
      "|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|:-:|",
      ...rows,
    ].join("\n"),
  );
}

/**
 * The metrics that decided the verdict: the regressed, else the open; in a
 * pass, the latency nearest its limit. None when something else decided (failures,
 * quality, capacity: their own sections show them).
 */
function deciding(r: GateResults): MetricComparison[] {
  const shown = r.comparisons.filter((c) => c.pairs.length >= 2);
  for (const v of ["regressed", "inconclusive"] as const) {
    const hit = shown.filter((c) => c.verdict === v);
    if (hit.length > 0) return hit.slice(0, 2);
  }
  if (r.verdict !== "pass") return [];
  const nearest = [...shown.filter((c) => c.higher_is_worse)].sort(
    (a, b) => b.d_mean / b.tolerance_d - a.d_mean / a.tolerance_d,
  )[0];
  return nearest ? [nearest] : [];
}

function chart(r: GateResults): string {
  const metrics = deciding(r);
  if (metrics.length === 0) return "";
  const one = (c: MetricComparison) => {
    const round = (v: number) => Number(v.toPrecision(3));
    const base = c.pairs.map((p) => round(p.baseline));
    const cand = c.pairs.map((p) => round(p.candidate));
    const top = Number((Math.max(...base, ...cand) * 1.15).toPrecision(2));
    // Each pair's own change on its axis label: the chart reads without the table.
    const labels = c.pairs.map(
      (p, i) => `"${i + 1}: ${signed(p.candidate / p.baseline - 1).replace(" ", "")}"`,
    );
    return [
      "```mermaid",
      chartColors(2),
      "xychart-beta",
      `  title "${metricName(c)} per pair: baseline (blue bars) vs candidate (red line)"`,
      `  x-axis "pair: candidate vs baseline" [${labels.join(", ")}]`,
      `  y-axis "${metricName(c)}" 0 --> ${top}`,
      `  bar [${base.join(", ")}]`,
      `  line [${cand.join(", ")}]`,
      "```",
    ].join("\n");
  };
  return details(
    `Chart: ${metrics.map((c) => c.label).join(" and ")} per pair (${COLOR_NAMES[0]} bars: baseline, ${COLOR_NAMES[1]} line: candidate)`,
    metrics.map(one).join("\n\n"),
  );
}

/** A latency as the comment shows it: "≥" when it is only a lower bound (censored). */
function bounded(s: LatencySummary, key: "p50" | "p95" | "p99"): string {
  return `${s.lower_bounds.includes(key) ? "≥" : ""}${num(s[key])}`;
}

function pooled(r: GateResults): string {
  if (!r.pooled) return "";
  const labels = { ttft_ms: "TTFT", itl_ms: "ITL", tpot_ms: "TPOT", e2el_ms: "E2EL" } as const;
  const rows: string[] = [];
  for (const metric of POOLED_METRICS) {
    for (const arm of ARMS) {
      const p = r.pooled[arm][metric];
      rows.push(
        `| ${labels[metric]} | ${arm} | ${p.count} | ${bounded(p, "p50")} | ${bounded(p, "p95")} | ${bounded(p, "p99")} |`,
      );
    }
  }
  return details(
    "Pooled percentiles (descriptive only: not used for the verdict)",
    [
      'All requests of all trials of an arm pooled into one histogram. Pooling ignores the trial-to-trial noise, so these numbers never decide anything. "≥": a lower bound, among timed-out requests.',
      "",
      "| metric (ms) | arm | samples | p50 | p95 | p99 |",
      "|---|---|--:|--:|--:|--:|",
      ...rows,
    ].join("\n"),
  );
}

function method(config: ConfigDescription): string {
  return details(
    "Configuration and method",
    [
      "Each pair runs baseline and candidate back to back with the same seeded schedule and prompts, open loop, one arm under load at a time. Latency counts from each request's scheduled send time; timeouts count at the timeout. Per metric and pair, d = ln(candidate / baseline) for latencies and ln(baseline / candidate) for goodput (positive = worse); a one-sided t-interval over the pairs (n − 1 degrees of freedom) measures the change against the trial-to-trial noise.",
      "",
      "```json",
      JSON.stringify(config, null, 2),
      "```",
    ].join("\n"),
  );
}

/** The guards as a list; a guard's further lines (a log tail) fenced below it. */
function guardList(guards: readonly Guard[]): string[] {
  return guards.flatMap((g) => [
    `- ${g.message}`,
    ...(g.detail ? ["", ...fenced(g.detail).map((l) => `  ${l}`)] : []),
  ]);
}

/** The comment (and job summary) of a run, fitted to `limit` characters when given. */
export function renderMarkdown(r: GateResults, commentKey: string, limit = Infinity): string {
  const title = `### ${ICON[r.verdict]} llm-perf-gate: **${r.verdict}** — ${r.headline}`;
  const step = nextStep(r);
  const next = step ? ["", `**Next step:** ${step}.`] : [];
  if ((r.trials.length === 0 && !r.capacity) || !r.config) {
    // Nothing was measured: the headline, and the guards when they say more than it does.
    const only = r.guards.length === 1 ? r.guards[0] : undefined;
    const body = only
      ? only.detail
        ? ["", ...fenced(only.detail)]
        : []
      : ["", ...guardList(r.guards)];
    const text = [marker(commentKey), title, ...body, ...next].join("\n");
    return `${text.slice(0, limit - 1)}\n`;
  }
  const config = r.config;
  const head = [
    marker(commentKey),
    title,
    ...(r.warnings.length > 0 ? ["", ...r.warnings.map((w) => `> ⚠️ **Warning:** ${w}`)] : []),
    ...(r.guards.length > 0
      ? [
          "",
          "No performance verdict: the measurement cannot be trusted as it is.",
          "",
          ...guardList(r.guards),
        ]
      : []),
    ...next,
    ...(r.capacity ? ["", capacitySection(r.capacity, config.slo.ttft_ms)] : []),
    "",
    metricTable(r, config),
    ...(serverViewLine(r) ? ["", serverViewLine(r)] : []),
    "",
    context(r, config),
    "",
    outcomes(r),
    "",
    selfChecks(r),
    ...(servers(r) ? ["", servers(r)] : []),
    ...(quality(r) ? ["", quality(r)] : []),
  ].join("\n");
  // Least important last: dropped first when the comment is too long.
  const optional = [
    chart(r),
    serverViewSection(r),
    r.capacity ? capacityDetails(r.capacity) : "",
    perTrial(r, config),
    qualityDetails(r),
    pooled(r),
    method(config),
  ].filter(Boolean);
  const note = (dropped: number) =>
    `\n\n_${dropped} detail section${dropped > 1 ? "s" : ""} omitted to fit GitHub's ${limit.toLocaleString("en-US")}-character limit; the results file has everything._`;
  for (let keep = optional.length; keep >= 0; keep--) {
    const body = [head, ...optional.slice(0, keep)].join("\n\n");
    const text = keep === optional.length ? body : body + note(optional.length - keep);
    if (text.length <= limit) return `${text}\n`;
  }
  const cut = `\n\n_Truncated to fit GitHub's ${limit}-character limit; the results file has everything._\n`;
  return head.slice(0, limit - cut.length) + cut;
}
