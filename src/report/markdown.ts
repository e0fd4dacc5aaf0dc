// The PR comment and job summary (one markdown for both): the verdict first,
// the gated metrics with their noise, outcome counts, self-checks, then
// collapsible details. Fits GitHub's comment limit by dropping the least
// important sections first, with a visible note.

import { type MetricComparison, signedPercent as signed } from "../compare/decide.ts";
import type { PercentileKey, Verdict } from "../config/gate.ts";
import { OUTCOMES } from "../load/record.ts";
import type { LatencySummary } from "../metrics/histogram.ts";
import type { GateResults } from "./results.ts";

export const COMMENT_LIMIT = 65_536;

const ICON: Record<Verdict, string> = { pass: "✅", fail: "❌", inconclusive: "⚠️", error: "🛑" };
const ROW_ICON: Record<MetricComparison["verdict"], string> = {
  pass: "✅",
  regressed: "❌",
  inconclusive: "⚠️",
  improved: "🚀",
};

export function marker(key: string): string {
  return `<!-- llm-perf-gate:${key} -->`;
}

function num(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return "–";
  const a = Math.abs(v);
  return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : v.toFixed(2);
}

function gate(c: MetricComparison): string {
  return c.higher_is_worse ? `≤ ${signed(c.tolerance)}` : `≥ ${signed(-c.tolerance)}`;
}

function metricName(c: MetricComparison): string {
  return c.unit ? `${c.label} (${c.unit})` : c.label;
}

function metricTable(r: GateResults): string {
  const confidence = `${Math.round(r.confidence_per_look * 1000) / 10} %`;
  const rows = r.comparisons.map((c) => {
    const bounds =
      c.pairs.length < 2
        ? "needs ≥ 2 pairs"
        : `${signed(c.change_lower)} … ${signed(c.change_upper)}`;
    const flags = [
      c.noisy ? "noisy" : "",
      c.pairs.some((p) => p.outlier) ? "outlier pair" : "",
    ].filter(Boolean);
    // In an error run nothing is decided: the numbers are shown, the verdicts are not.
    const decided = r.verdict !== "error";
    const verdict = decided
      ? `${c.verdict}${flags.length ? ` (${flags.join(", ")})` : ""}`
      : "not decided";
    return `| ${decided ? ROW_ICON[c.verdict] : "·"} | ${metricName(c)} | ${gate(c)} | ${num(c.baseline)} | ${num(c.candidate)} | ${signed(c.change)} | ${bounds} | ${verdict} |`;
  });
  return [
    `| | metric | gate | baseline | candidate | change | ${confidence} bounds | verdict |`,
    "|:-:|---|---|--:|--:|--:|---|---|",
    ...rows,
  ].join("\n");
}

function context(r: GateResults): string {
  const w = r.config.workload as Record<string, unknown>;
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
  return [
    `${r.pairs} pair${r.pairs === 1 ? "" : "s"} (order ${r.config.order}) · ${w.arrival} · ${w.duration_s} s window, ~${perTrial} requests per trial · seed ${w.seed} · rule \`${r.config.decision_rule}\`${looks}`,
    `${noise} · smallest change this run could call a regression: ${detectable}`,
  ].join("  \n");
}

function outcomes(r: GateResults): string {
  const arms = ["baseline", "candidate"] as const;
  const totals = Object.fromEntries(
    arms.map((arm) => {
      const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<string, number>;
      let scheduled = 0;
      for (const t of r.trials.filter((x) => x.arm === arm)) {
        scheduled += t.report.scheduled;
        for (const o of OUTCOMES) counts[o] = (counts[o] as number) + t.report.outcomes[o];
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
  return `**Outcomes** (every scheduled request, all trials)\n\n${lines.join("\n")}`;
}

function selfChecks(r: GateResults): string {
  const invalid = r.trials.filter((t) => !t.report.validity.valid);
  const worst = (f: (t: GateResults["trials"][number]) => number) =>
    Math.max(0, ...r.trials.map(f));
  const summary = `worst send skew p99 ${num(worst((t) => t.report.validity.send_skew_ms.p99 ?? 0))} ms, event-loop delay p99 ${num(worst((t) => t.report.validity.event_loop_delay_ms.p99))} ms, GC ${(worst((t) => t.report.validity.gc.share_of_window) * 100).toFixed(2)} %, client CPU ${(worst((t) => t.report.validity.client_cpu.share_of_core) * 100).toFixed(0)} % of a core`;
  const capped = r.trials.some((t) => t.report.validity.capped)
    ? " Runs were capped by max-concurrency (closed loop)."
    : "";
  if (invalid.length === 0)
    return `**Self-checks** ✅ all ${r.trials.length} trials valid — ${summary}.${capped}`;
  return [
    `**Self-checks** 🛑 ${invalid.length} of ${r.trials.length} trials invalid — ${summary}.${capped}`,
    ...invalid.map((t) => `- pair ${t.pair + 1} ${t.arm}: ${t.report.validity.reasons.join("; ")}`),
  ].join("\n");
}

function servers(r: GateResults): string {
  if (!r.servers || r.servers.length === 0) return "";
  const starts = r.servers.map((s) => {
    const ready =
      s.time_to_ready_s === null
        ? "never ready"
        : `ready in ${num(s.time_to_ready_s)} s, cold-start TTFT ${num(s.cold_ttft_ms)} ms`;
    return `${s.arm} start ${s.start}: ${ready}${s.exit && s.exit !== "running" ? `, then ${s.exit}` : ""} (log \`${s.log}\`)`;
  });
  return `**Servers** started by the gate — ${starts.join("; ")}.`;
}

const hist = (h: Record<string, number>) =>
  Object.entries(h)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(", ") || "none";

function quality(r: GateResults): string {
  const q = r.quality;
  if (!q) return "";
  const lines = [
    `**Quality** ${q.verdict === "fail" ? "❌ regressed" : "✅ no regression"} — suite \`${q.suite}\`, ${q.cases} cases, one request at a time${q.reasons.length ? "" : "."}`,
    ...q.reasons.map((reason) => `- ${reason}`),
    "",
    "| check | cases | baseline pass | candidate pass | b (newly fail) | c (newly pass) | p | decision |",
    "|---|--:|--:|--:|--:|--:|--:|---|",
    ...q.kinds.map(
      (k) =>
        `| ${k.kind} | ${k.n} | ${(k.baseline_rate * 100).toFixed(0)} % | ${(k.candidate_rate * 100).toFixed(0)} % | ${k.b} | ${k.c} | ${k.p < 0.001 ? "<0.001" : k.p.toFixed(3)} | ${k.decision === "fail" ? "❌ fail" : "pass"} |`,
    ),
  ];
  const unconfirmed = q.contract.filter((c) => !c.confirmed);
  if (unconfirmed.length > 0) {
    lines.push(
      "",
      `Contract failures not confirmed by re-runs (flaky, not gated): ${unconfirmed.map((c) => `${c.id} (${c.candidate_failures}/${c.runs})`).join(", ")}.`,
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

function qualityDetails(r: GateResults): string {
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

function details(summary: string, body: string): string {
  return `<details><summary>${summary}</summary>\n\n${body}\n\n</details>`;
}

function perTrial(r: GateResults): string {
  const p = r.config.percentile as PercentileKey;
  const rows = r.trials.map((t) => {
    const m = t.report.metrics;
    const at = (s: LatencySummary) => `${s.lower_bounds.includes(p) ? "≥" : ""}${num(s[p])}`;
    return `| ${t.pair + 1} | ${t.arm} | ${t.position + 1} | ${t.seed} | ${t.report.scheduled} | ${t.report.outcomes.ok} | ${num(t.report.goodput.requests_per_s)} | ${at(m.ttft_ms)} | ${at(m.itl_ms)} | ${at(m.tpot_ms)} | ${t.report.validity.valid ? "✅" : "🛑"} |`;
  });
  const pl = p === "p999" ? "p99.9" : p;
  return details(
    "Per-trial results",
    [
      `| pair | arm | ran | seed | scheduled | ok | goodput (req/s) | ${pl} TTFT (ms) | ${pl} ITL (ms) | ${pl} TPOT (ms) | valid |`,
      "|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|:-:|",
      ...rows,
    ].join("\n"),
  );
}

function chart(r: GateResults): string {
  const ttft = r.comparisons.find((c) => c.id === "ttft");
  if (!ttft || ttft.pairs.length < 2) return "";
  const base = ttft.pairs.map((p) => Number(p.baseline.toFixed(1)));
  const cand = ttft.pairs.map((p) => Number(p.candidate.toFixed(1)));
  const top = Math.ceil(Math.max(...base, ...cand) * 1.1);
  return details(
    `Chart: ${ttft.label} per pair (bars: baseline, line: candidate)`,
    [
      "```mermaid",
      "xychart-beta",
      `  title "${ttft.label} per pair (ms)"`,
      `  x-axis [${ttft.pairs.map((_, i) => `"pair ${i + 1}"`).join(", ")}]`,
      `  y-axis "ms" 0 --> ${top}`,
      `  bar [${base.join(", ")}]`,
      `  line [${cand.join(", ")}]`,
      "```",
    ].join("\n"),
  );
}

function pooled(r: GateResults): string {
  const rows: string[] = [];
  for (const [metric, label] of [
    ["ttft_ms", "TTFT"],
    ["itl_ms", "ITL"],
    ["tpot_ms", "TPOT"],
    ["e2el_ms", "E2EL"],
  ] as const) {
    for (const arm of ["baseline", "candidate"] as const) {
      const p = r.pooled[arm]?.[metric];
      if (p)
        rows.push(
          `| ${label} | ${arm} | ${p.count} | ${num(p.p50)} | ${num(p.p95)} | ${num(p.p99)} |`,
        );
    }
  }
  return details(
    "Pooled percentiles (descriptive only: not used for the verdict)",
    [
      "All requests of all trials of an arm pooled into one histogram. Pooling ignores the trial-to-trial noise, so these numbers never decide anything.",
      "",
      "| metric (ms) | arm | samples | p50 | p95 | p99 |",
      "|---|---|--:|--:|--:|--:|",
      ...rows,
    ].join("\n"),
  );
}

function method(r: GateResults): string {
  return details(
    "Configuration and method",
    [
      "Each pair runs baseline and candidate back to back with the same seeded schedule and prompts, open loop, one arm under load at a time. Latency counts from each request's scheduled send time; timeouts count at the timeout. Per metric and pair, d = ln(candidate / baseline) for latencies and ln(baseline / candidate) for goodput (positive = worse); a one-sided t-interval over the pairs (n − 1 degrees of freedom) measures the change against the trial-to-trial noise.",
      "",
      "```json",
      JSON.stringify(r.config, null, 2),
      "```",
    ].join("\n"),
  );
}

export function renderMarkdown(r: GateResults, commentKey: string, limit = COMMENT_LIMIT): string {
  if (r.trials.length === 0) {
    return `${[marker(commentKey), `### ${ICON[r.verdict]} llm-perf-gate: **${r.verdict}** — ${r.headline}`].join("\n")}\n`;
  }
  const head = [
    marker(commentKey),
    `### ${ICON[r.verdict]} llm-perf-gate: **${r.verdict}** — ${r.headline}`,
    ...(r.guards.length > 0
      ? [
          "",
          "No performance verdict: the measurement cannot be trusted as it is.",
          "",
          ...r.guards.map((g) => `- ${g}`),
        ]
      : []),
    "",
    metricTable(r),
    "",
    context(r),
    "",
    outcomes(r),
    "",
    selfChecks(r),
    ...(servers(r) ? ["", servers(r)] : []),
    ...(quality(r) ? ["", quality(r)] : []),
  ].join("\n");
  // Least important last: dropped first when the comment is too long.
  const optional = [perTrial(r), qualityDetails(r), chart(r), pooled(r), method(r)].filter(Boolean);
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
