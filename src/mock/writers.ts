// How the mock writes a completion: as SSE chunks framed as OpenAI frames
// them (role chunk first, content or tool-call deltas, the finish chunk, the
// usage chunk, [DONE]), or as one JSON body; and the ways a broken server ends.

import type { ServerResponse } from "node:http";
import type { TokenLogprobs } from "../accuracy/divergence.ts";
import { hashString } from "../workload/rng.ts";
import type { MockProfile } from "./profile.ts";
import type { GenerationRequest } from "./requests.ts";
import type { StructuredPlan } from "./structured.ts";

/** OpenAI's usage object: token counts, and prompt_tokens_details when the prefix cache held some. */
export type Usage = Record<string, number | Record<string, number>>;

export interface WriterContext
  extends Pick<
    MockProfile,
    | "pingEveryMs"
    | "roleChunk"
    | "usageInFinishChunk"
    | "streamErrorForm"
    | "cumulativeDeltas"
    | "honorN"
  > {
  /** The `created` timestamp of every chunk. */
  created: number;
}

export const STREAM_ERROR_EVENT = {
  error: {
    message:
      "The engine encountered an error while generating: CUDA error: an illegal memory access",
    type: "InternalServerError",
    param: null,
    code: 500,
  },
};

export function sendJson(res: ServerResponse, status: number, body: string, headers = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(body);
}

/** An error inside a stream, framed as vLLM, llama.cpp or `event: error` servers frame it, then [DONE]. */
export function framedError(form: MockProfile["streamErrorForm"], error: object): string {
  const data = JSON.stringify({ error });
  const framed =
    form === "field"
      ? `error: ${JSON.stringify(error)}\n\n`
      : form === "event"
        ? `event: error\ndata: ${data}\n\n`
        : `data: ${data}\n\n`;
  return `${framed}data: [DONE]\n\n`;
}

export interface Writer {
  content(text: string): void;
  /** A reasoning model's thinking: `reasoning_content` deltas (chat), before the answer. */
  reasoning(text: string): void;
  /** A refusal instead of the answer: `refusal` deltas (chat), as OpenAI sends them. */
  refusal(text: string): void;
  /** A fragment of the tool call's arguments (the first one also names the call). */
  toolArgs(fragment: string): void;
  finish(reason: string, usage: Usage): void;
  /** Closes the connection without finish_reason or [DONE]. */
  cut(): void;
  /** Ends with an error object (in-band for streams). */
  fail(): void;
  /** Finishes, but with a data event that is not JSON half-way (streams only). */
  garble(reason: string, usage: Usage): void;
  stop(): void;
}

function choiceFor(
  request: GenerationRequest,
  text: string | null,
  finish: string | null,
  finalDelta: Record<string, unknown> = {},
) {
  return request.endpoint === "chat"
    ? {
        index: 0,
        delta: text === null ? finalDelta : { content: text },
        logprobs: null,
        finish_reason: finish,
      }
    : { index: 0, text: text ?? "", logprobs: null, finish_reason: finish };
}

/** A chat delta of its own kind (reasoning, refusal); the completions endpoint has none: an empty text. */
function deltaChoice(request: GenerationRequest, delta: Record<string, string>) {
  return request.endpoint === "chat"
    ? { index: 0, delta, logprobs: null, finish_reason: null }
    : choiceFor(request, "", null);
}

export function streamWriter(
  context: WriterContext,
  request: GenerationRequest,
  id: string,
  res: ServerResponse,
  plan: StructuredPlan | undefined,
): Writer {
  let toolStarted = false;
  let sofar = "";
  const object = request.endpoint === "chat" ? "chat.completion.chunk" : "text_completion";
  const chunk = (choices: unknown[], usage: unknown = null): string => {
    const payload: Record<string, unknown> = {
      id,
      object,
      created: context.created,
      model: request.model,
      choices,
    };
    if (request.includeUsage) payload.usage = usage;
    return `data: ${JSON.stringify(payload)}\n\n`;
  };
  // Set (not only written) so the server can tell a streamed response afterwards.
  res.setHeader("content-type", "text/event-stream; charset=utf-8");
  res.setHeader("cache-control", "no-cache");
  res.writeHead(200);
  // Like OpenAI, the role arrives at once, before any token: it is not a first token.
  if (request.endpoint === "chat" && context.roleChunk) {
    const role = { role: "assistant", content: "" };
    res.write(chunk([{ index: 0, delta: role, logprobs: null, finish_reason: null }]));
  }
  const ping =
    context.pingEveryMs > 0
      ? setInterval(() => res.write(": ping\n\n"), context.pingEveryMs)
      : undefined;
  const end = (last?: string): void => {
    clearInterval(ping);
    if (last === undefined) res.destroy();
    else res.end(last);
  };
  const writer: Writer = {
    content: (text) => {
      // A broken server repeats the text so far in every delta.
      sofar += text;
      res.write(chunk([choiceFor(request, context.cumulativeDeltas ? sofar : text, null)]));
    },
    reasoning: (text) => res.write(chunk([deltaChoice(request, { reasoning_content: text })])),
    refusal: (text) => res.write(chunk([deltaChoice(request, { refusal: text })])),
    toolArgs: (fragment) => {
      // As OpenAI streams a call: id, type and name first, then argument fragments by index.
      const call = toolStarted
        ? { index: 0, function: { arguments: fragment } }
        : {
            index: 0,
            id: `call_${id}`,
            type: "function",
            function: { name: plan?.toolName, arguments: fragment },
          };
      toolStarted = true;
      res.write(
        chunk([{ index: 0, delta: { tool_calls: [call] }, logprobs: null, finish_reason: null }]),
      );
    },
    finish: (reason, usage) => {
      const last = [
        choiceFor(request, null, reason, plan?.emptyToolCalls ? { tool_calls: [] } : {}),
      ];
      // OpenAI and vLLM send usage in a chunk of its own; llama.cpp in the finish chunk.
      let out = chunk(last, context.usageInFinishChunk ? usage : null);
      if (request.includeUsage && !context.usageInFinishChunk) out += chunk([], usage);
      end(`${out}data: [DONE]\n\n`);
    },
    cut: () => end(),
    // vLLM: the error object as a data event; llama.cpp: an `error:` field; then [DONE].
    fail: () => end(framedError(context.streamErrorForm, STREAM_ERROR_EVENT.error)),
    garble: (reason, usage) => {
      res.write('data: {"choices": [{"index": 0, "delta": {"content": "oops"\n\n');
      writer.finish(reason, usage);
    },
    stop: () => clearInterval(ping),
  };
  return writer;
}

/** A scored reply: the prompt's tokens (a null each, as vLLM lists them), then each given token's distribution. */
export interface ScoredPrompt {
  promptTokens: number;
  forced: TokenLogprobs[];
}

/** vLLM's prompt_logprobs: per prompt token null or {token id: {logprob, rank, decoded_token}}. */
function promptLogprobsOf(scored: ScoredPrompt, top: number) {
  const id = (token: string) => String(hashString(token) % 150_000);
  const entry = (t: TokenLogprobs) => {
    const ranked = [...t.top].sort((a, b) => b.logprob - a.logprob);
    const rank = ranked.findIndex((x) => x.token === t.token) + 1 || ranked.length + 1;
    return Object.fromEntries([
      [id(t.token), { logprob: t.logprob, rank, decoded_token: t.token }],
      ...ranked
        .slice(0, top)
        .map((x, i) => [id(x.token), { logprob: x.logprob, rank: i + 1, decoded_token: x.token }]),
    ]);
  };
  return [...Array.from({ length: scored.promptTokens }, () => null), ...scored.forced.map(entry)];
}

export function bufferedWriter(
  context: WriterContext,
  request: GenerationRequest,
  id: string,
  res: ServerResponse,
  plan: StructuredPlan | undefined,
  scored?: ScoredPrompt,
): Writer {
  let text = "";
  let thinking = "";
  let refusal = "";
  let args = "";
  const tokens: string[] = [];
  return {
    content: (t) => {
      text += t;
      tokens.push(t);
    },
    reasoning: (t) => {
      thinking += t;
    },
    refusal: (t) => {
      refusal += t;
    },
    toolArgs: (fragment) => {
      args += fragment;
    },
    finish: (reason, usage) => {
      const toolCalls =
        plan?.kind === "tool"
          ? [
              {
                id: `call_${id}`,
                type: "function",
                function: { name: plan.toolName, arguments: args },
              },
            ]
          : plan?.emptyToolCalls
            ? []
            : undefined;
      const message = {
        role: "assistant",
        ...(thinking ? { reasoning_content: thinking } : {}),
        ...(refusal ? { refusal } : {}),
        content: plan?.kind === "tool" || refusal ? null : text,
        ...(toolCalls ? { tool_calls: toolCalls } : {}),
      };
      const logprobs = request.logprobs
        ? plan?.logprobs
          ? planLogprobs(plan.logprobs.slice(0, tokens.length), request.topLogprobs)
          : logprobsOf(tokens, request.topLogprobs)
        : null;
      const one =
        request.endpoint === "chat"
          ? { message, logprobs, finish_reason: reason }
          : { text, logprobs, finish_reason: reason };
      // n choices: the same answer n times (the mock samples once); ignored when honorN is off.
      const n = context.honorN ? request.n : 1;
      const choices = Array.from({ length: n }, (_, index) => ({ index, ...one }));
      const object = request.endpoint === "chat" ? "chat.completion" : "text_completion";
      sendJson(
        res,
        200,
        JSON.stringify({
          id,
          object,
          created: context.created,
          model: request.model,
          choices,
          usage: n > 1 ? scaledUsage(usage, n) : usage,
          ...(request.promptLogprobs > 0 && scored
            ? {
                prompt_logprobs: promptLogprobsOf(scored, request.promptLogprobs),
              }
            : {}),
        }),
      );
    },
    cut: () => res.destroy(),
    fail: () => sendJson(res, 500, JSON.stringify(STREAM_ERROR_EVENT)),
    garble: () => sendJson(res, 200, `{"id": "${id}", "choices": [{"message": `),
    stop: () => {},
  };
}

const entry = (token: string, logprob: number) => ({
  token,
  logprob,
  bytes: [...Buffer.from(token, "utf8")],
});

/** A plan's own logprobs, in OpenAI's shape, with `top` alternatives a token. */
function planLogprobs(tokens: readonly TokenLogprobs[], top: number) {
  return {
    content: tokens.map((t) => ({
      ...entry(t.token, t.logprob),
      top_logprobs: t.top.slice(0, top).map((x) => entry(x.token, x.logprob)),
    })),
  };
}

/** OpenAI's logprobs: each token with its logprob and the top alternatives. */
function logprobsOf(tokens: string[], top: number) {
  return {
    content: tokens.map((t) => ({
      ...entry(t, -0.05),
      top_logprobs: [entry(t, -0.05), entry(" the", -3.2), entry(" a", -4.1)].slice(0, top),
    })),
  };
}

/** Usage of n identical choices: the completion counted n times. */
function scaledUsage(usage: Usage, n: number): Usage {
  const completion = Number(usage.completion_tokens) * n;
  return {
    ...usage,
    completion_tokens: completion,
    total_tokens: Number(usage.prompt_tokens) + completion,
  };
}
