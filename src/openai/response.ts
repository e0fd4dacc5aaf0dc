// What an OpenAI-style response says, read once for everyone who consumes
// them (the load generator, the quality runner, the server checks): each data
// event of a stream — the end marker, an in-band error, a malformed event, or
// a chunk with its choices' deltas, finish reasons and usage — and the body of
// a non-streamed chat completion.

export type StreamEvent =
  | { kind: "done" }
  /** Not JSON, not an object, or neither choices nor usage. */
  | { kind: "invalid"; problem: "not_json" | "not_object" | "no_choices"; detail: string }
  /** {"error": {...}} (vLLM, OpenAI) or {"object": "error", ...} (older servers). */
  | { kind: "error"; detail: string }
  | { kind: "chunk"; choices: ChoiceDelta[]; usage: Usage | undefined };

export interface Usage {
  promptTokens: number | undefined;
  completionTokens: number | undefined;
  /** completion_tokens_details.reasoning_tokens: the part of completion_tokens spent reasoning. */
  reasoningTokens?: number | undefined;
  /** prompt_tokens_details.cached_tokens: prompt tokens the server's prefix cache held. */
  cachedTokens?: number | undefined;
}

export interface ToolCallDelta {
  index: number | undefined;
  id: string | undefined;
  type: string | undefined;
  name: string | undefined;
  arguments: string | undefined;
}

export interface ChoiceDelta {
  /** A token arrived: non-empty content, reasoning, text or a tool call (not the role-only chunk). */
  output: boolean;
  /** Of which reasoning (reasoning_content, or reasoning as newer vLLM names it). */
  reasoning: boolean;
  /** Of which answer: content, text or a tool call. */
  answer: boolean;
  /** A `refusal` delta: the model declined (not output: no answer came). */
  refusal: boolean;
  /** delta.content (chat) or text (completions), "" when absent. */
  content: string;
  /** The delta's tool_calls when present (an empty list is kept: it is a finding). */
  toolCalls: ToolCallDelta[] | undefined;
  finishReason: string | undefined;
}

const EXCERPT_CHARS = 300;

export function excerpt(text: string, limit = EXCERPT_CHARS): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}…`;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === "string" && v.length > 0;
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);

export function toolCallDelta(raw: unknown): ToolCallDelta {
  const d = isObject(raw) ? raw : {};
  const fn = isObject(d.function) ? d.function : {};
  return {
    index: num(d.index),
    id: str(d.id),
    type: str(d.type),
    name: str(fn.name),
    arguments: str(fn.arguments),
  };
}

function choiceDelta(choice: Json): ChoiceDelta {
  const delta = isObject(choice.delta) ? choice.delta : undefined;
  const toolCalls = Array.isArray(delta?.tool_calls) ? delta.tool_calls : undefined;
  const content = str(delta?.content) ?? str(choice.text) ?? "";
  const reasoning = nonEmpty(delta?.reasoning_content) || nonEmpty(delta?.reasoning);
  const answer =
    content.length > 0 ||
    (toolCalls !== undefined && toolCalls.length > 0) ||
    isObject(delta?.function_call);
  const finish = choice.finish_reason;
  return {
    output: reasoning || answer,
    reasoning,
    answer,
    refusal: nonEmpty(delta?.refusal),
    content,
    toolCalls: toolCalls?.map(toolCallDelta),
    finishReason: nonEmpty(finish) ? finish : undefined,
  };
}

/** A usage object's counts, with the details servers add (vLLM, OpenAI). */
function usageOf(usage: Json): Usage {
  const completion = isObject(usage.completion_tokens_details)
    ? usage.completion_tokens_details
    : {};
  const prompt = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  return {
    promptTokens: num(usage.prompt_tokens),
    completionTokens: num(usage.completion_tokens),
    reasoningTokens: num(completion.reasoning_tokens),
    cachedTokens: num(prompt.cached_tokens),
  };
}

/** The error object's text: the `error` member of {"error": {...}}, else the whole payload. */
function errorDetail(text: string): string {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isObject(parsed) && isObject(parsed.error)) return excerpt(JSON.stringify(parsed.error));
  } catch {
    // not JSON: keep the text
  }
  return excerpt(text);
}

/**
 * An SSE event: by its framing first (`event: error` carries an error in its
 * data), then by its data.
 */
export function readSseEvent(event: { data: string; event: string }): StreamEvent {
  if (event.event === "error") return { kind: "error", detail: errorDetail(event.data) };
  return readStreamEvent(event.data);
}

/** A field other than data, event, id and retry: llama.cpp's `error:` field is an in-stream error. */
export function readUnknownField(name: string, value: string): StreamEvent | undefined {
  return name === "error" ? { kind: "error", detail: errorDetail(value) } : undefined;
}

export function readStreamEvent(data: string): StreamEvent {
  if (data === "[DONE]") return { kind: "done" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return {
      kind: "invalid",
      problem: "not_json",
      detail: `a data event is not JSON: ${excerpt(data)}`,
    };
  }
  if (!isObject(parsed)) {
    return {
      kind: "invalid",
      problem: "not_object",
      detail: `a data event is not a JSON object: ${excerpt(data)}`,
    };
  }
  if (parsed.error !== undefined && parsed.error !== null) {
    return { kind: "error", detail: excerpt(JSON.stringify(parsed.error)) };
  }
  if (parsed.object === "error") return { kind: "error", detail: excerpt(data) };
  const usage = isObject(parsed.usage) ? usageOf(parsed.usage) : undefined;
  if (!Array.isArray(parsed.choices)) {
    if (usage) return { kind: "chunk", choices: [], usage };
    return {
      kind: "invalid",
      problem: "no_choices",
      detail: `a chunk has no choices array: ${excerpt(data)}`,
    };
  }
  const choices: ChoiceDelta[] = [];
  for (const c of parsed.choices) if (isObject(c)) choices.push(choiceDelta(c));
  return { kind: "chunk", choices, usage };
}

/** A non-streamed chat.completion body. */
export type CompletionBody =
  | { kind: "invalid" }
  | {
      kind: "completion";
      content: string;
      /** message.refusal: the model declined. */
      refusal: boolean;
      /** message.tool_calls when present (an empty list is kept). */
      toolCalls: ToolCallDelta[] | undefined;
      finishReason: string | undefined;
      usage: Usage | undefined;
    };

export function readCompletion(text: string): CompletionBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: "invalid" };
  }
  if (!isObject(parsed)) return { kind: "invalid" };
  const choice =
    Array.isArray(parsed.choices) && isObject(parsed.choices[0]) ? parsed.choices[0] : {};
  const message = isObject(choice.message) ? choice.message : {};
  const finish = choice.finish_reason;
  return {
    kind: "completion",
    content: str(message.content) ?? "",
    refusal: nonEmpty(message.refusal),
    toolCalls: Array.isArray(message.tool_calls)
      ? message.tool_calls.map(toolCallDelta)
      : undefined,
    finishReason: nonEmpty(finish) ? finish : undefined,
    usage: isObject(parsed.usage) ? usageOf(parsed.usage) : undefined,
  };
}
