// One model answer, the same shape whether it came streamed or not: content,
// tool calls, finish_reason, usage, plus what the transport got wrong.
// Streamed tool calls are assembled by `index` (id, type and name set once;
// argument fragments appended), tolerating and reporting irregular deltas: no
// id, no index, two entries with the same index in one chunk. Stream events
// are read by openai/response.ts, as the load generator reads them.

import {
  readCompletion,
  readSseEvent,
  readUnknownField,
  type StreamEvent,
  type ToolCallDelta,
} from "../openai/response.ts";

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
  /** Sent again on a fresh connection (the server had closed a kept-alive one). */
  reconnects: number;
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
    reconnects: 0,
  };
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

  /** An SSE field other than data, event, id and retry (llama.cpp's `error:`). */
  field(name: string, value: string): void {
    const event = readUnknownField(name, value);
    if (event) this.apply(event);
  }

  /** One SSE event: its data, and its `event:` type when it has one. */
  event(data: string, type = ""): void {
    this.apply(readSseEvent({ data, event: type }));
  }

  private apply(event: StreamEvent): void {
    switch (event.kind) {
      case "done":
        this.sawDone = true;
        return;
      case "invalid":
        this.answer.transport.push(
          event.problem === "not_json" ? "transport.not_json" : "transport.invalid_chunk",
        );
        return;
      case "error":
        this.answer.transport.push("transport.stream_error");
        return;
      case "chunk":
        break;
    }
    if (event.usage?.completionTokens !== undefined) {
      this.answer.completionTokens = event.usage.completionTokens;
      this.sawUsage = true;
    }
    const choice = event.choices[0];
    if (!choice) return;
    this.answer.content += choice.content;
    if (choice.toolCalls) {
      this.answer.toolCallsPresent = true;
      this.toolDeltas(choice.toolCalls);
    }
    if (choice.finishReason !== undefined) this.answer.finishReason = choice.finishReason;
  }

  private toolDeltas(deltas: ToolCallDelta[]): void {
    const indexes = new Set<number>();
    for (const d of deltas) {
      let index: number;
      if (d.index !== undefined) {
        index = d.index;
        if (indexes.has(index))
          this.answer.irregular.push(`two deltas with index ${index} in one chunk`);
        indexes.add(index);
      } else {
        // Without an index: a new call when it brings an id or a name, else the last call.
        this.answer.irregular.push("a tool-call delta without index");
        index =
          d.id !== undefined || d.name !== undefined
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
      if (d.id !== undefined && d.id !== "") call.id ??= d.id;
      if (d.type !== undefined) call.type ??= d.type;
      if (d.name !== undefined && call.name === "") call.name = d.name;
      if (d.arguments !== undefined) call.arguments += d.arguments;
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
  const body = readCompletion(text);
  if (body.kind === "invalid") {
    a.transport.push("transport.not_json");
    return a;
  }
  a.content = body.content;
  if (body.toolCalls) {
    a.toolCallsPresent = true;
    a.toolCalls = body.toolCalls.map((c) => ({
      id: c.id,
      type: c.type,
      name: c.name ?? "",
      arguments: c.arguments ?? "",
    }));
  }
  a.finishReason = body.finishReason;
  if (!a.finishReason) a.transport.push("transport.no_finish_reason");
  if (body.usage?.completionTokens !== undefined) a.completionTokens = body.usage.completionTokens;
  else a.transport.push("transport.no_usage");
  return a;
}
