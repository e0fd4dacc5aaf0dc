// Before the first trial, each arm must really serve: GET {url}/models, then
// one real streamed completion. A dead endpoint fails the gate in seconds with
// the cause and the likely fix — not after every trial has run against it.
// Then the idle check: before each trial, until the server's metrics show
// nothing running or waiting (else one-token probes answer about as fast as
// idle), so a backlog left by the previous trial does not land in the next.

import { Agent } from "undici";
import type { Arm } from "../common/arms.ts";
import { compact } from "../common/format.ts";
import type { Target } from "../openai/target.ts";
import { metricsFetcher, readQueue, type ServerMetricsOptions } from "../servermetrics/scraper.ts";
import { type CompletionProbe, listModels, type ModelsAnswer, probeCompletion } from "./probe.ts";

export interface PreflightReport {
  arm: Arm;
  url: string;
  model: string;
  /** What GET /models listed (null when it did not answer a list). */
  models: string[] | null;
  /** TTFT of the first completion, and the fastest one-token probe: the idle reference. */
  first_ttft_ms: number;
  idle_ttft_ms: number;
  /** Time per output token of the first completion (null: one token only; absent in older files). */
  tpot_ms?: number | null;
  warnings: string[];
}

/** An arm failed its preflight: the message names it, the URL, the answer and the likely fix. */
export class PreflightError extends Error {
  override name = "PreflightError";
  readonly arm: Arm;
  readonly detail: string | undefined;

  constructor(arm: Arm, message: string, detail?: string) {
    super(message);
    this.arm = arm;
    this.detail = detail;
  }
}

const MODELS_TIMEOUT_MS = 5000;
const IDLE_REFERENCE_PROBES = 2;
/**
 * The first completion is tried this often, half a second apart: a server that
 * fails a few percent of its requests is a reliability finding for the trials,
 * not a dead endpoint. A dead one fails every attempt at once.
 */
const FIRST_ATTEMPTS = 3;

function answerOf(p: CompletionProbe): string {
  const parts = [
    p.status ? `HTTP ${p.status}` : "",
    p.errorType ? `type ${p.errorType}` : "",
    p.errorCode ? `code ${p.errorCode}` : "",
    p.detail ?? "",
  ].filter(Boolean);
  return `${p.outcome}${parts.length ? ` (${parts.join(", ")})` : ""}`;
}

/** The likely fix for a completion that failed, from both answers. */
function likelyFix(arm: Arm, target: Target, models: ModelsAnswer, probe: CompletionProbe): string {
  if (probe.outcome === "connect_error" || models.kind === "unreachable")
    return "is the server running, and are the host and port right?";
  if (probe.status === 401 || probe.status === 403)
    return `is the API key set (api-key or ${arm}-api-key, or LLM_PERF_GATE_API_KEY / OPENAI_API_KEY in the environment)?`;
  if (models.kind === "listed" && !models.ids.includes(target.model))
    return `the server lists: ${models.ids.join(", ") || "no model"} — set model (or ${arm}-model) to one of them`;
  if (models.kind === "not_json" || (models.kind === "http" && models.status === 404))
    return "does the URL end in /v1 (the OpenAI base URL, e.g. http://127.0.0.1:8000/v1)?";
  if (probe.outcome === "empty")
    return "the server answered 200 with no content: is the model loaded and the chat template right?";
  return "see the server's log";
}

export async function preflight(
  arm: Arm,
  target: Target,
  timeoutS: number,
): Promise<PreflightReport> {
  const agent = new Agent({ headersTimeout: 0, bodyTimeout: 0, connections: 1 });
  try {
    const models = await listModels(target, agent, MODELS_TIMEOUT_MS);
    let first = await probeCompletion(target, agent, 8, Math.min(timeoutS, 30) * 1000);
    for (let attempt = 1; attempt < FIRST_ATTEMPTS && first.outcome !== "ok"; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      first = await probeCompletion(target, agent, 8, Math.min(timeoutS, 30) * 1000);
    }
    if (first.outcome !== "ok" || first.ttftMs === undefined) {
      const fix = likelyFix(arm, target, models, first);
      throw new PreflightError(
        arm,
        `${arm}: the first completion from ${target.baseUrl} (model ${target.model}) failed ${FIRST_ATTEMPTS} times: ${answerOf(first)} — ${fix}`,
        first.body,
      );
    }
    const warnings: string[] = [];
    if (models.kind === "listed" && !models.ids.includes(target.model))
      warnings.push(
        `${target.baseUrl}/models does not list ${target.model} (it lists: ${models.ids.join(", ") || "nothing"}), but the server answers it`,
      );
    else if (models.kind !== "listed")
      warnings.push(`GET ${target.baseUrl}/models gave no model list, but completions work`);
    const probes: number[] = [];
    for (let i = 0; i < IDLE_REFERENCE_PROBES; i++) {
      const p = await probeCompletion(target, agent, 1, Math.min(timeoutS, 30) * 1000);
      if (p.outcome === "ok" && p.ttftMs !== undefined) probes.push(p.ttftMs);
    }
    return {
      arm,
      url: target.baseUrl,
      model: target.model,
      models: models.kind === "listed" ? models.ids : null,
      first_ttft_ms: round(first.ttftMs),
      idle_ttft_ms: round(Math.min(first.ttftMs, ...probes)),
      tpot_ms: first.tpotMs === undefined ? null : round(first.tpotMs),
      warnings,
    };
  } finally {
    await agent.close();
  }
}

export interface IdleCheck {
  /** How idleness was judged: the server's own queue (its /metrics), else one-token probes. */
  by: "metrics" | "probes";
  /** Scrapes or one-token probes made before the trial. */
  probes: number;
  waited_s: number;
  /** The trial started on a server still busy after idle-timeout. */
  busy: boolean;
  /** The last probe's TTFT, and the idle reference it was held to (by probes). */
  ttft_ms: number | null;
  idle_ttft_ms: number;
  /** The server's last running + waiting requests (by metrics); null by probes. */
  queued: number | null;
  /** A busy start in words; null when the server was idle. */
  note: string | null;
}

/** A probe is idle when it is at most twice the idle TTFT, or 25 ms above it (noise). */
export const idleBoundMs = (idleTtftMs: number) => Math.max(2 * idleTtftMs, idleTtftMs + 25);

const IDLE_POLL_MS = 200;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until the server is idle: its metrics show no request running or
 * waiting; a server whose metrics do not say is probed until a one-token
 * request is about as fast as idle.
 */
export async function waitIdle(
  target: Target,
  idleTtftMs: number,
  timeoutS: number,
  metrics: ServerMetricsOptions | null = null,
): Promise<IdleCheck> {
  const check = await untilIdle(target, idleTtftMs, timeoutS, metrics);
  return { ...check, note: check.busy ? describeBusy(check) : null };
}

type Unworded = Omit<IdleCheck, "note">;

async function untilIdle(
  target: Target,
  idleTtftMs: number,
  timeoutS: number,
  metrics: ServerMetricsOptions | null,
): Promise<Unworded> {
  const startMs = performance.now();
  const waitedS = () => (performance.now() - startMs) / 1000;
  if (metrics) {
    const fetcher = metricsFetcher();
    try {
      let scrapes = 0;
      for (;;) {
        const queue = await readQueue(metrics, target.model, fetcher.fetch);
        if (queue === null) break;
        scrapes++;
        const queued = queue.running + queue.waiting;
        if (queued === 0 || waitedS() >= timeoutS) {
          return {
            by: "metrics",
            probes: scrapes,
            waited_s: round(waitedS()),
            busy: queued > 0,
            ttft_ms: null,
            idle_ttft_ms: idleTtftMs,
            queued,
          };
        }
        await sleep(IDLE_POLL_MS);
      }
    } finally {
      await fetcher.close();
    }
  }
  return probeUntilIdle(target, idleTtftMs, timeoutS, startMs);
}

async function probeUntilIdle(
  target: Target,
  idleTtftMs: number,
  timeoutS: number,
  startMs: number,
): Promise<Unworded> {
  const agent = new Agent({ headersTimeout: 0, bodyTimeout: 0, connections: 1 });
  const bound = idleBoundMs(idleTtftMs);
  let probes = 0;
  let last: number | null = null;
  try {
    for (;;) {
      const leftMs = timeoutS * 1000 - (performance.now() - startMs);
      const p = await probeCompletion(target, agent, 1, Math.max(1000, leftMs));
      probes++;
      last = p.ttftMs ?? null;
      const idle = p.outcome === "ok" && p.ttftMs !== undefined && p.ttftMs <= bound;
      const waitedS = (performance.now() - startMs) / 1000;
      if (idle || waitedS >= timeoutS) {
        return {
          by: "probes",
          probes,
          waited_s: round(waitedS),
          busy: !idle,
          ttft_ms: last === null ? null : round(last),
          idle_ttft_ms: idleTtftMs,
          queued: null,
        };
      }
      await sleep(IDLE_POLL_MS);
    }
  } finally {
    await agent.close();
  }
}

const round = (v: number) => Math.round(v * 1000) / 1000;

/** A busy start in words. */
function describeBusy(check: Unworded): string {
  if (check.by === "metrics")
    return `started on a busy server: after ${compact(check.waited_s)} s its metrics still showed ${check.queued} requests running or waiting`;
  const ttft = check.ttft_ms === null ? "no answer" : `${compact(check.ttft_ms)} ms`;
  return `started on a busy server: after ${compact(check.waited_s)} s of probes its TTFT was ${ttft} (idle ${compact(check.idle_ttft_ms)} ms, bound ${compact(idleBoundMs(check.idle_ttft_ms))} ms)`;
}
