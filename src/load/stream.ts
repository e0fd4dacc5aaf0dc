// Reads the data events of an OpenAI-style completion stream into a request
// record: output-bearing chunks (content, reasoning, tool calls — not the
// role-only first chunk), finish_reason, usage, [DONE], in-band errors, and
// anything malformed.

import type { RequestRecord } from "./record.ts";

const EXCERPT_CHARS = 300;

export function excerpt(text: string, limit = EXCERPT_CHARS): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}…`;
}

function nonEmptyString(value: unknown): boolean {
  return typeof value === "string" && value.length > 0;
}

function carriesOutput(choice: Record<string, unknown>): boolean {
  if (nonEmptyString(choice.text)) return true; // /v1/completions
  const delta = choice.delta as Record<string, unknown> | undefined;
  if (!delta || typeof delta !== "object") return false;
  return (
    nonEmptyString(delta.content) ||
    nonEmptyString(delta.reasoning_content) ||
    nonEmptyString(delta.reasoning) ||
    (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0) ||
    (typeof delta.function_call === "object" && delta.function_call !== null)
  );
}

/** Applies one SSE data payload received at nowMs. */
export function applyStreamEvent(r: RequestRecord, data: string, nowMs: number): void {
  if (r.sawDone) {
    r.protocolError ??= `data after [DONE]: ${excerpt(data)}`;
    return;
  }
  if (data === "[DONE]") {
    r.sawDone = true;
    return;
  }
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    r.protocolError ??= `a data event is not JSON: ${excerpt(data)}`;
    return;
  }
  if (typeof chunk !== "object" || chunk === null || Array.isArray(chunk)) {
    r.protocolError ??= `a data event is not a JSON object: ${excerpt(data)}`;
    return;
  }
  const c = chunk as Record<string, unknown>;
  // vLLM and OpenAI send {"error": {...}}; older servers {"object": "error", "message": ...}.
  if (c.error !== undefined && c.error !== null) {
    r.streamError ??= excerpt(JSON.stringify(c.error));
    return;
  }
  if (c.object === "error") {
    r.streamError ??= excerpt(data);
    return;
  }
  const usage = c.usage as Record<string, unknown> | null | undefined;
  if (usage && typeof usage === "object") {
    if (typeof usage.completion_tokens === "number")
      r.usageCompletionTokens = usage.completion_tokens;
    if (typeof usage.prompt_tokens === "number") r.usagePromptTokens = usage.prompt_tokens;
  }
  const choices = c.choices;
  if (!Array.isArray(choices)) {
    if (!usage) r.protocolError ??= `a chunk has no choices array: ${excerpt(data)}`;
    return;
  }
  let output = false;
  for (const choice of choices) {
    if (typeof choice !== "object" || choice === null) continue;
    if (carriesOutput(choice)) output = true;
    const finish = (choice as Record<string, unknown>).finish_reason;
    if (typeof finish === "string" && finish.length > 0) r.finishReason = finish;
  }
  if (output) {
    if (r.outputChunks === 0) r.firstOutputMs = nowMs;
    else r.gapsMs.push(nowMs - r.lastOutputMs);
    r.lastOutputMs = nowMs;
    r.outputChunks++;
  }
}
