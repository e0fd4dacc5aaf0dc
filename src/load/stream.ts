// Applies the data events of a completion stream to a request record:
// output-bearing chunks (their times are TTFT and the ITL gaps), finish_reason,
// usage, [DONE], in-band errors, and anything malformed.

import { excerpt, readSseEvent, readUnknownField } from "../openai/response.ts";
import type { RequestRecord } from "./record.ts";

/** An SSE field that is not data, event, id or retry: llama.cpp's `error:` field is a stream error. */
export function applyUnknownField(r: RequestRecord, name: string, value: string): void {
  const event = readUnknownField(name, value);
  if (event?.kind === "error") r.streamError ??= event.detail;
}

/** Applies one SSE event (its data and `event:` type) received at nowMs. */
export function applyStreamEvent(r: RequestRecord, data: string, nowMs: number, type = ""): void {
  if (r.sawDone) {
    r.protocolError ??= `data after [DONE]: ${excerpt(data)}`;
    return;
  }
  const event = readSseEvent({ data, event: type });
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
  if (event.usage?.reasoningTokens !== undefined)
    r.usageReasoningTokens = event.usage.reasoningTokens;
  if (event.usage?.cachedTokens !== undefined) r.usageCachedTokens = event.usage.cachedTokens;
  let output = false;
  let reasoning = false;
  let answer = false;
  for (const choice of event.choices) {
    if (choice.output) output = true;
    if (choice.reasoning) reasoning = true;
    if (choice.answer) answer = true;
    if (choice.refusal) r.refusal = true;
    if (r.text !== undefined) r.text += choice.content;
    if (choice.finishReason !== undefined) r.finishReason = choice.finishReason;
  }
  if (output) {
    if (r.outputChunks === 0) r.firstOutputMs = nowMs;
    else r.gapsMs.push(nowMs - r.lastOutputMs);
    r.lastOutputMs = nowMs;
    r.outputChunks++;
  }
  if (reasoning) r.reasoningChunks++;
  if (answer && Number.isNaN(r.firstAnswerMs)) r.firstAnswerMs = nowMs;
}
