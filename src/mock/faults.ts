// The mock's injected faults: which one a request gets (seeded, by the
// profile's rates) and, for those that are an HTTP error, the response a real
// server sends.

import { mixSeeds, Rng } from "../workload/rng.ts";
import { FAULT_KINDS, type FaultKind, type MockProfile } from "./profile.ts";

/** Errors that the faults return, shaped like the servers that send them. */
export const FAULT_RESPONSES: Partial<
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

/** Draws each request's fault from the profile's rates, reproducibly. */
export function faultDrawer(profile: MockProfile): () => FaultKind | undefined {
  const rng = new Rng(mixSeeds(profile.seed, 0xfa017));
  return () => {
    let u = rng.uniform();
    for (const kind of FAULT_KINDS) {
      u -= profile.faults[kind];
      if (u < 0) return kind;
    }
    return undefined;
  };
}
