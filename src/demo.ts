// The quick-start demo: starts the built-in mock server and sends one
// streaming chat completion to it, printing what a client sees.
// (The gate issue turns this into a full baseline-vs-candidate demo gate.)

import { request } from "undici";
import { SseParser } from "./load/sse.ts";
import { startMockServer } from "./mock/server.ts";

export interface DemoResult {
  url: string;
  firstByteMs: number;
  ttftMs: number;
  e2elMs: number;
  contentChunks: number;
  completionTokens: number | undefined;
  finishReason: string | undefined;
  text: string;
  sawDone: boolean;
}

export async function runDemo(maxTokens = 48): Promise<DemoResult> {
  const server = await startMockServer();
  try {
    const startMs = performance.now();
    const response = await request(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "mock-llm",
        messages: [{ role: "user", content: "Say something about latency." }],
        max_tokens: maxTokens,
        temperature: 0,
        ignore_eos: true,
        stream: true,
        stream_options: { include_usage: true },
      }),
    });
    if (response.statusCode !== 200) {
      throw new Error(
        `the mock answered HTTP ${response.statusCode}: ${await response.body.text()}`,
      );
    }
    const result: DemoResult = {
      url: server.url,
      firstByteMs: Number.NaN,
      ttftMs: Number.NaN,
      e2elMs: Number.NaN,
      contentChunks: 0,
      completionTokens: undefined,
      finishReason: undefined,
      text: "",
      sawDone: false,
    };
    const parser = new SseParser({
      onEvent: ({ data }) => {
        if (data === "[DONE]") {
          result.sawDone = true;
          return;
        }
        const chunk = JSON.parse(data);
        const choice = chunk.choices?.[0];
        const content = choice?.delta?.content;
        if (typeof content === "string" && content.length > 0) {
          if (result.contentChunks++ === 0) result.ttftMs = performance.now() - startMs;
          result.text += content;
        }
        if (choice?.finish_reason) result.finishReason = choice.finish_reason;
        if (chunk.usage) result.completionTokens = chunk.usage.completion_tokens;
      },
    });
    for await (const bytes of response.body) {
      if (Number.isNaN(result.firstByteMs)) result.firstByteMs = performance.now() - startMs;
      parser.push(bytes);
    }
    parser.end();
    result.e2elMs = performance.now() - startMs;
    return result;
  } finally {
    await server.close();
  }
}

export function formatDemo(r: DemoResult): string {
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  return [
    `Built-in mock server at ${r.url} (model mock-llm); one streaming chat completion:`,
    `  first byte       ${ms(r.firstByteMs)}  (the role chunk; not a token)`,
    `  first token      ${ms(r.ttftMs)}  (TTFT)`,
    `  end of stream    ${ms(r.e2elMs)}  (E2EL)`,
    `  output           ${r.completionTokens ?? "?"} tokens (usage) in ${r.contentChunks} content chunks, finish_reason=${r.finishReason ?? "none"}, [DONE]=${r.sawDone}`,
    `  text             ${JSON.stringify(r.text.length > 72 ? `${r.text.slice(0, 72)}…` : r.text)}`,
  ].join("\n");
}
