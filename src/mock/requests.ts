// Validation of completion request bodies into one normalised request, with
// OpenAI-shaped errors for anything a real server would reject.

import type { Endpoint } from "../openai/target.ts";

export interface GenerationRequest {
  endpoint: Endpoint;
  model: string;
  /** The text the mock "tokenizes": message contents joined, or the prompt. */
  promptText: string;
  maxTokens: number | undefined;
  ignoreEos: boolean;
  stream: boolean;
  includeUsage: boolean;
  temperature: number;
  seed: number | undefined;
  tools: { name: string; parameters: Record<string, unknown> | undefined }[] | undefined;
  toolChoice: "none" | "auto" | "required" | { name: string } | undefined;
  responseFormat: { type: string; schema?: Record<string, unknown> } | undefined;
  /** Stop sequences (up to 4). */
  stop: string[];
  /** Choices asked for (non-streamed only). */
  n: number;
  logprobs: boolean;
  topLogprobs: number;
  /** vLLM's prompt_logprobs: alternatives a prompt token (0: not asked). */
  promptLogprobs: number;
  /** A chat whose last message is the assistant's (a reply given to be scored): its text; else null. */
  givenReply: string | null;
  /** The messages before that reply, joined as promptText joins them. */
  promptBeforeReply: string;
}

export interface ApiError {
  status: number;
  message: string;
  type: string;
  param: string | null;
  code: string | number | null;
}

const ROLES = new Set(["system", "developer", "user", "assistant", "tool"]);

/** Thrown inside validation; parseGenerationRequest turns it back into a value. */
class Rejection extends Error {
  readonly apiError: ApiError;
  constructor(apiError: ApiError) {
    super(apiError.message);
    this.apiError = apiError;
  }
}

function invalid(message: string, param: string | null): Rejection {
  return new Rejection({ status: 400, message, type: "invalid_request_error", param, code: null });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Text of one message's content: a string, or text parts of an array. */
function contentText(content: unknown): string | undefined {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    const parts: string[] = [];
    for (const part of content) {
      if (!isObject(part) || typeof part.type !== "string") return undefined;
      if (part.type === "text" && typeof part.text === "string") parts.push(part.text);
    }
    return parts.join("");
  }
  return undefined;
}

function promptOf(endpoint: Endpoint, body: Record<string, unknown>): string {
  if (endpoint === "chat") {
    const { messages } = body;
    if (!Array.isArray(messages) || messages.length === 0) {
      throw invalid("'messages' must be a non-empty array of messages", "messages");
    }
    const texts: string[] = [];
    for (const [i, message] of messages.entries()) {
      if (!isObject(message) || typeof message.role !== "string" || !ROLES.has(message.role)) {
        throw invalid(
          `messages[${i}] must be an object whose role is one of ${[...ROLES].join(", ")}`,
          `messages[${i}].role`,
        );
      }
      const text = contentText(message.content);
      if (text === undefined) {
        throw invalid(
          `messages[${i}].content must be a string or an array of content parts`,
          `messages[${i}].content`,
        );
      }
      texts.push(text);
    }
    return texts.join("\n");
  }
  const { prompt } = body;
  if (typeof prompt === "string" && prompt.length > 0) return prompt;
  if (Array.isArray(prompt) && prompt.length === 1 && typeof prompt[0] === "string") {
    return prompt[0];
  }
  throw invalid("'prompt' must be a non-empty string (or a list of exactly one)", "prompt");
}

function optionalNumber(
  body: Record<string, unknown>,
  key: string,
  check: (n: number) => boolean,
  accepted: string,
): number | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || !check(value)) {
    throw invalid(`'${key}' = ${JSON.stringify(value)} is invalid; expected ${accepted}`, key);
  }
  return value;
}

function optionalBoolean(body: Record<string, unknown>, key: string): boolean {
  const value = body[key];
  if (value === undefined || value === null) return false;
  if (typeof value !== "boolean") {
    throw invalid(`'${key}' = ${JSON.stringify(value)} is invalid; expected true or false`, key);
  }
  return value;
}

/** Validates a parsed JSON body for the given endpoint. */
export function parseGenerationRequest(
  endpoint: Endpoint,
  body: unknown,
  models: readonly string[],
): GenerationRequest | ApiError {
  try {
    return parseOrThrow(endpoint, body, models);
  } catch (error) {
    if (error instanceof Rejection) return error.apiError;
    throw error;
  }
}

function parseOrThrow(
  endpoint: Endpoint,
  body: unknown,
  models: readonly string[],
): GenerationRequest {
  if (!isObject(body)) throw invalid("The request body must be a JSON object", null);
  const { model } = body;
  if (typeof model !== "string" || model.length === 0) {
    throw invalid("'model' is required and must be a string", "model");
  }
  if (!models.includes(model)) {
    throw new Rejection({
      status: 404,
      message: `The model '${model}' does not exist`,
      type: "invalid_request_error",
      param: "model",
      code: "model_not_found",
    });
  }
  const promptText = promptOf(endpoint, body);
  const maxKey =
    endpoint === "chat" && body.max_completion_tokens !== undefined
      ? "max_completion_tokens"
      : "max_tokens";
  const maxTokens = optionalNumber(
    body,
    maxKey,
    (n) => Number.isInteger(n) && n >= 1,
    "an integer ≥ 1",
  );
  const temperature = optionalNumber(
    body,
    "temperature",
    (n) => n >= 0 && n <= 2,
    "a number in [0, 2]",
  );
  optionalNumber(body, "top_p", (n) => n > 0 && n <= 1, "a number in (0, 1]");
  const n =
    optionalNumber(
      body,
      "n",
      (v) => Number.isInteger(v) && v >= 1 && v <= 8,
      "an integer in [1, 8]",
    ) ?? 1;
  const seed = optionalNumber(body, "seed", Number.isInteger, "an integer");
  const stream = optionalBoolean(body, "stream");
  const ignoreEos = optionalBoolean(body, "ignore_eos");

  const { stream_options: streamOptions } = body;
  let includeUsage = false;
  if (streamOptions !== undefined && streamOptions !== null) {
    if (!stream) {
      throw invalid(
        "The 'stream_options' parameter is only allowed when 'stream' is enabled",
        "stream_options",
      );
    }
    if (!isObject(streamOptions))
      throw invalid("'stream_options' must be an object", "stream_options");
    includeUsage = optionalBoolean(streamOptions, "include_usage");
  }

  if (stream && n > 1) throw invalid("n > 1 is only served without streaming", "n");
  const tools = parseTools(body.tools);
  return {
    endpoint,
    model,
    promptText,
    maxTokens,
    ignoreEos,
    stream,
    includeUsage,
    temperature: temperature ?? 1,
    seed,
    tools,
    toolChoice: parseToolChoice(body.tool_choice, tools),
    responseFormat: parseResponseFormat(body.response_format),
    stop: parseStop(body.stop),
    n,
    logprobs: optionalBoolean(body, "logprobs"),
    topLogprobs: alternatives(body, "top_logprobs"),
    promptLogprobs: alternatives(body, "prompt_logprobs"),
    ...givenReplyOf(endpoint, body),
  };
}

/** top_logprobs or vLLM's prompt_logprobs: alternatives a token, 0 to 20 (absent: 0). */
const alternatives = (body: Record<string, unknown>, key: string): number =>
  optionalNumber(
    body,
    key,
    (v) => Number.isInteger(v) && v >= 0 && v <= 20,
    "an integer in [0, 20]",
  ) ?? 0;

/** The final assistant message of a chat (a reply given to be continued or scored), and what came before. */
function givenReplyOf(
  endpoint: Endpoint,
  body: Record<string, unknown>,
): { givenReply: string | null; promptBeforeReply: string } {
  const messages = endpoint === "chat" && Array.isArray(body.messages) ? body.messages : [];
  const last = messages.at(-1);
  if (!isObject(last) || last.role !== "assistant")
    return { givenReply: null, promptBeforeReply: "" };
  const before = messages.slice(0, -1).map((m) => (isObject(m) ? contentText(m.content) : ""));
  return {
    givenReply: contentText(last.content) ?? "",
    promptBeforeReply: before.join("\n"),
  };
}

function parseStop(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const list = typeof value === "string" ? [value] : value;
  if (
    !Array.isArray(list) ||
    list.length > 4 ||
    !list.every((s) => typeof s === "string" && s.length > 0)
  )
    throw invalid("'stop' must be a string or a list of up to 4 non-empty strings", "stop");
  return list;
}

function parseTools(value: unknown): GenerationRequest["tools"] {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.length === 0)
    throw invalid("'tools' must be a non-empty array", "tools");
  return value.map((t, i) => {
    const fn =
      isObject(t) && t.type === "function" && isObject(t.function) ? t.function : undefined;
    if (!fn || typeof fn.name !== "string" || fn.name === "") {
      throw invalid(
        `tools[${i}] must be {type: "function", function: {name, parameters?}}`,
        `tools[${i}]`,
      );
    }
    return { name: fn.name, parameters: isObject(fn.parameters) ? fn.parameters : undefined };
  });
}

function parseToolChoice(
  value: unknown,
  tools: GenerationRequest["tools"],
): GenerationRequest["toolChoice"] {
  if (value === undefined || value === null) return tools ? "auto" : undefined;
  if (value === "none" || value === "auto" || value === "required") {
    if (value !== "none" && !tools)
      throw invalid(`tool_choice "${value}" needs tools`, "tool_choice");
    return value;
  }
  const name = isObject(value) && isObject(value.function) ? value.function.name : undefined;
  if (typeof name !== "string" || !tools?.some((t) => t.name === name)) {
    throw invalid(
      "tool_choice must be none, auto, required or {type: function, function: {name}} naming a tool",
      "tool_choice",
    );
  }
  return { name };
}

function parseResponseFormat(value: unknown): GenerationRequest["responseFormat"] {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value) || !["text", "json_object", "json_schema"].includes(value.type as string)) {
    throw invalid(
      "response_format.type must be text, json_object or json_schema",
      "response_format",
    );
  }
  if (value.type !== "json_schema") return { type: value.type as string };
  const js = value.json_schema;
  if (!isObject(js) || !isObject(js.schema)) {
    throw invalid("response_format json_schema needs json_schema.schema", "response_format");
  }
  return { type: "json_schema", schema: js.schema };
}
