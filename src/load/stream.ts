// Applies the data events of a completion stream to a request record:
// output-bearing chunks (their times are TTFT and the ITL gaps), finish_reason,
// usage, [DONE], in-band errors, and anything malformed.

import { excerpt, readStreamEvent } from "../openai/response.ts";
import type { RequestRecord } from "./record.ts";

/** Applies one SSE data payload received at nowMs. */
export function applyStreamEvent(r: RequestRecord, data: string, nowMs: number): void {
  if (r.sawDone) {
    r.protocolError ??= `data after [DONE]: ${excerpt(data)}`;
    return;
  }
  const event = readStreamEvent(data);
  switch (event.kind) {
    case "done":
      r.sawDone = true;
      return;
    case "invalid":
      r.protocolError ??= event.detail;
      return;
    case "error":
      r.streamError ??= event.detail;
      return;
    case "chunk":
      break;
  }
  if (event.usage?.completionTokens !== undefined)
    r.usageCompletionTokens = event.usage.completionTokens;
  if (event.usage?.promptTokens !== undefined) r.usagePromptTokens = event.usage.promptTokens;
  let output = false;
  for (const choice of event.choices) {
    if (choice.output) output = true;
    if (choice.finishReason !== undefined) r.finishReason = choice.finishReason;
  }
  if (output) {
    if (r.outputChunks === 0) r.firstOutputMs = nowMs;
    else r.gapsMs.push(nowMs - r.lastOutputMs);
    r.lastOutputMs = nowMs;
    r.outputChunks++;
  }
}
