// The server checks' requests: GET {url}/models, and one real streamed
// completion through the load generator's own client, classified as the
// load generator would classify it.

import { type Dispatcher, request } from "undici";
import { readCappedBody } from "../common/body.ts";
import { errorCode, errorMessage } from "../common/errors.ts";
import type { Outcome } from "../common/outcomes.ts";
import { sendOnce } from "../load/once.ts";
import { classify } from "../load/outcome.ts";
import { outputTokens } from "../load/record.ts";
import { errorTypeCode } from "../openai/error-body.ts";
import { excerpt } from "../openai/response.ts";
import { modelsUrl, origin, requestHeaders, type Target } from "../openai/target.ts";

export type ModelsAnswer =
  | { kind: "listed"; ids: string[] }
  | { kind: "http"; status: number; body: string }
  | { kind: "not_json"; contentType: string; body: string }
  | { kind: "unreachable"; code: string | undefined; message: string };

const MAX_MODELS_BYTES = 8 * 1024 * 1024;

export async function listModels(
  target: Target,
  dispatcher: Dispatcher,
  timeoutMs: number,
): Promise<ModelsAnswer> {
  const headers = requestHeaders(target, false);
  try {
    const res = await request(modelsUrl(target), {
      dispatcher,
      headers: headers.authorization ? { authorization: headers.authorization } : {},
      signal: AbortSignal.timeout(timeoutMs),
    });
    // Gateways list hundreds of models: room for them, a bound for an endless body.
    const text = (await readCappedBody(res.body, MAX_MODELS_BYTES)).toString("utf8");
    const contentType = String(res.headers["content-type"] ?? "");
    if (res.statusCode !== 200)
      return { kind: "http", status: res.statusCode, body: excerpt(text) };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { kind: "not_json", contentType, body: excerpt(text, 120) };
    }
    const data =
      typeof parsed === "object" && parsed !== null && "data" in parsed ? parsed.data : undefined;
    const ids = Array.isArray(data)
      ? data.flatMap((m) =>
          typeof m === "object" && m !== null && "id" in m && typeof m.id === "string"
            ? [m.id]
            : [],
        )
      : [];
    return { kind: "listed", ids };
  } catch (error) {
    return { kind: "unreachable", code: errorCode(error), message: errorMessage(error) };
  }
}

/** GET {origin}/health (vLLM, SGLang, TGI, llama.cpp): its status, null when nothing answered. */
export async function healthStatus(
  target: Target,
  dispatcher: Dispatcher,
  timeoutMs: number,
): Promise<number | null> {
  try {
    const res = await request(`${origin(target)}/health`, {
      dispatcher,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await readCappedBody(res.body, 64 * 1024);
    return res.statusCode;
  } catch {
    return null;
  }
}

export interface CompletionProbe {
  outcome: Outcome;
  status: number;
  /** From the actual send to the first token, when there was one. */
  ttftMs: number | undefined;
  /** Time per output token after the first, when there were two or more. */
  tpotMs: number | undefined;
  errorType: string | undefined;
  errorCode: string | undefined;
  /** What went wrong, in the client's words (a transport or stream error, an empty stream). */
  detail: string | undefined;
  /** A bounded excerpt of an error body. */
  body: string | undefined;
}

/** One real streamed completion of at most maxTokens tokens. */
export async function probeCompletion(
  target: Target,
  dispatcher: Dispatcher,
  maxTokens: number,
  timeoutMs: number,
): Promise<CompletionProbe> {
  const t = { ...target, ignoreEos: false };
  const record = await sendOnce(
    t,
    dispatcher,
    [{ role: "user", content: "Say OK." }],
    maxTokens,
    timeoutMs,
  );
  const outcome = classify(record);
  const { type, code } = errorTypeCode(record.streamError ?? record.body);
  return {
    outcome,
    status: record.status,
    ttftMs: record.outputChunks > 0 ? record.firstOutputMs - record.dispatchMs : undefined,
    tpotMs:
      outputTokens(record) > 1
        ? (record.lastOutputMs - record.firstOutputMs) / (outputTokens(record) - 1)
        : undefined,
    errorType: type,
    errorCode: code,
    detail:
      record.streamError ??
      record.protocolError ??
      record.transportError ??
      (outcome === "empty" ? "200 with an empty stream: no content, no tool call" : undefined),
    body: record.body,
  };
}
