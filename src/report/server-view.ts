// The servers' own view in the comment: one line up top saying where a TTFT
// rise went (queue time or compute, from the servers' histograms), and a table
// of both arms' queue, batch, KV cache and server-side latencies below.

import { count, compact as num, percent, signedMs } from "../common/format.ts";
import { RUNTIME_LABELS } from "../common/runtimes.ts";
import type { GateResults } from "../results/model.ts";
import type { ArmServerView } from "../servermetrics/compare.ts";
import { details } from "./blocks.ts";

const MAX_NAMES = 8;

/** "Where the TTFT went", and why a server's metrics are missing; "" when there is nothing to say. */
export function serverViewLine(r: GateResults): string {
  const v = r.server_view;
  if (!v) return "";
  const lines: string[] = [];
  if (v.ttft?.words)
    lines.push(
      `**Where the TTFT went** (the servers' own metrics, means over ${v.ttft.pairs} pair${v.ttft.pairs === 1 ? "" : "s"}): ${v.ttft.words}.`,
    );
  const failed = (["baseline", "candidate"] as const).filter(
    (a) => v[a].trials === 0 && v[a].failed > 0,
  );
  if (failed.length > 0)
    lines.push(
      `Server metrics not read from ${failed.map((a) => `the ${a} (${v[a].errors[0]})`).join(" nor ")}: no server view${failed.length === 2 ? "" : " for it"} (set metrics-url, or none).`,
    );
  return lines.join("\n\n");
}

function label(a: ArmServerView): string {
  return a.runtime ? RUNTIME_LABELS[a.runtime] : a.trials > 0 ? "unknown runtime" : "not read";
}

export function serverViewSection(r: GateResults): string {
  const v = r.server_view;
  if (!v || v.baseline.trials + v.candidate.trials === 0) return "";
  const { baseline: b, candidate: c } = v;
  const rows: string[] = [];
  const row = (name: string, show: (a: ArmServerView) => string | null) => {
    const x = show(b);
    const y = show(c);
    if (x !== null || y !== null) rows.push(`| ${name} | ${x ?? "–"} | ${y ?? "–"} |`);
  };
  const gauge = (g: "running" | "waiting", a: ArmServerView) =>
    a.gauges[g] ? `${num(a.gauges[g].mean)} / ${count(a.gauges[g].max)}` : null;
  row("requests running (mean / max)", (a) => gauge("running", a));
  row("requests waiting (mean / max)", (a) => gauge("waiting", a));
  row("KV-cache usage (mean / max)", (a) => {
    const kv = a.gauges.kv_cache_usage;
    return kv ? `${percent(kv.mean, 0)} / ${percent(kv.max, 0)}` : null;
  });
  row("preemptions per trial", (a) =>
    a.preemptions_per_trial === null ? null : count(a.preemptions_per_trial),
  );
  row("prefix-cache hit rate", (a) =>
    a.prefix_cache_hit_rate === null ? null : percent(a.prefix_cache_hit_rate),
  );
  row("spec-decode acceptance", (a) =>
    a.spec_decode_acceptance == null ? null : percent(a.spec_decode_acceptance),
  );
  row("tokens per decode step (spec decode)", (a) =>
    a.spec_decode_tokens_per_step == null ? null : num(a.spec_decode_tokens_per_step),
  );
  const hist = (h: "ttft" | "queue_time" | "itl" | "e2e", a: ArmServerView) => {
    const s = a.histograms[h];
    return s ? `${num(s.mean_ms)} / ${s.p95_bound}${num(s.p95_ms)}` : null;
  };
  row("server TTFT, ms (mean / p95*)", (a) => hist("ttft", a));
  row("queue time, ms (mean / p95*)", (a) => hist("queue_time", a));
  row("ITL, ms (mean / p95*)", (a) => hist("itl", a));
  row("end-to-end, ms (mean / p95*)", (a) => hist("e2e", a));
  const names = (list: string[]) =>
    list.length <= MAX_NAMES
      ? list.map((n) => `\`${n}\``).join(", ")
      : `${list
          .slice(0, MAX_NAMES)
          .map((n) => `\`${n}\``)
          .join(", ")} and ${list.length - MAX_NAMES} more`;
  const onlyIn = (["baseline", "candidate"] as const)
    .filter((a) => v.only_in[a].length > 0)
    .map((a) => `- only the ${a} exposes ${names(v.only_in[a])}`);
  const notes = (["baseline", "candidate"] as const).flatMap((a) =>
    v[a].notes.map((n) => `- ${a}: ${n}`),
  );
  const breakdown = v.ttft
    ? [
        "",
        `Mean TTFT change, candidate − baseline (median over ${v.ttft.pairs} pairs): client ${signedMs(v.ttft.client_ms)}, server ${signedMs(v.ttft.server_ttft_ms)}, of it queue time ${signedMs(v.ttft.queue_ms)}.`,
      ]
    : [];
  return details(
    `Server view (${label(b)} vs ${label(c)}, from their /metrics)`,
    [
      `| median over trials | baseline | candidate |`,
      "|---|--:|--:|",
      ...rows,
      "",
      `Gauges: the scrapes inside each measurement window; counters and histograms: the change from before each trial to after it drained (warm-up requests included). \\* p95 interpolated within the server's histogram buckets, only as fine as they are (≤: inside the lowest bucket); means (sum ÷ count) are exact.`,
      ...breakdown,
      ...(onlyIn.length > 0
        ? ["", "Metric names one arm exposes and the other does not:", ...onlyIn]
        : []),
      ...(notes.length > 0 ? ["", ...notes] : []),
    ].join("\n"),
  );
}
