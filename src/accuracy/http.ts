// What the accuracy runs share on the wire: non-streamed chat completions to
// one target on a pool of connections, each exchange timed from the run's
// start (for the requests file), every body read under a byte cap and the
// request's timeout; and a bounded number of them in flight.

import { Agent, type Dispatcher, request } from "undici";
import { readCappedBody } from "../common/body.ts";
import type { Outcome } from "../common/outcomes.ts";
import { completionPath, origin, requestHeaders, type Target } from "../openai/target.ts";

/** When an exchange was sent, its headers came and its body ended (ms from the run's start; null: not), its status and usage. */
export interface Exchange {
  sentMs: number;
  headersMs: number | null;
  endMs: number | null;
  /** 0: no response (a timeout, a dropped connection). */
  status: number;
  timedOut: boolean;
  promptTokens: number | null;
  completionTokens: number | null;
  /** Sends of this request (1, or 2 after a failure). */
  attempts: number;
}

/** An exchange sent at `sentMs`, nothing back yet. */
export const newExchange = (sentMs: number, attempts: number): Exchange => ({
  sentMs,
  headersMs: null,
  endMs: null,
  status: 0,
  timedOut: false,
  promptTokens: null,
  completionTokens: null,
  attempts,
});

/** The outcome class of an exchange, as the requests file records it; `error`: the answer could not be read. */
export function exchangeOutcome(e: Exchange, error: string | null): Outcome {
  if (e.status === 0) return e.timedOut ? "censored" : "connect_error";
  if (e.status === 429) return "rate_limited";
  if (e.status === 503 || e.status === 529) return "overloaded";
  if (e.status >= 500) return "http_5xx";
  if (e.status >= 300) return "http_4xx";
  return error === null ? "ok" : "protocol_error";
}

/** A non-streamed answer larger than this is refused. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export class Poster {
  private readonly agent: Agent;
  private readonly target: Target;
  private readonly timeoutS: number;
  private readonly signal: AbortSignal | undefined;
  /** ms since the run's start. */
  readonly at: () => number;

  constructor(
    target: Target,
    options: { concurrency: number; timeoutS: number; signal?: AbortSignal },
    at: () => number,
  ) {
    this.target = target;
    this.timeoutS = options.timeoutS;
    this.signal = options.signal;
    this.at = at;
    this.agent = new Agent({ connections: options.concurrency });
  }

  close = () => this.agent.close();

  /** A new exchange, sent now; `attempts` is its number among the sends of its request. */
  exchange(attempts: number): Exchange {
    return newExchange(this.at(), attempts);
  }

  /** POSTs the body, recording the exchange's times and status; the body's text. */
  async post(body: string, exchange: Exchange): Promise<string> {
    const signal = AbortSignal.any([
      AbortSignal.timeout(this.timeoutS * 1000),
      ...(this.signal ? [this.signal] : []),
    ]);
    const res: Dispatcher.ResponseData = await request(
      `${origin(this.target)}${completionPath(this.target, "chat")}`,
      {
        method: "POST",
        headers: requestHeaders(this.target, false),
        body,
        dispatcher: this.agent,
        signal,
      },
    );
    exchange.status = res.statusCode;
    exchange.headersMs = this.at();
    const bytes = await readCappedBody(res.body, MAX_ANSWER_BYTES);
    exchange.endMs = this.at();
    return bytes.toString("utf8");
  }
}

/** Runs task(0 … count − 1), `concurrency` at a time, none started after the cancel. */
export async function inPool(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count && !signal?.aborted) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}
