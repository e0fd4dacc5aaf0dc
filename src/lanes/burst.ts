// One burst on every lane at once: the lanes file's task sent `size` times per
// lane (at once, or one every spacing_s), each request retried as the policy
// says — waiting out a retry-after when the server sends one — and reduced to
// one history row: its final attempt's class, its latency from its scheduled
// time across every attempt, and the classes of the attempts that failed.

import { Agent } from "undici";
import { InputError, shownValue } from "../common/errors.ts";
import type { Outcome } from "../common/outcomes.ts";
import { sendOnce } from "../load/once.ts";
import { classify } from "../load/outcome.ts";
import type { Target } from "../openai/target.ts";
import { HISTORY_SCHEMA, type HistoryRow } from "./history.ts";
import type { Lane, LanesSpec } from "./spec.ts";
import { localClock, windowOf } from "./windows.ts";

export interface BurstDeps {
  /** Monotonic ms, for latencies. */
  now?: () => number;
  /** Wall time, for the window and the local date. */
  date?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  /** Where api_key_env is looked up. */
  env?: Record<string, string | undefined>;
}

interface Attempt {
  outcome: Outcome;
  /** From the request's scheduled time (ms); NaN when it did not happen. */
  firstOutputMs: number;
  endMs: number;
  retryAfterS: number | undefined;
}

/** Seconds, or an HTTP date; undefined when absent or unreadable. */
export function retryAfterS(value: string | undefined, nowDate: Date): number | undefined {
  if (value === undefined) return undefined;
  const s = Number(value.trim());
  if (Number.isFinite(s) && s >= 0) return s;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - nowDate.getTime()) / 1000);
}

function targetOf(lane: Lane, env: Record<string, string | undefined>): Target {
  const key = lane.api_key_env ? env[lane.api_key_env] : undefined;
  return {
    baseUrl: lane.url.replace(/\/+$/, ""),
    model: lane.model,
    endpoint: "chat",
    apiKey: key === "" ? undefined : key,
    headers: {},
    extraBody: {},
    includeUsage: true,
    ignoreEos: false,
    temperature: 0,
  };
}

async function attempt(
  target: Target,
  agent: Agent,
  spec: LanesSpec,
  now: () => number,
  date: () => Date,
): Promise<Attempt> {
  const r = await sendOnce(
    target,
    agent,
    spec.task.messages,
    spec.task.max_tokens,
    spec.task.timeout_s * 1000,
    now,
  );
  return {
    outcome: classify(r),
    firstOutputMs: r.firstOutputMs,
    endMs: r.endMs,
    retryAfterS: retryAfterS(r.headers?.["retry-after"], date()),
  };
}

/** Runs one burst on every lane in parallel; one row per request. */
export async function burstLanes(spec: LanesSpec, deps: BurstDeps = {}): Promise<HistoryRow[]> {
  const now = deps.now ?? (() => performance.now());
  const date = deps.date ?? (() => new Date());
  const sleep = deps.sleep ?? ((ms) => new Promise<void>((r) => setTimeout(r, ms)));
  const env = deps.env ?? process.env;
  // A lane that names a key's variable and finds none would burst unauthenticated:
  // every request a 401, read as the lane's failure. Refused before any request.
  for (const lane of spec.lanes) {
    if (lane.api_key_env && !env[lane.api_key_env])
      throw new InputError(
        `lane "${lane.name}": api_key_env names ${shownValue(lane.api_key_env)}, which is not set (or empty) in the environment; set it, or remove api_key_env for a lane without a key`,
      );
  }
  const started = date();
  const local = localClock(started, spec.windows.time_zone);
  const window = windowOf(local.minutes, spec.windows);
  const perLane = await Promise.all(
    spec.lanes.map(async (lane) => {
      const target = targetOf(lane, env);
      const agent = new Agent({ connections: spec.burst.size, headersTimeout: 0, bodyTimeout: 0 });
      const t0 = now();
      try {
        return await Promise.all(
          Array.from({ length: spec.burst.size }, async (_, index): Promise<HistoryRow> => {
            const scheduledMs = t0 + index * spec.burst.spacing_s * 1000;
            await sleep(Math.max(0, scheduledMs - now()));
            const failed: Outcome[] = [];
            let last: Attempt;
            for (let k = 1; ; k++) {
              last = await attempt(target, agent, spec, now, date);
              if (
                last.outcome === "ok" ||
                !spec.retry.on.includes(last.outcome) ||
                k >= spec.retry.max_attempts
              )
                break;
              failed.push(last.outcome);
              const backoffS = spec.retry.backoff_s * 2 ** (k - 1);
              const waitS = Math.min(
                spec.retry.max_wait_s,
                Math.max(backoffS, last.retryAfterS ?? 0),
              );
              await sleep(waitS * 1000);
            }
            if (last.outcome !== "ok") failed.push(last.outcome);
            const from = (t: number) =>
              Number.isNaN(t) ? null : Math.round((t - scheduledMs) * 10) / 10;
            const ttftMs = last.outcome === "ok" ? from(last.firstOutputMs) : null;
            const fullMs = last.outcome === "ok" ? from(last.endMs) : null;
            const latencyMs = spec.floor.latency === "ttft" ? ttftMs : fullMs;
            return {
              schema: HISTORY_SCHEMA,
              lane: lane.name,
              window,
              local_date: local.date,
              local_time: local.time,
              started_at: started.toISOString(),
              index,
              outcome: last.outcome,
              ttft_ms: ttftMs,
              full_answer_ms: fullMs,
              floor: { latency: spec.floor.latency, ms: spec.floor.ms },
              passed: latencyMs !== null && latencyMs <= spec.floor.ms,
              attempts: failed.length + (last.outcome === "ok" ? 1 : 0),
              failed_attempts: failed,
            };
          }),
        );
      } finally {
        await agent.close();
      }
    }),
  );
  return perLane.flat();
}
