// What the accuracy suite will cost, said before its first request: the
// requests it sends at its first look and at its last (both arms and the
// baseline's re-run; the teacher-forced scoring not counted), and the time
// that takes at the preflight's measured speed — each item its TTFT and its
// max_tokens at the first completion's time per token, `concurrency` at a
// time — an upper bound (an answer that stops before max_tokens is sooner;
// batching slows each token: the first look's own time says which).

import { itemLooks } from "../accuracy/looks.ts";
import type { AccuracyOptions } from "../accuracy/options.ts";
import { ARMS, type Arm } from "../common/arms.ts";
import { plural } from "../common/format.ts";
import type { PreflightReport } from "../servers/preflight.ts";
import { AUTO_CONCURRENCY } from "./accuracy-run.ts";

export interface SuitePlan {
  suite: "accuracy";
  /** Items at the first look and at the last. */
  items: { first: number; most: number };
  /** Requests sent by then, both arms and the re-run. */
  requests: { first: number; most: number };
  /** At the preflight's speed, at most (s); null: a speed was not measured (one token, or no preflight yet). */
  seconds: { first: number; most: number } | null;
}

/** Seconds an arm takes to answer n items `concurrency` at a time at its preflight's speed; null: unknown. */
function armSeconds(
  p: PreflightReport | undefined,
  n: number,
  maxTokens: number,
  concurrency: number,
): number | null {
  if (!p || p.tpot_ms === undefined || p.tpot_ms === null) return null;
  const perItemMs = p.idle_ttft_ms + maxTokens * p.tpot_ms;
  return (Math.ceil(n / concurrency) * perItemMs) / 1000;
}

/** The accuracy suite's plan from the arms' preflights (null: no accuracy suite). */
export function accuracyPlan(
  a: AccuracyOptions | undefined,
  preflights: Partial<Record<Arm, PreflightReport>>,
): SuitePlan | null {
  if (!a) return null;
  const looks = itemLooks(a.firstLook, a.suite.items.length);
  const first = looks[0] ?? 0;
  const most = looks.at(-1) ?? first;
  const requests = (n: number) => 2 * n + Math.round(n * a.floorShare);
  const maxTokens =
    a.suite.items.reduce((s, i) => s + i.maxTokens, 0) / Math.max(1, a.suite.items.length);
  const concurrency = a.concurrency === "auto" ? AUTO_CONCURRENCY : a.concurrency;
  const at = (n: number): number | null => {
    // The baseline answers its re-run too.
    const per = ARMS.map((arm) =>
      armSeconds(
        preflights[arm],
        arm === "baseline" ? n + Math.round(n * a.floorShare) : n,
        maxTokens,
        concurrency,
      ),
    );
    return per.some((s) => s === null) ? null : per.reduce<number>((t, s) => t + (s ?? 0), 0);
  };
  const [sFirst, sMost] = [at(first), at(most)];
  return {
    suite: "accuracy",
    items: { first, most },
    requests: { first: requests(first), most: requests(most) },
    seconds:
      sFirst === null || sMost === null
        ? null
        : { first: Math.round(sFirst * 10) / 10, most: Math.round(sMost * 10) / 10 },
  };
}

const time = (s: number) => (s < 120 ? `${Math.round(s)} s` : `${(s / 60).toFixed(1)} min`);

/** The plan in one line, for the log. */
export function suitePlanLine(p: SuitePlan, concurrency: number | "auto"): string {
  const looks =
    p.items.first === p.items.most
      ? `${plural(p.items.first, "item")}, ${p.requests.first.toLocaleString("en-US")} requests`
      : `${p.items.first.toLocaleString("en-US")} items at the first look (${p.requests.first.toLocaleString("en-US")} requests), up to ${p.items.most.toLocaleString("en-US")} (${p.requests.most.toLocaleString("en-US")})`;
  const at =
    concurrency === "auto"
      ? `${AUTO_CONCURRENCY} at a time unless the servers say`
      : `${concurrency} at a time`;
  const seconds = p.seconds
    ? `: at most ${time(p.seconds.first)}${p.items.first === p.items.most ? "" : ` to ${time(p.seconds.most)}`} at the preflight's speed, ${at}`
    : `, ${at} (no speed measured to time them)`;
  return `plan: accuracy: ${looks}${seconds}`;
}
