// The built-in OpenAI-compatible mock server: chat and text completions,
// streamed (SSE framed as OpenAI frames it) or not, backed by the engine model,
// with seeded fault injection. Used by the demo, the tests and by users who
// want to try the gate without a GPU.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { recordOf } from "../common/arrays.ts";
import { type CompletionStats, Completions, sendError } from "./completion.ts";
import { Engine, type EngineStats } from "./engine.ts";
import { Fleet, type FleetStats } from "./fleet.ts";
import { DEFAULT_PROFILE, FAULT_KINDS, type MockProfile } from "./profile.ts";
import { MockRoutes } from "./routes.ts";

export interface MockServerOptions {
  profile?: MockProfile;
  /** The wall clock busyHours is read against (tests: a fixed time of day). */
  clock?: () => Date;
  /** 0 picks a free port. */
  port?: number;
  host?: string;
}

export interface MockStats extends CompletionStats {
  /** A fleet's engines summed. */
  engine: EngineStats;
  /** Only in fleet mode (profile fleetReplicas > 0). */
  fleet?: FleetStats;
}

export interface MockServer {
  url: string;
  port: number;
  stats(): MockStats;
  /** Closes at once: every stream cut, as a process killed. */
  close(): Promise<void>;
  /** Stops as the profile's server would on SIGTERM: drains its streams for up to drainS, then closes. */
  stop(): Promise<void>;
  /** Resolves when the server crashed on purpose (profile crashAfterRequests). */
  crashed: Promise<void>;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** A request to a server that is stopping (drainS): 503, and the connection closed. */
function refuseWhileDraining(res: ServerResponse): void {
  res.setHeader("connection", "close");
  sendError(res, {
    status: 503,
    message: "The server is shutting down",
    type: "service_unavailable",
    param: null,
    code: "shutting_down",
  });
}

/** Until the engine (or fleet) has nothing running or waiting, or drainS passed. */
async function drained(busy: () => boolean, drainS: number): Promise<void> {
  const untilMs = performance.now() + drainS * 1000;
  while (performance.now() < untilMs && busy())
    await new Promise((resolve) => setTimeout(resolve, 20));
  // The last events were written as the engine finished: let the sockets flush them.
  await new Promise((resolve) => setTimeout(resolve, 50));
}

/** What answers the requests: one engine, or a fleet of replicas. */
interface Backend {
  route(req: IncomingMessage, res: ServerResponse, raw: string): void;
  engineStats(): EngineStats;
  fleetStats(): FleetStats | undefined;
  busy(): boolean;
  close(): void;
}

function startBackend(
  profile: MockProfile,
  stats: CompletionStats,
  clock: () => Date,
  onCrash: () => void,
): Backend {
  if (profile.fleetReplicas > 0) {
    const fleet = new Fleet(profile, stats, clock, onCrash);
    return {
      route: (req, res, raw) => fleet.route(req, res, raw),
      engineStats: () => fleet.engineStats(),
      fleetStats: () => fleet.fleetStats(),
      busy: () => fleet.busy(),
      close: () => fleet.close(),
    };
  }
  const engine = new Engine(profile);
  const completions = new Completions(profile, engine, stats, onCrash);
  const routes = new MockRoutes(profile, engine, completions, clock);
  return {
    route: (req, res, raw) => routes.route(req, res, raw),
    engineStats: () => engine.stats(),
    fleetStats: () => undefined,
    busy: () => engine.stats().running + engine.stats().waiting > 0,
    close: () => engine.close(),
  };
}

export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const profile = options.profile ?? DEFAULT_PROFILE;
  const clock = options.clock ?? (() => new Date());
  const stats: CompletionStats = {
    completionRequests: 0,
    faults: recordOf(FAULT_KINDS, () => 0),
    shed: 0,
  };
  let crash: () => void = () => {};
  const crashed = new Promise<void>((resolve) => {
    crash = resolve;
  });
  const backend = startBackend(profile, stats, clock, () => {
    // As a server process dies: every connection drops, nothing listens any more.
    backend.close();
    server.close();
    server.closeAllConnections();
    crash();
  });

  // closeAfterResponse: sockets that served a streamed response are dropped when
  // the next request arrives on them — the race a client loses against a server
  // that closes after each response while sending Keep-Alive.
  const spent = new WeakSet<object>();
  let draining = false;
  const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    if (draining) {
      refuseWhileDraining(res);
      return;
    }
    if (profile.closeAfterResponse) {
      if (spent.has(req.socket)) {
        req.socket.destroy();
        return;
      }
      res.on("finish", () => {
        if (String(res.getHeader("content-type") ?? "").startsWith("text/event-stream"))
          spent.add(req.socket);
      });
    }
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
      backend.route(req, res, Buffer.concat(parts).toString("utf8"));
    });
  });
  server.headersTimeout = 0;
  server.requestTimeout = 0;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const close = async () => {
    backend.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    stats: () => {
      const fleet = backend.fleetStats();
      const engine = backend.engineStats();
      return { ...stats, faults: { ...stats.faults }, engine, ...(fleet && { fleet }) };
    },
    crashed,
    close,
    stop: async () => {
      if (profile.drainS > 0) {
        draining = true;
        await drained(() => backend.busy(), profile.drainS);
      }
      await close();
    },
  };
}
