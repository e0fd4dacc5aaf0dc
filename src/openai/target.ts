// An OpenAI-compatible endpoint and the requests we send it: paths, headers
// and bodies, in one place for the load generator, the quality runner and the
// server checks.

export type Endpoint = "chat" | "completions";

export interface Target {
  /** OpenAI base URL, e.g. http://127.0.0.1:8000/v1 */
  baseUrl: string;
  model: string;
  endpoint: Endpoint;
  /** Sent as a bearer token; never logged or reported. */
  apiKey: string | undefined;
  headers: Record<string, string>;
  /** Extra JSON body fields, merged last (they may override ours). */
  extraBody: Record<string, unknown>;
  includeUsage: boolean;
  ignoreEos: boolean;
  temperature: number;
  /** The response header (lower-case) that names the replica that answered; absent: none. */
  replicaHeader?: string;
}

export interface ChatMessage {
  role: string;
  content: string;
}

export function origin(target: Target): string {
  return new URL(target.baseUrl).origin;
}

/** The path of the target's completion endpoint, below its base URL's path. */
export function completionPath(target: Target, endpoint: Endpoint = target.endpoint): string {
  const prefix = new URL(target.baseUrl).pathname.replace(/\/+$/, "");
  return `${prefix}${endpoint === "chat" ? "/chat/completions" : "/completions"}`;
}

export function modelsUrl(target: Target): string {
  return `${target.baseUrl}/models`;
}

/** The headers of a request; `accept: text/event-stream` only when streaming. */
export function requestHeaders(target: Target, stream = true): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    ...(stream ? { accept: "text/event-stream" } : {}),
    ...target.headers,
  };
  if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
  return headers;
}

/**
 * A completion request body: the model, the given fields, streaming (with
 * usage in the stream when the target asks for it), then the target's
 * extra-body and a caller's own extra fields, which may override ours.
 */
export function requestBody(
  target: Target,
  fields: Record<string, unknown>,
  stream: boolean,
  extra: Record<string, unknown> = {},
): string {
  const body: Record<string, unknown> = { model: target.model, ...fields, stream };
  if (stream && target.includeUsage) body.stream_options = { include_usage: true };
  return JSON.stringify({ ...body, ...target.extraBody, ...extra });
}

/** The load generator's streamed request: the workload's prompt and output length. */
export function loadRequestBody(
  target: Target,
  messages: readonly ChatMessage[],
  maxTokens: number,
): string {
  const fields: Record<string, unknown> =
    target.endpoint === "chat"
      ? { messages }
      : { prompt: messages.map((m) => m.content).join("\n") };
  if (maxTokens > 0) fields.max_tokens = maxTokens;
  fields.temperature = target.temperature;
  if (target.ignoreEos) fields.ignore_eos = true;
  return requestBody(target, fields, true);
}
