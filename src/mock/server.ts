// The built-in OpenAI-compatible mock server: chat and text completions,
// streamed (SSE framed as OpenAI frames it) or not, backed by the engine model,
// with seeded fault injection. Used by the demo, the tests and by users who
// want to try the gate without a GPU.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { estimateTokens } from "../workload/dataset.ts";
import { mixSeeds, Rng } from "../workload/rng.ts";
import { Engine, type EngineStats, type Sequence } from "./engine.ts";
import { DEFAULT_PROFILE, FAULT_KINDS, type FaultKind, type MockProfile } from "./profile.ts";
import {
  type ApiError,
  type Endpoint,
  errorBody,
  type GenerationRequest,
  parseGenerationRequest,
} from "./requests.ts";
import { planStructured } from "./structured.ts";
import { naturalLength, TokenStream } from "./text.ts";
import { bufferedWriter, sendJson, streamWriter, type Writer } from "./writers.ts";

export interface MockServerOptions {
  profile?: MockProfile;
  /** 0 picks a free port. */
  port?: number;
  host?: string;
}

export interface MockStats {
  completionRequests: number;
  faults: Record<FaultKind, number>;
  shed: number;
  engine: EngineStats;
}

export interface MockServer {
  url: string;
  port: number;
  stats(): MockStats;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Errors that the faults return, shaped like the servers that send them. */
const FAULT_RESPONSES: Partial<
  Record<FaultKind, { status: number; headers: Record<string, string>; body: string }>
> = {
  quota429: {
    status: 429,
    headers: {
      "x-ratelimit-limit-requests": "60",
      "x-ratelimit-remaining-requests": "0",
      "x-ratelimit-reset-requests": "1s",
      "retry-after": "1",
    },
    body: JSON.stringify({
      error: {
        message: "Rate limit reached for requests per minute. Limit: 60, Used: 60.",
        type: "requests",
        param: null,
        code: "rate_limit_exceeded",
      },
    }),
  },
  capacity429: {
    status: 429,
    headers: {},
    body: JSON.stringify({
      error: {
        message: "The engine is currently overloaded, please try again later",
        type: "server_error",
        param: null,
        code: "engine_overloaded",
      },
    }),
  },
  http429: {
    status: 429,
    headers: {},
    body: JSON.stringify({
      error: { message: "Too Many Requests", type: "error", param: null, code: 429 },
    }),
  },
  http503: {
    status: 503,
    headers: {},
    body: JSON.stringify({
      error: {
        message: "Service Unavailable",
        type: "service_unavailable",
        param: null,
        code: 503,
      },
    }),
  },
  http529: {
    status: 529,
    headers: {},
    body: JSON.stringify({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
    }),
  },
  http500: {
    status: 500,
    headers: {},
    body: JSON.stringify({
      error: {
        message: "Internal server error",
        type: "InternalServerError",
        param: null,
        code: 500,
      },
    }),
  },
};

export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const profile = options.profile ?? DEFAULT_PROFILE;
  const engine = new Engine(profile);
  const faultRng = new Rng(mixSeeds(profile.seed, 0xfa017));
  const sampleRng = new Rng(mixSeeds(profile.seed, 0x5a3b1e));
  const startedMs = performance.now();
  const created = Math.floor(Date.now() / 1000);
  let nextId = 0;
  const stats = {
    completionRequests: 0,
    faults: Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>,
    shed: 0,
  };

  function drawFault(): FaultKind | undefined {
    let u = faultRng.uniform();
    for (const kind of FAULT_KINDS) {
      u -= profile.faults[kind];
      if (u < 0) return kind;
    }
    return undefined;
  }

  function sendError(res: ServerResponse, error: ApiError): void {
    sendJson(res, error.status, errorBody(error));
  }

  function handleCompletion(endpoint: Endpoint, raw: string, res: ServerResponse): void {
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch (error) {
      sendError(res, {
        status: 400,
        message: `The request body is not valid JSON: ${(error as Error).message}`,
        type: "invalid_request_error",
        param: null,
        code: null,
      });
      return;
    }
    const parsed = parseGenerationRequest(endpoint, body, profile.models);
    if ("status" in parsed) {
      sendError(res, parsed);
      return;
    }
    const promptTokens = estimateTokens(parsed.promptText);
    if (promptTokens + (parsed.maxTokens ?? 0) > profile.maxModelLen) {
      sendError(res, {
        status: 400,
        message: `This model's maximum context length is ${profile.maxModelLen} tokens. However, you requested ${promptTokens + (parsed.maxTokens ?? 0)} tokens (${promptTokens} in the messages, ${parsed.maxTokens ?? 0} in the completion).`,
        type: "invalid_request_error",
        param: "max_tokens",
        code: null,
      });
      return;
    }
    if (parsed.tools && !profile.supportsTools) {
      sendError(res, {
        status: 400,
        message:
          '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
        type: "BadRequestError",
        param: "tools",
        code: 400,
      });
      return;
    }
    if (performance.now() - startedMs < profile.loadingS * 1000) {
      sendJson(
        res,
        503,
        JSON.stringify({
          error: {
            message: "The model is still loading",
            type: "service_unavailable",
            param: null,
            code: "model_loading",
          },
        }),
      );
      return;
    }
    stats.completionRequests++;
    const fault = drawFault();
    if (fault) stats.faults[fault]++;
    const canned = fault ? FAULT_RESPONSES[fault] : undefined;
    if (canned) {
      sendJson(res, canned.status, canned.body, canned.headers);
      return;
    }
    if (fault === "hang") return; // never answers; the client's timeout or our close() ends it
    generate(parsed, promptTokens, fault, res);
  }

  function generate(
    request: GenerationRequest,
    promptTokens: number,
    fault: FaultKind | undefined,
    res: ServerResponse,
  ): void {
    // Temperature 0 is greedy: same prompt, same text. Otherwise the request's
    // seed or a seeded per-request nonce picks the sample.
    const sampleSeed =
      request.temperature === 0 ? 0 : (request.seed ?? sampleRng.nextUint32()) >>> 0;
    const natural = naturalLength(
      request.promptText,
      profile.naturalMinTokens,
      profile.naturalMaxTokens,
      sampleSeed,
    );
    const limit = request.maxTokens ?? profile.maxModelLen - promptTokens;
    const ignoreEos = request.ignoreEos && profile.honorIgnoreEos;
    // JSON under response_format and tool calls have their own, fixed length.
    const plan =
      request.endpoint === "chat"
        ? planStructured(
            {
              promptText: request.promptText,
              tools: request.tools,
              toolChoice: request.toolChoice,
              responseFormat: request.responseFormat,
            },
            profile,
          )
        : undefined;
    const wanted = plan ? plan.pieces.length : ignoreEos ? limit : natural;
    const outputTokens = Math.min(wanted, limit);
    const finishReason =
      wanted > limit || (!plan && ignoreEos) ? "length" : (plan?.finishReason ?? "stop");
    // Faults that cut a stream do so half-way through the output.
    const cutAt = Math.max(1, Math.ceil(outputTokens / 2));
    const cuts = fault === "truncated" || fault === "streamError" || fault === "malformed";
    const generated = cuts ? cutAt : outputTokens;

    const id = `${request.endpoint === "chat" ? "chatcmpl" : "cmpl"}-mock-${nextId++}`;
    const tokens = new TokenStream(request.promptText, sampleSeed);
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: fault === "empty" ? 0 : generated,
      total_tokens: promptTokens + (fault === "empty" ? 0 : generated),
    };
    let pendingText = "";
    let pendingTokens = 0;
    let emitted = 0;
    let finished = false;
    // The engine calls back only from its timers, after the writer below exists.
    let writer: Writer | undefined;
    const seq: Sequence = {
      promptTokens,
      outputTokens: generated,
      onToken() {
        if (fault === "empty") return;
        if (plan?.kind === "tool") {
          writer?.toolArgs(plan.pieces[emitted++] ?? "");
          return;
        }
        pendingText += plan ? (plan.pieces[emitted++] ?? "") : tokens.next();
        pendingTokens++;
        if (pendingTokens >= profile.tokensPerChunk) {
          writer?.content(pendingText);
          pendingText = "";
          pendingTokens = 0;
        }
      },
      onFinish() {
        finished = true;
        if (pendingTokens > 0) writer?.content(pendingText);
        if (fault === "truncated") writer?.cut();
        else if (fault === "streamError") writer?.fail();
        else if (fault === "malformed") writer?.garble(finishReason, usage);
        else writer?.finish(finishReason, usage);
      },
    };
    if (!engine.submit(seq)) {
      stats.shed++;
      sendJson(
        res,
        503,
        JSON.stringify({
          error: {
            message: `The server is overloaded: the waiting queue is full (${profile.maxQueue} requests)`,
            type: "service_unavailable",
            param: null,
            code: "queue_full",
          },
        }),
      );
      return;
    }
    const context = { created, pingEveryMs: profile.pingEveryMs };
    const w = request.stream
      ? streamWriter(context, request, id, res, plan)
      : bufferedWriter(context, request, id, res, plan);
    writer = w;
    res.on("close", () => {
      w.stop();
      if (!finished) engine.cancel(seq);
    });
  }

  function route(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method === "GET" && path === "/health") {
      res.writeHead(200).end();
    } else if (req.method === "GET" && path === "/v1/models") {
      const data = profile.models.map((id) => ({
        id,
        object: "model",
        created,
        owned_by: "llm-perf-gate-mock",
        max_model_len: profile.maxModelLen,
      }));
      sendJson(res, 200, JSON.stringify({ object: "list", data }));
    } else if (path === "/v1/chat/completions" || path === "/v1/completions") {
      if (req.method !== "POST") {
        sendError(res, {
          status: 405,
          message: `Method ${req.method} is not allowed on ${path}; use POST`,
          type: "invalid_request_error",
          param: null,
          code: null,
        });
        return;
      }
      handleCompletion(path === "/v1/chat/completions" ? "chat" : "completions", raw, res);
    } else {
      sendError(res, {
        status: 404,
        message: `Unknown route ${req.method} ${path}`,
        type: "invalid_request_error",
        param: null,
        code: "not_found",
      });
    }
  }

  const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on("data", (part: Buffer) => {
      size += part.length;
      if (size <= MAX_BODY_BYTES) parts.push(part);
    });
    req.on("end", () => {
      if (size > MAX_BODY_BYTES) {
        sendError(res, {
          status: 413,
          message: `The request body is larger than ${MAX_BODY_BYTES} bytes`,
          type: "invalid_request_error",
          param: null,
          code: null,
        });
        return;
      }
      route(req, res, Buffer.concat(parts).toString("utf8"));
    });
  });
  server.headersTimeout = 0;
  server.requestTimeout = 0;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    stats: () => ({ ...stats, faults: { ...stats.faults }, engine: engine.stats() }),
    close: async () => {
      engine.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
