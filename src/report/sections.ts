// The comment's sections under the table: outcome counts per arm, the
// self-checks, the servers the gate started, and the per-trial results.

import { ARMS } from "../common/arms.ts";
import { compact as num, percent } from "../common/format.ts";
import { OUTCOMES, zeroOutcomes } from "../common/outcomes.ts";
import { percentileLabel } from "../common/percentiles.ts";
import type { LatencySummary } from "../metrics/histogram.ts";
import type { ConfigDescription, GateResults } from "../results/model.ts";
import { details } from "./blocks.ts";
import { describeExample } from "./failures.ts";
import { rateLimitsLine } from "./rate-limits.ts";

export function outcomes(r: GateResults): string {
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
  const limits = rateLimitsLine(r);
  if (limits) lines.push("", limits);
  return `**Outcomes** (every scheduled request, all trials)\n\n${lines.join("\n")}`;
}

/** With trials split over worker threads, the probes are each worker's: say so. */
function workersNote(r: GateResults): string {
  const most = Math.max(1, ...r.trials.map((t) => t.report.validity.workers ?? 1));
  return most > 1 ? ` (the busiest worker's; up to ${most} workers a trial)` : "";
}

export function selfChecks(r: GateResults): string {
  const invalid = r.trials.filter((t) => !t.report.validity.valid);
  const worst = (f: (t: GateResults["trials"][number]) => number) =>
    Math.max(0, ...r.trials.map(f));
  const p = r.config ? percentileLabel(r.config.percentile) : "p95";
  const effect = worst((t) =>
    Math.max(t.report.validity.skew_effect.ttft ?? 0, t.report.validity.skew_effect.e2el ?? 0),
  );
  const summary = `late sends moved ${p} TTFT/E2EL by at most ${percent(effect)}, worst send skew p99 ${num(worst((t) => t.report.validity.send_skew_ms.p99 ?? 0))} ms, event-loop delay p99 ${num(worst((t) => t.report.validity.event_loop_delay_ms.p99))} ms, GC ${(worst((t) => t.report.validity.gc.share_of_window) * 100).toFixed(2)} %, client CPU ${(worst((t) => t.report.validity.client_cpu.share_of_core) * 100).toFixed(0)} % of a core${workersNote(r)}`;
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

export function servers(r: GateResults): string {
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

export function perTrial(r: GateResults, config: ConfigDescription): string {
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

/** The run's page, when the results name a GitHub run plainly (a neutralized file does not). */
function runUrl(r: GateResults): string | null {
  const g = r.environment.github;
  // No default: a file from another job has its URL neutralized, so it gets no link.
  const server = g?.server_url;
  if (!server || !g?.run_id || !/^\d+$/.test(g.run_id)) return null;
  if (!/^[\w.-]+\/[\w.-]+$/.test(g.repository) || !/^https:\/\/[\w.-]+(:\d+)?$/.test(server))
    return null;
  return `${server}/${g.repository}/actions/runs/${g.run_id}`;
}

/** A requests file as the comment names it: its file name, its lines, those not written. */
function fileOnRecord(file: NonNullable<GateResults["requests_file"]>): string {
  const name = (file.path.split("/").at(-1) ?? file.path).replace(/[`\r\n]/g, "'").slice(0, 200);
  const lost = file.dropped > 0 ? `, ${file.dropped} not written` : "";
  return `\`${name}\` (${file.lines} lines${lost})`;
}

/** Where every request is on record: the requests file (a merge: each shard's), and the run whose artifacts hold it. */
export function requestsOnRecord(r: GateResults): string | null {
  const shards = (r.shard_requests_files ?? []).filter((f) => f.lines > 0);
  // A merge sent nothing itself: each shard's job kept its own file.
  if (shards.length > 0)
    return `**Every request:** in each shard's requests file: ${shards.map(fileOnRecord).join(", ")}.`;
  const file = r.requests_file;
  if (!file || file.lines === 0) return null;
  const url = runUrl(r);
  const where = url ? ` — in [this run's artifacts](${url}) when the workflow uploads it` : "";
  return `**Every request:** ${fileOnRecord(file)}${where}.`;
}
