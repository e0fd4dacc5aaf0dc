// Operational probes: /v1/models lists the model, /health (when present)
// answers without a key, both keep answering while the server is busy, and a
// client that disconnects mid-stream frees its slot.

import { type Dispatcher, request } from "undici";
import { errorMessage } from "../common/errors.ts";
import {
  type FetchMetrics,
  readQueue,
  type ServerMetricsOptions,
} from "../servermetrics/scraper.ts";
import type { Exchange, ProbeRequest } from "./exchange.ts";
import { type ContractItem, evidenceOf, isObject, item, parseJson } from "./items.ts";

export interface OperationalDeps {
  send(probe: ProbeRequest, timeoutS?: number): Promise<Exchange>;
  /** A streamed chat request body with these fields. */
  chatBody(fields: Record<string, unknown>): string;
  chatRequest(body: string): ProbeRequest;
  model: string;
  authHeaders: Record<string, string>;
  dispatcher: Dispatcher;
  origin: string;
  metrics: { options: ServerMetricsOptions; fetch: FetchMetrics } | null;
  timeoutS: number;
}

const get = (path: string, headers: Record<string, string> = {}): ProbeRequest => ({
  method: "GET",
  path,
  headers,
});

export async function modelsItem(
  deps: OperationalDeps,
  modelsPath: string,
): Promise<ContractItem[]> {
  const ex = await deps.send(get(modelsPath, deps.authHeaders));
  const body = parseJson(ex.text);
  const data = isObject(body) && Array.isArray(body.data) ? body.data : [];
  const listed = data.some((m) => isObject(m) && m.id === deps.model);
  const value =
    ex.status !== 200
      ? `status ${ex.status}`
      : listed
        ? "lists the model"
        : "does not list the model";
  return [item("operational.models", ex.status === 200 && listed, value, evidenceOf(ex))];
}

/** /health without a key: 200, or absent (404); behind auth or failing is a break. */
export async function healthItem(
  deps: OperationalDeps,
): Promise<{ items: ContractItem[]; present: boolean }> {
  const ex = await deps.send(get("/health"));
  const present = ex.status !== 404;
  const holds = ex.status === 200 ? true : ex.status === 404 ? null : false;
  const value = ex.status === 404 ? "absent" : `status ${ex.status}`;
  return { items: [item("operational.health", holds, value, evidenceOf(ex))], present };
}

/** Concurrent streams that keep the server busy while /health and /v1/models are sampled. */
const BUSY_STREAMS = 16;
const BUSY_TOKENS = 128;
const SAMPLE_EVERY_MS = 250;
/** A sample slower than this is a stall (a load balancer's health check times out at a few seconds). */
const SAMPLE_LIMIT_S = 2;

interface Samples {
  statuses: number[];
  ms: number[];
}

function busyItem(id: string, s: Samples, evidence: string): ContractItem {
  const bad = s.statuses.filter((st, i) => st !== 200 || (s.ms[i] ?? 0) > SAMPLE_LIMIT_S * 1000);
  const maxMs = Math.round(Math.max(0, ...s.ms));
  const p50 = Math.round([...s.ms].sort((a, b) => a - b)[Math.floor(s.ms.length / 2)] ?? 0);
  const holds = s.statuses.length > 0 && bad.length === 0;
  const value = holds
    ? "answered while busy"
    : s.statuses.length === 0
      ? "not sampled"
      : "stalled or failed while busy";
  return item(
    id,
    holds,
    value,
    `${s.statuses.length} samples, statuses ${[...new Set(s.statuses)].join("/")}, p50 ${p50} ms, max ${maxMs} ms${evidence ? `; ${evidence}` : ""}`,
  );
}

/** Samples /health (when present) and /v1/models every 250 ms while 16 streams run. */
export async function underLoadItems(
  deps: OperationalDeps,
  modelsPath: string,
  healthPresent: boolean,
): Promise<ContractItem[]> {
  const body = deps.chatBody({ max_tokens: BUSY_TOKENS, ignore_eos: true });
  const streams = Array.from({ length: BUSY_STREAMS }, () => deps.send(deps.chatRequest(body)));
  let running = true;
  const all = Promise.all(streams).finally(() => {
    running = false;
  });
  const health: Samples = { statuses: [], ms: [] };
  const models: Samples = { statuses: [], ms: [] };
  const sample = async (path: string, into: Samples, headers: Record<string, string>) => {
    const ex = await deps.send(get(path, headers), SAMPLE_LIMIT_S + 1);
    into.statuses.push(ex.status);
    into.ms.push(ex.ms);
  };
  await new Promise((r) => setTimeout(r, 50));
  do {
    const started = performance.now();
    await Promise.all([
      healthPresent ? sample("/health", health, {}) : Promise.resolve(),
      sample(modelsPath, models, deps.authHeaders),
    ]);
    const wait = SAMPLE_EVERY_MS - (performance.now() - started);
    if (running && wait > 0) await new Promise((r) => setTimeout(r, wait));
  } while (running);
  const answered = await all;
  const ok = answered.filter((ex) => ex.status === 200).length;
  const evidence = `${ok} of ${BUSY_STREAMS} streams answered`;
  return [
    ...(healthPresent ? [busyItem("operational.busy.health", health, evidence)] : []),
    busyItem("operational.busy.models", models, evidence),
  ];
}

/** A stream far longer than the watch below on any server (4,000 tokens take seconds even on a fast one). */
const LEFT_STREAM_TOKENS = 4000;
/** Servers abort a left request at their next step: well within this. */
const FREED_WITHIN_MS = 1500;
/** How long the probe waits for the server to be idle before it starts. */
const IDLE_WITHIN_MS = 5000;

const unknown = (value: string, evidence: string): ContractItem[] => [
  item("operational.disconnect", null, value, evidence),
];

/** Polls the server's running + waiting until it is 0 or the time is up; null: the metrics did not answer. */
async function queuedWithin(deps: OperationalDeps, ms: number): Promise<number | null> {
  const metrics = deps.metrics;
  if (!metrics) return null;
  const deadline = performance.now() + ms;
  for (;;) {
    const queue = await readQueue(metrics.options, deps.model, metrics.fetch);
    if (queue === null) return null;
    const queued = queue.running + queue.waiting;
    if (queued === 0 || performance.now() >= deadline) return queued;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Opens a long stream, reads its first bytes and leaves (bounded by the probe's timeout). */
async function openAndLeave(deps: OperationalDeps): Promise<string | null> {
  const controller = new AbortController();
  const probe = deps.chatRequest(
    deps.chatBody({ max_tokens: LEFT_STREAM_TOKENS, ignore_eos: true }),
  );
  try {
    const res = await request(`${deps.origin}${probe.path}`, {
      method: "POST",
      headers: probe.headers,
      body: probe.body,
      dispatcher: deps.dispatcher,
      signal: AbortSignal.any([controller.signal, AbortSignal.timeout(deps.timeoutS * 1000)]),
    });
    for await (const _ of res.body) break;
    controller.abort(new Error("the client left"));
    return null;
  } catch (error) {
    return errorMessage(error).slice(0, 200);
  }
}

/**
 * A client that leaves mid-stream frees its slot: on an idle server, open a
 * long stream, leave after its first bytes, and watch the server's running +
 * waiting fall to 0. A server whose gauges only refresh on an engine step
 * (vLLM) is given one 1-token request before it is judged.
 */
export async function disconnectItem(deps: OperationalDeps): Promise<ContractItem[]> {
  if (!deps.metrics) return unknown("no metrics to tell", "the server exposes no running count");
  const idle = await queuedWithin(deps, IDLE_WITHIN_MS);
  if (idle === null) return unknown("no metrics to tell", "no running count on /metrics");
  if (idle > 0) return unknown("server not idle", `${idle} requests queued before the probe`);
  const failed = await openAndLeave(deps);
  if (failed !== null) return unknown("could not open a stream", failed);
  let queued = await queuedWithin(deps, FREED_WITHIN_MS);
  if (queued !== null && queued > 0) {
    await deps.send(deps.chatRequest(deps.chatBody({ max_tokens: 1 })));
    queued = await queuedWithin(deps, 500);
  }
  if (queued === null) return unknown("no metrics to tell", "/metrics stopped answering");
  return [
    item(
      "operational.disconnect",
      queued === 0,
      queued === 0 ? "freed its slot" : "kept generating",
      `${queued} requests running or waiting ${FREED_WITHIN_MS / 1000} s after the client left`,
    ),
  ];
}
