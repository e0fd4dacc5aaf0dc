// A plain test client for the mock: sends one request and records everything
// the response carried, so tests can check shapes and timing.

import { request } from "undici";
import { SseParser } from "../../src/openai/sse.ts";

export interface Recorded {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON of each data event ([DONE] excluded). */
  events: Record<string, unknown>[];
  done: boolean;
  comments: string[];
  /** ms since send of each content-bearing event. */
  contentTimesMs: number[];
  text: string;
  body: string;
  /** Set when the connection failed or closed mid-body. */
  error: string | undefined;
}

export async function send(
  url: string,
  body: unknown,
  options: { path?: string; timeoutMs?: number } = {},
): Promise<Recorded> {
  const startMs = performance.now();
  const out: Recorded = {
    status: 0,
    headers: {},
    events: [],
    done: false,
    comments: [],
    contentTimesMs: [],
    text: "",
    body: "",
    error: undefined,
  };
  const parser = new SseParser({
    onEvent: ({ data }) => {
      if (data === "[DONE]") {
        out.done = true;
        return;
      }
      let event: Record<string, unknown>;
      try {
        event = JSON.parse(data) as Record<string, unknown>;
      } catch {
        out.error ??= `malformed data event: ${data.slice(0, 80)}`;
        return;
      }
      out.events.push(event);
      const choice = (event.choices as Record<string, unknown>[] | undefined)?.[0];
      const delta = choice?.delta as Record<string, unknown> | undefined;
      const piece = (delta?.content ?? choice?.text) as string | undefined;
      if (piece) {
        out.text += piece;
        out.contentTimesMs.push(performance.now() - startMs);
      }
    },
    onComment: (text) => out.comments.push(text),
  });
  try {
    const response = await request(`${url}${options.path ?? "/v1/chat/completions"}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 20_000),
    });
    out.status = response.statusCode;
    out.headers = response.headers;
    const streaming = String(response.headers["content-type"]).startsWith("text/event-stream");
    for await (const bytes of response.body) {
      out.body += Buffer.from(bytes).toString("utf8");
      if (streaming) parser.push(bytes);
    }
    if (streaming) parser.end();
  } catch (error) {
    out.error = (error as Error).message;
  }
  return out;
}

export function chatBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: "mock-llm",
    messages: [{ role: "user", content: "Tell me about open-loop load testing." }],
    max_tokens: 16,
    temperature: 0,
    stream: true,
    stream_options: { include_usage: true },
    ...overrides,
  };
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
}

/** The usage object of the stream's last event; fails the test when there is none. */
export function usageOf(r: Recorded): Usage {
  const usage = r.events.at(-1)?.usage;
  if (typeof usage !== "object" || usage === null) throw new Error("the stream carried no usage");
  return usage as Usage;
}
