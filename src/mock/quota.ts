// A gateway's tokens-per-minute quota in front of the mock: each request
// spends its prompt and max_tokens in a sliding minute; every answer says
// what is left (x-ratelimit-*-tokens), and one asking for more than is left
// gets a plain 429 whose only quota evidence is those headers.

import type { ServerResponse } from "node:http";
import { sendJson } from "./writers.ts";

const WINDOW_MS = 60_000;

export class TokenQuota {
  private readonly limit: number;
  private readonly retryAfter: boolean;
  private readonly spent: { atMs: number; tokens: number }[] = [];
  private used = 0;

  constructor(limit: number, retryAfter: boolean) {
    this.limit = limit;
    this.retryAfter = retryAfter;
  }

  /** Sends the 429 and returns true when the request does not fit; else spends it and sets the headers. */
  refused(res: ServerResponse, tokens: number): boolean {
    if (this.limit <= 0) return false;
    const now = performance.now();
    while (this.spent.length > 0 && (this.spent[0]?.atMs ?? now) <= now - WINDOW_MS)
      this.used -= this.spent.shift()?.tokens ?? 0;
    const remaining = Math.max(0, this.limit - this.used);
    const headers: Record<string, string> = {
      "x-ratelimit-limit-tokens": String(this.limit),
      "x-ratelimit-remaining-tokens": String(remaining),
      "x-ratelimit-reset-tokens": "60s",
    };
    if (tokens > remaining) {
      if (this.retryAfter) headers["retry-after"] = "1";
      const body = {
        error: { message: "Too Many Requests", type: "error", param: null, code: 429 },
      };
      sendJson(res, 429, JSON.stringify(body), headers);
      return true;
    }
    this.spent.push({ atMs: now, tokens });
    this.used += tokens;
    headers["x-ratelimit-remaining-tokens"] = String(remaining - tokens);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    return false;
  }
}
