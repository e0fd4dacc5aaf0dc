// One completion outside a trial's schedule — a preflight probe, a lane's
// burst attempt — through the load generator's own client, with a timeout;
// resolves with its finished record.

import type { Dispatcher } from "undici";
import {
  type ChatMessage,
  completionPath,
  loadRequestBody,
  origin,
  requestHeaders,
  type Target,
} from "../openai/target.ts";
import { sendCompletion } from "./client.ts";
import { newRecord, type RequestRecord } from "./record.ts";

export function sendOnce(
  target: Target,
  dispatcher: Dispatcher,
  messages: readonly ChatMessage[],
  maxTokens: number,
  timeoutMs: number,
  now: () => number = () => performance.now(),
  /** Given the record as it fills in (a probe that watches a stream while it runs). */
  watch?: (record: RequestRecord) => void,
): Promise<RequestRecord> {
  const body = loadRequestBody(target, messages, maxTokens);
  const record = newRecord(0, false, now(), now() + timeoutMs, undefined);
  watch?.(record);
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const done = (r: RequestRecord) => {
      clearTimeout(timer);
      resolve(r);
    };
    const route = {
      dispatcher,
      origin: origin(target),
      path: completionPath(target),
      headers: requestHeaders(target),
    };
    const handle = sendCompletion(route, body, record, now, done);
    // A refused connection may call back before sendCompletion returns.
    if (!Number.isNaN(record.endMs)) return;
    timer = setTimeout(() => {
      record.timedOut = true;
      handle.abort(new Error("timeout"));
    }, timeoutMs);
  });
}
