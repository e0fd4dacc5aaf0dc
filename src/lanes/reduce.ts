// The history reduced: each burst to its pass rate against the floor, p90 and
// retry rate; each lane's busiest window; and the rule written before
// measuring — choose a lane whose every burst passes ≥ 90 % with retries
// < 5 % over the last 3 days; graduate (move the task class up a tier) when
// the day's busiest burst passes < 80 % on 2 of those days or retries exceed
// 10 %; otherwise hold.

import type { Outcome } from "../common/outcomes.ts";
import type { HistoryRow } from "./history.ts";
import type { LanesSpec } from "./spec.ts";

export type Rule = LanesSpec["rule"];

export const LANES_REPORT_SCHEMA = "llm-perf-gate/lanes-report@1";

export const DEFAULT_RULE: Rule = {
  days: 3,
  choose_min_pass: 0.9,
  choose_max_retry: 0.05,
  graduate_below_pass: 0.8,
  graduate_days: 2,
  graduate_above_retry: 0.1,
};

export interface BurstStats {
  lane: string;
  window: string;
  date: string;
  started_at: string;
  requests: number;
  passed: number;
  pass_rate: number;
  /** Of the ok requests' latencies (the floor's); with 8 requests it is their slowest. */
  p90_ms: number | null;
  /** Attempts beyond the first, per request. */
  retry_rate: number;
  /** Final outcomes that were not ok, and the classes of every failed attempt. */
  failures: Partial<Record<Outcome, number>>;
  failed_attempts: Partial<Record<Outcome, number>>;
}

export type LaneVerdict = "choose" | "hold" | "graduate";

export interface LaneResult {
  lane: string;
  verdict: LaneVerdict;
  why: string;
  /** The days the rule looked at (the last `days` with bursts), and whether there are enough. */
  days: string[];
  enough_days: boolean;
  /** The window with the lowest pass rate over those days (ties: the higher p90). */
  busiest_window: string | null;
  busiest_window_pass_rate: number | null;
  /** The worst single burst. */
  worst_burst: { window: string; date: string; pass_rate: number } | null;
  retry_rate: number;
}

export interface LanesReport {
  floor: HistoryRow["floor"] | null;
  rule: Rule;
  bursts: BurstStats[];
  lanes: LaneResult[];
  /** Rows outside every window: kept in the history, not judged. */
  off_window_rows: number;
}

const count = <K extends string>(keys: readonly K[]) => {
  const out: Partial<Record<K, number>> = {};
  for (const k of keys) out[k] = (out[k] ?? 0) + 1;
  return out;
};

function burstStats(rows: HistoryRow[]): BurstStats {
  const first = rows[0] as HistoryRow;
  const latency = (r: HistoryRow) => (r.floor.latency === "ttft" ? r.ttft_ms : r.full_answer_ms);
  const ok = rows.flatMap((r) => latency(r) ?? []).sort((a, b) => a - b);
  const passed = rows.filter((r) => r.passed).length;
  return {
    lane: first.lane,
    window: first.window as string,
    date: first.local_date,
    started_at: first.started_at,
    requests: rows.length,
    passed,
    pass_rate: passed / rows.length,
    // Nearest rank, a value that was measured: of 8 requests, the slowest.
    p90_ms: ok.length === 0 ? null : (ok[Math.ceil(0.9 * ok.length) - 1] as number),
    retry_rate: rows.reduce((a, r) => a + Math.max(0, r.attempts - 1), 0) / rows.length,
    failures: count(rows.filter((r) => r.outcome !== "ok").map((r) => r.outcome)),
    failed_attempts: count(rows.flatMap((r) => r.failed_attempts)),
  };
}

const pct = (x: number) => `${Math.round(x * 100)} %`;

export function reduceHistory(rows: readonly HistoryRow[], rule: Rule = DEFAULT_RULE): LanesReport {
  const byBurst = new Map<string, HistoryRow[]>();
  for (const r of rows) {
    if (r.window === null) continue;
    const key = `${r.lane}\u0000${r.started_at}`;
    const list = byBurst.get(key);
    if (list) list.push(r);
    else byBurst.set(key, [r]);
  }
  const bursts = [...byBurst.values()]
    .map(burstStats)
    .sort((a, b) => a.lane.localeCompare(b.lane) || a.started_at.localeCompare(b.started_at));
  const lanes = [...new Set(rows.map((r) => r.lane))].sort();
  return {
    floor: rows.at(-1)?.floor ?? null,
    rule,
    bursts,
    lanes: lanes.map((lane) =>
      judge(
        lane,
        bursts.filter((b) => b.lane === lane),
        rule,
      ),
    ),
    off_window_rows: rows.filter((r) => r.window === null).length,
  };
}

function judge(lane: string, all: BurstStats[], rule: Rule): LaneResult {
  const days = [...new Set(all.map((b) => b.date))].sort().slice(-rule.days);
  const bursts = all.filter((b) => days.includes(b.date));
  const requests = bursts.reduce((a, b) => a + b.requests, 0);
  const retryRate =
    requests === 0 ? 0 : bursts.reduce((a, b) => a + b.retry_rate * b.requests, 0) / requests;
  const windows = [...new Set(bursts.map((b) => b.window))].map((window) => {
    const mine = bursts.filter((b) => b.window === window);
    const n = mine.reduce((a, b) => a + b.requests, 0);
    const p90s = mine.flatMap((b) => b.p90_ms ?? []);
    return {
      window,
      passRate: mine.reduce((a, b) => a + b.passed, 0) / n,
      p90: p90s.length === 0 ? Number.POSITIVE_INFINITY : Math.max(...p90s),
    };
  });
  windows.sort((a, b) => a.passRate - b.passRate || b.p90 - a.p90);
  const busiest = windows[0];
  const slowest = (b: BurstStats) => b.p90_ms ?? Number.POSITIVE_INFINITY;
  // The busiest burst: the lowest pass rate; among equals, the slowest.
  const worst = [...bursts].sort((a, b) => a.pass_rate - b.pass_rate || slowest(b) - slowest(a))[0];
  const enough = days.length >= rule.days;
  const dayWord = `${days.length} day${days.length === 1 ? "" : "s"}`;
  // The day's busiest burst: its lowest pass rate.
  const badDays = days.filter(
    (d) =>
      Math.min(...bursts.filter((b) => b.date === d).map((b) => b.pass_rate)) <
      rule.graduate_below_pass,
  );
  const base = {
    lane,
    days,
    enough_days: enough,
    busiest_window: busiest?.window ?? null,
    busiest_window_pass_rate: busiest ? busiest.passRate : null,
    worst_burst: worst
      ? { window: worst.window, date: worst.date, pass_rate: worst.pass_rate }
      : null,
    retry_rate: retryRate,
  };
  if (!worst) return { ...base, verdict: "hold", why: "no burst in any window yet" };
  if (badDays.length >= rule.graduate_days)
    return {
      ...base,
      verdict: "graduate",
      why: `its busiest burst passed under ${pct(rule.graduate_below_pass)} on ${badDays.length} of ${dayWord} (${badDays.join(", ")}; busiest window ${busiest?.window}, ${pct(busiest?.passRate ?? 0)})`,
    };
  if (retryRate > rule.graduate_above_retry)
    return {
      ...base,
      verdict: "graduate",
      why: `retries were ${pct(retryRate)} of requests over ${dayWord}, above ${pct(rule.graduate_above_retry)}`,
    };
  const worstWords = `its busiest burst (${worst.window} on ${worst.date}) passed ${pct(worst.pass_rate)}`;
  if (!enough)
    return {
      ...base,
      verdict: "hold",
      why: `${dayWord} of ${rule.days} measured: not enough days yet (${worstWords}, retries ${pct(retryRate)})`,
    };
  if (worst.pass_rate >= rule.choose_min_pass && retryRate < rule.choose_max_retry)
    return {
      ...base,
      verdict: "choose",
      why: `${worstWords}, at least ${pct(rule.choose_min_pass)}, and retries were ${pct(retryRate)} over ${dayWord}, under ${pct(rule.choose_max_retry)}`,
    };
  const short =
    worst.pass_rate < rule.choose_min_pass
      ? `${worstWords}, under ${pct(rule.choose_min_pass)}`
      : `retries were ${pct(retryRate)}, not under ${pct(rule.choose_max_retry)}`;
  return { ...base, verdict: "hold", why: `${short}; not bad enough to graduate` };
}
