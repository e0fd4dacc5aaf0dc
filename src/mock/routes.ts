// The mock's routes: the OpenAI endpoints (an API key checked when the profile
// has one), /health, the Prometheus /metrics page in the profile's format,
// and a 404 for anything else, each error in OpenAI's error shape.

import type { IncomingMessage, ServerResponse } from "node:http";
import { type Completions, sendError } from "./completion.ts";
import type { Engine } from "./engine.ts";
import { inBusyHours, type MockProfile } from "./profile.ts";
import { sendJson } from "./writers.ts";

export class MockRoutes {
  private readonly created = Math.floor(Date.now() / 1000);
  private readonly profile: MockProfile;
  private readonly engine: Engine;
  private readonly completions: Completions;
  private readonly clock: () => Date;

  constructor(profile: MockProfile, engine: Engine, completions: Completions, clock: () => Date) {
    this.profile = profile;
    this.engine = engine;
    this.completions = completions;
    this.clock = clock;
  }

  route(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (this.refusedKey(req, res, path)) return;
    if (req.method === "GET" && path === "/health") this.health(res);
    else if (req.method === "GET" && this.runtimePath(res, path)) return;
    else if (req.method === "GET" && path === "/metrics") this.metrics(res);
    else if (req.method === "GET" && path === "/v1/models") this.models(res);
    else if (path === "/v1/chat/completions" || path === "/v1/completions")
      this.completion(req, res, path, raw);
    else
      sendError(res, {
        status: 404,
        message: `Unknown route ${req.method} ${path}`,
        type: "invalid_request_error",
        param: null,
        code: "not_found",
      });
  }

  /** A wrong or missing key on /v1/ gets a 401, quoting what it got as servers do. */
  private refusedKey(req: IncomingMessage, res: ServerResponse, path: string): boolean {
    const key = this.profile.apiKey;
    if (!key || !path.startsWith("/v1/") || req.headers.authorization === `Bearer ${key}`)
      return false;
    // Like servers that quote what they got: a secret a client must never keep.
    const got = (req.headers.authorization ?? "").replace(/^Bearer\s+/i, "");
    sendError(
      res,
      {
        status: 401,
        message: `Incorrect API key provided: ${got || "(none)"}.`,
        type: "invalid_request_error",
        param: null,
        code: "invalid_api_key",
      },
      this.profile.errorCode,
    );
    return true;
  }

  /** 200; healthStallMs late while requests run (a /health that stalls under load). */
  private health(res: ServerResponse): void {
    const stall = this.profile.healthStallMs;
    if (stall > 0 && this.engine.gauges().running > 0)
      setTimeout(() => res.writeHead(200).end(), stall);
    else res.writeHead(200).end();
  }

  /** The version endpoint of the runtime the mock says it is; false for any other path. */
  private runtimePath(res: ServerResponse, path: string): boolean {
    const { runtimeName: name, runtimeVersion: version, models } = this.profile;
    const body =
      name === "vllm" && path === "/version"
        ? { version }
        : name === "sglang" && path === "/get_server_info"
          ? { version, tp_size: 1, max_running_requests: this.profile.maxBatch }
          : name === "tgi" && path === "/info"
            ? { model_id: models[0], version, max_concurrent_requests: this.profile.maxBatch }
            : name === "llamacpp" && path === "/props"
              ? {
                  default_generation_settings: { n_ctx: this.profile.maxModelLen },
                  build_info: version,
                  total_slots: this.profile.maxBatch,
                }
              : undefined;
    if (body === undefined) return false;
    sendJson(res, 200, JSON.stringify(body));
    return true;
  }

  private metrics(res: ServerResponse): void {
    const p = this.profile;
    if (p.metricsFormat === "off") {
      // llama-server without --metrics.
      sendError(res, {
        status: 501,
        message: "This server does not support metrics endpoint.",
        type: "not_supported_error",
        param: null,
        code: null,
      });
      return;
    }
    const text = this.engine.metrics.render(
      p.metricsFormat,
      p.models[0] ?? "",
      this.engine.gauges(),
      p.specDecodeTokens > 0 ? p.specDecodeAcceptance : undefined,
    );
    res.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" }).end(text);
  }

  private models(res: ServerResponse): void {
    const data = this.profile.models.map((id) => ({
      id,
      object: "model",
      created: this.created,
      owned_by: "llm-perf-gate-mock",
      max_model_len: this.profile.maxModelLen,
    }));
    sendJson(res, 200, JSON.stringify({ object: "list", data }));
  }

  private completion(req: IncomingMessage, res: ServerResponse, path: string, raw: string): void {
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
    const kind = path === "/v1/chat/completions" ? "chat" : "completions";
    const p = this.profile;
    // The busy hour: the request waits in a queue before the engine sees it.
    if (p.busyDelayMs > 0 && inBusyHours(p.busyHours, this.clock()))
      setTimeout(() => this.completions.handle(kind, raw, res), p.busyDelayMs);
    else this.completions.handle(kind, raw, res);
  }
}
