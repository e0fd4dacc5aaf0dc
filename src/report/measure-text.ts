// The `measure` command's readable output: what was measured, where every
// scheduled request went, the latency table (lower bounds shown as "≥"), and
// whether the measurement can be trusted.

import { at } from "../common/arrays.ts";
import { compact, percent, plural, signedPercent } from "../common/format.ts";
import { OUTCOMES } from "../common/outcomes.ts";
import type { Progress } from "../load/run.ts";
import type { LatencySummary } from "../metrics/histogram.ts";
import type { TrialReport } from "../trial/measure.ts";

const COLUMNS = ["mean", "p50", "p90", "p95", "p99", "p999", "max"] as const;

function cell(s: LatencySummary, key: (typeof COLUMNS)[number]): string {
  const v = s[key];
  if (v === null) return "–";
  const shown = v >= 100 ? v.toFixed(0) : v.toFixed(1);
  return s.lower_bounds.includes(key) ? `≥${shown}` : shown;
}

function pad(cells: string[], widths: number[]): string {
  return cells
    .map((c, i) => (i === 0 ? c.padEnd(at(widths, i)) : c.padStart(at(widths, i))))
    .join("  ");
}

/** Output tokens and chunks, sessions, prompt tokens, cached tokens and reasoning. */
function tokenLines(r: TrialReport): string[] {
  const lines: string[] = [];
  const tpc = r.tokens.tokens_per_chunk;
  lines.push(
    `tokens: ${r.tokens.output_total} output in ${r.tokens.output_chunks} chunks${tpc === null ? (r.tokens.prompt.counted_by.startsWith("tokenizer") ? " (no usage reported: output counted by the tokenizer)" : " (no usage reported: tokens counted as chunks)") : `, ${tpc} tokens per chunk${r.tokens.itl_per_multi_token_chunk ? " — chunks carry several tokens, so ITL is per chunk, not per token" : ""}${r.tokens.usage_counts_eos ? " (usage counts one unstreamed end-of-sequence token per request)" : ""}`}`,
  );
  const s = r.sessions;
  if (s) {
    lines.push(
      `sessions: ${s.started} started in the window, ${s.completed} completed, ${s.failed} ended by a failed turn; TTFT p50 by turn ${s.ttft_p50_ms_by_turn.map((v) => (v === null ? "–" : compact(v))).join(", ")} ms (later turns carry the history: a prefix cache shows here)`,
    );
  }
  const words = promptWords(r.tokens.prompt);
  if (words) lines.push(`prompt tokens: ${words}`);
  const cached = r.tokens.prompt.cached;
  if (cached)
    lines.push(
      `cached prompt tokens (usage): ${cached.tokens}, ${percent(cached.share)} of the prompt tokens`,
    );
  const x = r.reasoning;
  if (x) {
    const share =
      x.reasoning_token_share === null
        ? ""
        : `, ${percent(x.reasoning_token_share, 0)} of the output tokens`;
    lines.push(
      `reasoning: ${x.requests} requests thought before answering (${x.reasoning_chunks} reasoning chunks${share}); time to the first answer token p50 ${compact(x.ttfa_ms.p50)} ms, p95 ${compact(x.ttfa_ms.p95)} ms (TTFT counts the first thought)`,
    );
  }
  return lines;
}

export function formatMeasureReport(r: TrialReport): string {
  const lines: string[] = [];
  const w = r.workload;
  lines.push(
    `${r.target.url} · model ${r.target.model} · ${r.target.endpoint} · ${w.arrival} · ${r.window_s} s window (+${w.warmup_s} s warm-up, ${w.warmup_requests} requests) · seed ${w.seed}`,
  );
  lines.push(
    `input ${w.input_len} tokens · output ${w.output_len ?? "server-decided"}${w.max_tokens ? ` (max ${w.max_tokens})` : ""}${w.ignore_eos ? " · ignore_eos" : ""} · timeout ${w.timeout_s} s${w.max_concurrency ? ` · max concurrency ${w.max_concurrency} (closed loop)` : " · open loop"}`,
  );
  const parts = OUTCOMES.filter((o) => r.outcomes[o] > 0).map((o) => `${o} ${r.outcomes[o]}`);
  lines.push(`scheduled ${r.scheduled} = ${parts.join(" + ") || "0"}`);
  lines.push("");
  const rows: [string, LatencySummary][] = [
    ["TTFT", r.metrics.ttft_ms],
    ["TTFT (service)", r.metrics.ttft_service_ms],
    ["E2EL", r.metrics.e2el_ms],
    ["E2EL (service)", r.metrics.e2el_service_ms],
    ["TPOT", r.metrics.tpot_ms],
    [r.tokens.itl_per_multi_token_chunk ? "ITL (per chunk)" : "ITL", r.metrics.itl_ms],
    ...(r.tokens.itl_per_token_ms
      ? [["ITL (per token)", r.tokens.itl_per_token_ms] as [string, LatencySummary]]
      : []),
  ];
  const table = [
    ["ms", ...COLUMNS.map((c) => (c === "p999" ? "p99.9" : c)), "count"],
    ...rows.map(([name, s]) => [name, ...COLUMNS.map((c) => cell(s, c)), String(s.count)]),
  ];
  const widths = at(table, 0).map((_, i) => Math.max(...table.map((row) => at(row, i).length)));
  for (const row of table) lines.push(pad(row, widths));
  lines.push("");
  const censored = r.metrics.e2el_ms.censored;
  if (censored > 0) {
    lines.push(
      `${plural(censored, "request")} timed out or ${censored === 1 ? "was" : "were"} never sent: they count at the ${w.timeout_s} s timeout, and "≥" marks values that are only lower bounds.`,
    );
  }
  lines.push(...tokenLines(r));
  if (r.reconnects > 0) {
    lines.push(
      `reconnects: ${plural(r.reconnects, "request was", "requests were")} sent again on a fresh connection (the server had closed a kept-alive one); their latency still counts from the schedule`,
    );
  }
  lines.push(
    `throughput: ${r.throughput.output_tokens_per_s} output tokens/s, ${r.throughput.requests_per_s} ok requests/s`,
  );
  lines.push(
    `goodput: ${r.goodput.requests_per_s} requests/s (SLO ${w.slo}; attainment ${(r.goodput.attainment * 100).toFixed(1)} % of scheduled)`,
  );
  const v = r.validity;
  const l = v.limits;
  const skew = v.send_skew_ms.p99 === null ? "–" : v.send_skew_ms.p99.toFixed(2);
  const effect = (x: number | null) =>
    x === null ? "–" : `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)} %`;
  const optional = (label: string, limit: number | null, shown: string) =>
    limit === null ? "" : `, ${label} (≤ ${limit}) ${shown}`;
  lines.push(
    `self-check: ${v.valid ? "valid" : "INVALID"} — late sends moved ${l.percentile} TTFT ${effect(v.skew_effect.ttft)}, E2EL ${effect(v.skew_effect.e2el)} (≤ ${(l.max_skew_effect * 100).toFixed(1)} %), offered load ${v.offered_drift ? `${effect(v.offered_drift.drift)} in its worst ${v.offered_drift.window_s} s window` : "–"} (≤ ${(l.max_offered_drift * 100).toFixed(0)} %), ${v.late_sends} sends late by > ${v.late_send_ms ?? "–"} ms, send skew p99 ${skew} ms, unsent ${v.unsent} (≤ ${l.max_unsent}), event-loop delay p99 ${v.event_loop_delay_ms.p99.toFixed(1)} ms (≤ ${l.max_event_loop_delay_p99_ms}), GC ${(v.gc.share_of_window * 100).toFixed(2)} %, client CPU ${(v.client_cpu.share_of_core * 100).toFixed(0)} % of a core${v.workers ? ` (the busiest of ${v.workers} workers)` : ""} (≤ ${(l.max_client_cpu * 100).toFixed(0)} %)${optional("send-skew p99 limit", l.max_send_skew_p99_ms, "ms")}${optional("GC share limit", l.max_gc_share, "")}`,
  );
  for (const reason of v.reasons) lines.push(`  invalid: ${reason}`);
  for (const warning of v.warnings) lines.push(`  note: ${warning}`);
  const metrics = r.server_metrics;
  // A failed scrape fails that view, not the run; said, so its absence is not a mystery.
  if (metrics && "error" in metrics)
    lines.push(`server metrics: not read from ${metrics.url}: ${metrics.error}`);
  for (const [outcome, examples] of Object.entries(r.errors)) {
    const e = examples?.[0];
    if (!e) continue;
    const what = [
      e.status ? `HTTP ${e.status}` : "",
      e.detail ?? "",
      e.body ? `body ${e.body.slice(0, 160)}` : "",
    ]
      .filter(Boolean)
      .join(" · ");
    lines.push(`  ${outcome}: ${what}`);
  }
  return lines.join("\n");
}

export function formatProgress(p: Progress): string {
  return `[${p.elapsedS.toFixed(0).padStart(4)} s ${p.phase.padEnd(7)}] sent ${p.sent}/${p.total} · in flight ${p.inFlight} · done ${p.done} · not ok ${p.failed}`;
}

/**
 * "≈ 256 per request intended (4 characters per token), 271 counted by the
 * server (+5.9 %: its tokenizer and chat template)"; null without usage.
 */
export function promptWords(p: TrialReport["tokens"]["prompt"] | undefined): string | null {
  if (!p || p.intended_mean === null || p.server_mean === null) return null;
  const diff = p.intended_mean > 0 ? p.server_mean / p.intended_mean - 1 : 0;
  return `≈ ${compact(p.intended_mean)} per request intended (${p.counted_by}), ${compact(p.server_mean)} counted by the server (${signedPercent(diff)}: its tokenizer and chat template)`;
}
