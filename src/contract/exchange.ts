// One probe request and everything that came back, uninterpreted: the status,
// the headers the contract reads, the body (capped, within a deadline) and,
// for a stream, its events in order. The contract compares wire shapes, so
// nothing is repaired here.

import { type Dispatcher, request } from "undici";
import { readCappedBody } from "../common/body.ts";
import { errorCode, errorMessage } from "../common/errors.ts";
import { RECONNECTABLE } from "../openai/connection.ts";
import { keptHeaders } from "../openai/headers.ts";
import { SseParser } from "../openai/sse.ts";

export interface ProbeRequest {
  method: "GET" | "POST";
  /** Path below the target's origin, e.g. /v1/chat/completions. */
  path: string;
  headers: Record<string, string>;
  /** Sent as given: a probe may send a malformed body on purpose. */
  body?: string;
}

/** One SSE event; `field` names a non-standard field (llama.cpp's `error:`) carried as data. */
export interface WireEvent {
  event: string;
  data: string;
  field?: string;
}

export interface Exchange {
  /** 0 when no response came (error says why). */
  status: number;
  headers: Record<string, string>;
  /** The body as text (a stream's raw text too), cut at the cap. */
  text: string;
  /** A stream's events (content-type text/event-stream), else []. */
  events: WireEvent[];
  error: string | null;
  ms: number;
}

/** A probe's answer is short (≤ 64 tokens); anything longer than this is not a probe's answer. */
const MAX_BODY_BYTES = 1024 * 1024;

const READ_HEADERS =
  /^(content-type|cache-control|x-accel-buffering|retry-after|server|x-ratelimit-.*)$/;

export function sseEvents(text: string): WireEvent[] {
  const events: WireEvent[] = [];
  const parser = new SseParser({
    onEvent: (e) => events.push({ event: e.event, data: e.data }),
    onUnknownField: (name, value) => events.push({ event: "", data: value, field: name }),
  });
  parser.push(Buffer.from(text, "utf8"));
  parser.end();
  return events;
}

/** Sends one request (once more on a fresh connection if a kept-alive one was closed) and reads it whole. */
export async function exchange(
  dispatcher: Dispatcher,
  origin: string,
  probe: ProbeRequest,
  timeoutS: number,
): Promise<Exchange> {
  const startMs = performance.now();
  const signal = AbortSignal.timeout(timeoutS * 1000);
  const done = (part: Partial<Exchange>): Exchange => ({
    status: 0,
    headers: {},
    text: "",
    events: [],
    error: null,
    ms: performance.now() - startMs,
    ...part,
  });
  let res: Dispatcher.ResponseData | undefined;
  for (let attempt = 0; !res; attempt++) {
    try {
      res = await request(`${origin}${probe.path}`, {
        method: probe.method,
        headers: probe.headers,
        body: probe.body,
        dispatcher,
        signal,
      });
    } catch (error) {
      if (attempt === 0 && RECONNECTABLE.has(errorCode(error) ?? "")) continue;
      return done({ error: errorMessage(error) });
    }
  }
  const headers = keptHeaders(res.headers, READ_HEADERS) ?? {};
  try {
    const text = (await readCappedBody(res.body, MAX_BODY_BYTES)).toString("utf8");
    const stream = (headers["content-type"] ?? "").startsWith("text/event-stream");
    return done({ status: res.statusCode, headers, text, events: stream ? sseEvents(text) : [] });
  } catch (error) {
    return done({ status: res.statusCode, headers, error: errorMessage(error) });
  }
}
