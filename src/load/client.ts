// Sends one streaming completion with undici's lowest-level API (dispatch with
// a handler: a callback per received chunk, no stream objects) and fills its
// record with timestamps from the injected clock.

import type { Dispatcher } from "undici";
import type { RequestRecord } from "./record.ts";
import { SseParser } from "./sse.ts";
import { applyStreamEvent, excerpt } from "./stream.ts";

export type Endpoint = "chat" | "completions";

export interface Target {
  /** OpenAI base URL, e.g. http://127.0.0.1:8000/v1 */
  baseUrl: string;
  model: string;
  endpoint: Endpoint;
  /** Sent as a bearer token; never logged or reported. */
  apiKey: string | undefined;
  headers: Record<string, string>;
  /** Extra JSON body fields, merged last (they may override ours). */
  extraBody: Record<string, unknown>;
  includeUsage: boolean;
  ignoreEos: boolean;
  temperature: number;
}

const BODY_EXCERPT_BYTES = 2048;
/** Response headers worth keeping to explain a failure; nothing else is kept. */
const KEPT_HEADER = /^(content-type|retry-after|x-ratelimit-.*|x-request-id|server|via)$/;

export function requestPath(target: Target): string {
  const base = new URL(target.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, "");
  return `${prefix}${target.endpoint === "chat" ? "/chat/completions" : "/completions"}`;
}

/** The headers of a completion request; `accept: text/event-stream` only when streaming. */
export function requestHeaders(target: Target, stream = true): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    ...(stream ? { accept: "text/event-stream" } : {}),
    ...target.headers,
  };
  if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
  return headers;
}

export function requestBody(
  target: Target,
  messages: { role: string; content: string }[],
  maxTokens: number,
): string {
  const body: Record<string, unknown> = { model: target.model };
  if (target.endpoint === "chat") body.messages = messages;
  else body.prompt = messages.map((m) => m.content).join("\n");
  if (maxTokens > 0) body.max_tokens = maxTokens;
  body.temperature = target.temperature;
  body.stream = true;
  if (target.includeUsage) body.stream_options = { include_usage: true };
  if (target.ignoreEos) body.ignore_eos = true;
  return JSON.stringify({ ...body, ...target.extraBody });
}

function keptHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (KEPT_HEADER.test(lower) && value !== undefined) {
      kept[lower] = excerpt(Array.isArray(value) ? value.join(", ") : value, 200);
    }
  }
  return kept;
}

/** Handle for aborting an in-flight request. */
export interface InFlight {
  abort(reason: Error): void;
}

/**
 * Dispatches the request and calls onDone exactly once, when the response
 * ended, failed or was aborted. Timestamps go into the record.
 */
export function sendCompletion(
  dispatcher: Dispatcher,
  origin: string,
  path: string,
  headers: Record<string, string>,
  body: string,
  record: RequestRecord,
  now: () => number,
  onDone: (r: RequestRecord) => void,
): InFlight {
  let controller: Dispatcher.DispatchController | undefined;
  let pendingAbort: Error | undefined;
  let finished = false;
  let sse: SseParser | undefined;
  let rawBody = "";
  const finish = () => {
    if (finished) return;
    finished = true;
    record.endMs = now();
    onDone(record);
  };
  const handler: Dispatcher.DispatchHandler = {
    onRequestStart(c) {
      controller = c;
      if (pendingAbort) c.abort(pendingAbort);
    },
    onResponseStart(_c, statusCode, responseHeaders) {
      record.headersMs = now();
      record.status = statusCode;
      const type = String(responseHeaders["content-type"] ?? "");
      const streaming =
        statusCode >= 200 && statusCode < 300 && type.startsWith("text/event-stream");
      if (streaming) {
        sse = new SseParser({ onEvent: (e) => applyStreamEvent(record, e.data, now()) });
      } else {
        record.headers = keptHeaders(responseHeaders);
        if (statusCode >= 200 && statusCode < 300) {
          record.protocolError = `expected an SSE stream (text/event-stream), got content-type "${type}"`;
        }
      }
    },
    onResponseData(_c, chunk) {
      if (Number.isNaN(record.firstByteMs)) record.firstByteMs = now();
      if (sse) sse.push(chunk);
      else if (rawBody.length < BODY_EXCERPT_BYTES) rawBody += chunk.toString("utf8");
    },
    onResponseEnd() {
      if (sse) record.incompleteEvent = sse.end();
      else record.body = excerpt(rawBody, BODY_EXCERPT_BYTES);
      finish();
    },
    onResponseError(_c, error) {
      if (!record.timedOut) {
        const code = (error as { code?: string }).code;
        record.transportError = excerpt(code ? `${code}: ${error.message}` : error.message, 200);
      }
      if (sse) record.incompleteEvent = sse.end();
      else if (rawBody) record.body = excerpt(rawBody, BODY_EXCERPT_BYTES);
      finish();
    },
  };
  record.dispatchMs = now();
  dispatcher.dispatch(
    { origin, path, method: "POST", headers, body, headersTimeout: 0, bodyTimeout: 0 },
    handler,
  );
  return {
    abort(reason) {
      if (finished) return;
      if (controller) controller.abort(reason);
      else pendingAbort = reason;
    },
  };
}
