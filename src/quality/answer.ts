// One model answer, the same shape whether it came streamed or not: content,
// tool calls, finish_reason, usage, plus what the transport got wrong.
// Streamed tool calls are assembled by `index` (id, type and name set once;
// argument fragments appended), tolerating and reporting irregular deltas: no
// id, no index, two entries with the same index in one chunk.

export interface ToolCall {
  id: string | undefined;
  type: string | undefined;
  name: string;
  arguments: string;
}

export interface Answer {
  status: number;
  content: string;
  toolCalls: ToolCall[];
  /** Whether the message carried a tool_calls array at all (an empty one is a finding). */
  toolCallsPresent: boolean;
  finishReason: string | undefined;
  completionTokens: number | undefined;
  /** Transport failures: empty when the answer arrived whole. */
  transport: string[];
  /** Irregular streamed tool-call deltas, reported, not failed. */
  irregular: string[];
  /** The raw response (bounded), for the results file. */
  raw: string;
}

export function emptyAnswer(status: number): Answer {
  return {
    status,
    content: "",
    toolCalls: [],
    toolCallsPresent: false,
    finishReason: undefined,
    completionTokens: undefined,
    transport: [],
    irregular: [],
    raw: "",
  };
}

interface Delta {
  index?: unknown;
  id?: unknown;
  type?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

/** Accumulates streamed chunks into an Answer. */
export class StreamAssembler {
  readonly answer: Answer;
  private readonly calls: ToolCall[] = [];
  private sawDone = false;
  private sawUsage = false;

  constructor(status: number) {
    this.answer = emptyAnswer(status);
  }

  event(data: string): void {
    if (data === "[DONE]") {
      this.sawDone = true;
      return;
    }
    let chunk: Record<string, unknown>;
    try {
      chunk = JSON.parse(data) as Record<string, unknown>;
    } catch {
      this.answer.transport.push("transport.not_json");
      return;
    }
    if (chunk.error) {
      this.answer.transport.push("transport.stream_error");
      return;
    }
    const usage = chunk.usage as { completion_tokens?: number } | null | undefined;
    if (usage && typeof usage.completion_tokens === "number") {
      this.answer.completionTokens = usage.completion_tokens;
      this.sawUsage = true;
    }
    const choice = (chunk.choices as Record<string, unknown>[] | undefined)?.[0];
    if (!choice) return;
    const delta = (choice.delta ?? {}) as { content?: unknown; tool_calls?: unknown };
    if (typeof delta.content === "string") this.answer.content += delta.content;
    if (Array.isArray(delta.tool_calls)) {
      this.answer.toolCallsPresent = true;
      this.toolDeltas(delta.tool_calls as Delta[]);
    }
    if (typeof choice.finish_reason === "string") this.answer.finishReason = choice.finish_reason;
  }

  private toolDeltas(deltas: Delta[]): void {
    const indexes = new Set<number>();
    for (const d of deltas) {
      let index: number;
      if (typeof d.index === "number") {
        index = d.index;
        if (indexes.has(index))
          this.answer.irregular.push(`two deltas with index ${index} in one chunk`);
        indexes.add(index);
      } else {
        // Without an index: a new call when it brings an id or a name, else the last call.
        this.answer.irregular.push("a tool-call delta without index");
        index =
          d.id !== undefined || d.function?.name !== undefined
            ? this.calls.length
            : Math.max(0, this.calls.length - 1);
      }
      let call = this.calls[index];
      if (!call) {
        call = { id: undefined, type: undefined, name: "", arguments: "" };
        this.calls[index] = call;
        if (d.id === undefined)
          this.answer.irregular.push(`tool call ${index} starts without an id`);
      }
      if (typeof d.id === "string" && d.id !== "") call.id ??= d.id;
      if (typeof d.type === "string") call.type ??= d.type;
      if (typeof d.function?.name === "string")
        call.name += call.name === "" ? d.function.name : "";
      if (typeof d.function?.arguments === "string") call.arguments += d.function.arguments;
    }
  }

  /** Ends the stream: what a whole stream must have had is checked here. */
  end(incompleteEvent: boolean, askedUsage: boolean): Answer {
    const a = this.answer;
    a.toolCalls = this.calls.filter(Boolean);
    if (incompleteEvent || !this.sawDone) a.transport.push("transport.no_done");
    if (!a.finishReason) a.transport.push("transport.no_finish_reason");
    if (askedUsage && !this.sawUsage) a.transport.push("transport.no_usage");
    return a;
  }
}

/** A non-streamed chat.completion body into an Answer. */
export function answerFromJson(status: number, text: string): Answer {
  const a = emptyAnswer(status);
  a.raw = text.slice(0, 20_000);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    a.transport.push("transport.not_json");
    return a;
  }
  const choice = (body.choices as Record<string, unknown>[] | undefined)?.[0];
  const message = (choice?.message ?? {}) as { content?: unknown; tool_calls?: unknown };
  a.content = typeof message.content === "string" ? message.content : "";
  if (Array.isArray(message.tool_calls)) {
    a.toolCallsPresent = true;
    a.toolCalls = (message.tool_calls as Delta[]).map((c) => ({
      id: typeof c.id === "string" ? c.id : undefined,
      type: typeof c.type === "string" ? c.type : undefined,
      name: typeof c.function?.name === "string" ? c.function.name : "",
      arguments: typeof c.function?.arguments === "string" ? c.function.arguments : "",
    }));
  }
  a.finishReason = typeof choice?.finish_reason === "string" ? choice.finish_reason : undefined;
  if (!a.finishReason) a.transport.push("transport.no_finish_reason");
  const usage = body.usage as { completion_tokens?: number } | undefined;
  if (typeof usage?.completion_tokens === "number") a.completionTokens = usage.completion_tokens;
  else a.transport.push("transport.no_usage");
  return a;
}
