// The rate limits a server announces on its answers (`x-ratelimit-*`, a
// convention of OpenAI and gateways, not a standard): per trial, from every
// response that carried them — successful ones too, so a client can see it
// was close to a limit before the first 429.

export interface RateLimitDimension {
  /** The last limit announced (per minute, by convention). */
  limit: number | null;
  /** The fewest remaining seen. */
  remaining_min: number | null;
  /** The last reset announced, as the server wrote it ("1s", "6m0s"). */
  reset: string | null;
}

export interface RateLimitSummary {
  /** Responses that carried any x-ratelimit-* header. */
  responses: number;
  requests: RateLimitDimension;
  tokens: RateLimitDimension;
  /** Responses (429 and 503 included) that said when to retry. */
  retry_after: number;
}

const DIMENSIONS = ["requests", "tokens"] as const;

const numberOf = (v: string | undefined): number | null => {
  if (v === undefined || v.trim() === "") return null;
  const n = Number(v.trim());
  return Number.isFinite(n) && n >= 0 ? n : null;
};

export class RateLimitTally {
  private responses = 0;
  private retryAfter = 0;
  private readonly dims: Record<(typeof DIMENSIONS)[number], RateLimitDimension> = {
    requests: { limit: null, remaining_min: null, reset: null },
    tokens: { limit: null, remaining_min: null, reset: null },
  };

  add(headers: Record<string, string> | undefined): void {
    if (!headers) return;
    if (headers["retry-after"] !== undefined) this.retryAfter++;
    let any = false;
    for (const dim of DIMENSIONS) {
      const d = this.dims[dim];
      const limit = numberOf(headers[`x-ratelimit-limit-${dim}`]);
      const remaining = numberOf(headers[`x-ratelimit-remaining-${dim}`]);
      const reset = headers[`x-ratelimit-reset-${dim}`];
      if (limit !== null) d.limit = limit;
      if (remaining !== null) d.remaining_min = Math.min(remaining, d.remaining_min ?? remaining);
      if (reset !== undefined) d.reset = reset.slice(0, 40);
      any ||= limit !== null || remaining !== null || reset !== undefined;
    }
    if (any) this.responses++;
  }

  /**
   * Adds another tally's (a shard's, whose responses came later in the plan's
   * shard order): counts add, the fewest remaining is the fewest of both, a
   * limit or reset announced is the other's when it saw one.
   */
  merge(other: RateLimitSummary | null): void {
    if (!other) return;
    this.responses += other.responses;
    this.retryAfter += other.retry_after;
    for (const dim of DIMENSIONS) {
      const d = this.dims[dim];
      const o = other[dim];
      if (o.limit !== null) d.limit = o.limit;
      if (o.remaining_min !== null)
        d.remaining_min = Math.min(o.remaining_min, d.remaining_min ?? o.remaining_min);
      if (o.reset !== null) d.reset = o.reset;
    }
  }

  summary(): RateLimitSummary | null {
    if (this.responses === 0 && this.retryAfter === 0) return null;
    return {
      responses: this.responses,
      requests: { ...this.dims.requests },
      tokens: { ...this.dims.tokens },
      retry_after: this.retryAfter,
    };
  }
}
