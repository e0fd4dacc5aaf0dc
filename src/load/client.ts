// Sends one streaming completion with undici's lowest-level API (dispatch with
// a handler: a callback per received chunk, no stream objects) and fills its
// record with timestamps from the injected clock.

import { Client, type Dispatcher } from "undici";
import { errorCode } from "../common/errors.ts";
import { RECONNECTABLE } from "../openai/connection.ts";
import { keptHeaders } from "../openai/headers.ts";
import { excerpt } from "../openai/response.ts";
import { SseParser } from "../openai/sse.ts";
import type { RequestRecord } from "./record.ts";
import { applyStreamEvent, applyUnknownField } from "./stream.ts";

const BODY_EXCERPT_BYTES = 2048;
/** Response headers worth keeping to explain a failure; nothing else is kept. */
const KEPT_HEADER = /^(content-type|retry-after|x-ratelimit-.*|x-request-id|server|via)$/;
/** What a stream keeps: the limits its server announces (none: nothing kept, nothing allocated). */
const RATE_LIMIT_HEADER = /^(retry-after|x-ratelimit-.*)$/;
/** A replica's name, as a header gives it: what a timeline keeps of it (63 and an ellipsis: the schemas' 64). */
const REPLICA_CHARS = 63;

/** Where a request goes: the connection pool, the endpoint, its headers, and the header naming the replica that answered. */
export interface Route {
  dispatcher: Dispatcher;
  origin: string;
  path: string;
  headers: Record<string, string>;
  replicaHeader?: string | undefined;
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
  route: Route,
  body: string,
  record: RequestRecord,
  now: () => number,
  onDone: (r: RequestRecord) => void,
): InFlight {
  const { dispatcher, origin, path, headers, replicaHeader } = route;
  let controller: Dispatcher.DispatchController | undefined;
  let pendingAbort: Error | undefined;
  let finished = false;
  let responded = false;
  /** The retry's own connection: the pool might hand out another socket the server closed. */
  let fresh: Client | undefined;
  let sse: SseParser | undefined;
  let rawBody = "";
  const finish = () => {
    if (finished) return;
    finished = true;
    record.endMs = now();
    fresh?.close().catch(() => {});
    onDone(record);
  };
  const handler: Dispatcher.DispatchHandler = {
    onRequestStart(c) {
      controller = c;
      if (pendingAbort) c.abort(pendingAbort);
    },
    onResponseStart(_c, statusCode, responseHeaders) {
      responded = true;
      record.headersMs = now();
      record.status = statusCode;
      const replica = replicaHeader ? responseHeaders[replicaHeader] : undefined;
      if (replica !== undefined) record.replica = excerpt(String(replica), REPLICA_CHARS);
      const type = String(responseHeaders["content-type"] ?? "");
      const streaming =
        statusCode >= 200 && statusCode < 300 && type.startsWith("text/event-stream");
      if (streaming) {
        record.headers = keptHeaders(responseHeaders, RATE_LIMIT_HEADER);
        sse = new SseParser({
          onEvent: (e) => applyStreamEvent(record, e.data, now(), e.event),
          onUnknownField: (name, value) => applyUnknownField(record, name, value),
        });
      } else {
        record.headers = keptHeaders(responseHeaders, KEPT_HEADER) ?? {};
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
      const code = errorCode(error);
      if (
        !responded &&
        !record.timedOut &&
        record.reconnects === 0 &&
        RECONNECTABLE.has(code ?? "")
      ) {
        // Latency still counts from the scheduled time: the retry's cost is the request's.
        record.reconnects++;
        controller = undefined;
        fresh = new Client(origin, { headersTimeout: 0, bodyTimeout: 0 });
        send(fresh);
        return;
      }
      if (!record.timedOut) {
        record.transportError = excerpt(code ? `${code}: ${error.message}` : error.message, 200);
      }
      if (sse) record.incompleteEvent = sse.end();
      else if (rawBody) record.body = excerpt(rawBody, BODY_EXCERPT_BYTES);
      finish();
    },
  };
  const send = (via: Dispatcher) =>
    via.dispatch(
      { origin, path, method: "POST", headers, body, headersTimeout: 0, bodyTimeout: 0 },
      handler,
    );
  record.dispatchMs = now();
  send(dispatcher);
  return {
    abort(reason) {
      if (finished) return;
      if (controller) controller.abort(reason);
      else pendingAbort = reason;
    },
  };
}
