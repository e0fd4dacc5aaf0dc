// Runs accuracy items against one variant: non-streamed chat completions at
// temperature 0 with a fixed seed and every sampling field sent, a bounded
// number at a time (answers do not need one request at a time; the same
// concurrency on both arms and the re-run). Logprobs are asked for; a server
// that refuses them (a 4xx naming logprobs) is asked again without, and not
// asked again. A request that fails is tried once more; one that still fails
// is an item without an answer, its reason kept. An answer lost in transport
// (a timeout, a dropped connection: nothing about what the model would say)
// is asked once more after the others, alone, with twice the timeout.

import { at, isRecord } from "../common/arrays.ts";
import { errorMessage } from "../common/errors.ts";
import { requestBody, type Target } from "../openai/target.ts";
import type { TokenLogprobs } from "./divergence.ts";
import { type Exchange, inPool, newExchange, Poster } from "./http.ts";
import type { AccuracyItem } from "./items.ts";

/** What a run asks of an item: its id, its messages, its max_tokens (an accuracy item, an open-ended one). */
export type AskedItem = Pick<AccuracyItem, "id" | "messages" | "maxTokens">;

export type { Exchange } from "./http.ts";

export interface AccuracyRunOptions {
  /** Items in flight at once. */
  concurrency: number;
  timeoutS: number;
  /** top_logprobs asked for (0: no logprobs). */
  topLogprobs: number;
  seed: number;
  /** Also send vLLM's sampling fields (top_k −1, min_p 0, repetition_penalty 1). */
  vllmSampling: boolean;
  /** The job's cancel: no item starts after it. */
  signal?: AbortSignal;
}

/** What a server answered to one item. */
export interface ItemReply {
  id: string;
  /** The answer's text ("" when none). */
  text: string;
  finishReason: string | null;
  /** Why there is no answer (HTTP 500, a timeout…), else null. */
  error: string | null;
  /** Each generated token with its top-k, when the server returned them. */
  tokens: TokenLogprobs[] | null;
  /** The last attempt's exchange, for the requests file. */
  exchange: Exchange;
  /** No reply for a transport reason: a timeout or a dropped connection (absent: the server's answer). */
  lost?: true;
}

export interface ArmReplies {
  replies: ItemReply[];
  seconds: number;
  /** Whether the server returned logprobs. */
  logprobs: boolean;
  /** The run's start, as Unix ms (the requests file's zero). */
  startUnixMs: number;
}

export function itemBody(
  target: Target,
  item: AskedItem,
  options: AccuracyRunOptions,
  logprobs: boolean,
): string {
  const fields: Record<string, unknown> = {
    messages: item.messages,
    max_tokens: item.maxTokens,
    temperature: 0,
    top_p: 1,
    seed: options.seed,
    n: 1,
  };
  if (options.vllmSampling) Object.assign(fields, { top_k: -1, min_p: 0, repetition_penalty: 1 });
  if (logprobs && options.topLogprobs > 0)
    Object.assign(fields, { logprobs: true, top_logprobs: options.topLogprobs });
  return requestBody(target, fields, false);
}

/** The choice's logprobs as tokens with their top-k; null when absent or malformed. */
export function tokensOf(logprobs: unknown): TokenLogprobs[] | null {
  if (!isRecord(logprobs) || !Array.isArray(logprobs.content)) return null;
  const out: TokenLogprobs[] = [];
  for (const t of logprobs.content) {
    if (!isRecord(t) || typeof t.token !== "string" || typeof t.logprob !== "number") return null;
    const top = Array.isArray(t.top_logprobs)
      ? t.top_logprobs.flatMap((x) =>
          isRecord(x) && typeof x.token === "string" && typeof x.logprob === "number"
            ? [{ token: x.token, logprob: x.logprob }]
            : [],
        )
      : [];
    out.push({ token: t.token, logprob: t.logprob, top });
  }
  return out;
}

const count = (v: unknown): number | null => (typeof v === "number" && v >= 0 ? v : null);

/** The reply read from a completion body. */
function replyOf(id: string, text: string, exchange: Exchange): ItemReply {
  const none = (error: string): ItemReply => ({
    id,
    text: "",
    finishReason: null,
    error,
    tokens: null,
    exchange,
  });
  if (exchange.status < 200 || exchange.status >= 300) return none(`HTTP ${exchange.status}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return none("a body that is not JSON");
  }
  const choice = isRecord(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
  const message = isRecord(choice) && isRecord(choice.message) ? choice.message : undefined;
  if (!isRecord(choice) || !message) return none("a body without a message");
  const usage = isRecord(body) && isRecord(body.usage) ? body.usage : {};
  return {
    id,
    text: typeof message.content === "string" ? message.content : "",
    finishReason: typeof choice.finish_reason === "string" ? choice.finish_reason : null,
    error: null,
    tokens: tokensOf(choice.logprobs),
    exchange: {
      ...exchange,
      promptTokens: count(usage.prompt_tokens),
      completionTokens: count(usage.completion_tokens),
    },
  };
}

/** An item the loop never sent (it cannot be: every path sends at least once). */
const notSent = (id: string): ItemReply => ({
  id,
  text: "",
  finishReason: null,
  error: "not sent",
  tokens: null,
  exchange: newExchange(0, 0),
});

/** A 4xx that names logprobs: the server does not return them. */
const refusesLogprobs = (status: number, text: string) =>
  status >= 400 && status < 500 && /logprob/i.test(text);

class Asker {
  private readonly poster: Poster;
  private readonly target: Target;
  private readonly options: AccuracyRunOptions;
  logprobs: boolean;

  constructor(target: Target, options: AccuracyRunOptions, poster: Poster) {
    this.target = target;
    this.options = options;
    this.poster = poster;
    this.logprobs = options.topLogprobs > 0;
  }

  /** The item's reply: once more after a failure (a dropped connection, a timeout, a 5xx or 429), without logprobs when refused. */
  async ask(item: AskedItem, tries = 2, sentBefore = 0): Promise<ItemReply> {
    let last: ItemReply | undefined;
    let sends = sentBefore;
    for (let attempt = 0; attempt < tries; attempt++) {
      const exchange = this.poster.exchange(++sends);
      try {
        const asked = this.logprobs;
        const body = itemBody(this.target, item, this.options, asked);
        const text = await this.poster.post(body, exchange);
        if (asked && refusesLogprobs(exchange.status, text)) {
          this.logprobs = false;
          attempt--;
          continue;
        }
        last = replyOf(item.id, text, exchange);
        if (exchange.status < 500 && exchange.status !== 429) return last;
      } catch (error) {
        exchange.timedOut = error instanceof Error && error.name === "TimeoutError";
        last = {
          id: item.id,
          text: "",
          finishReason: null,
          error: exchange.timedOut
            ? `no answer within ${this.options.timeoutS} s`
            : errorMessage(error),
          tokens: null,
          exchange,
          // Before the headers or while the body came: nothing the server chose to answer.
          lost: true,
        };
        if (this.options.signal?.aborted) return last;
      }
    }
    return last ?? notSent(item.id);
  }
}

/** A reply lost in transport (a timeout, a dropped connection, before the headers or in the body), not an answer the server chose. */
export const lostInTransport = (r: ItemReply): boolean => r.error !== null && r.lost === true;

/** Each reply lost in transport, asked once more alone with twice the timeout (nothing else in flight). */
async function askLostAlone(
  target: Target,
  items: readonly AskedItem[],
  replies: ItemReply[],
  options: AccuracyRunOptions & { logprobs: boolean },
  clock: () => number,
): Promise<void> {
  const lost = replies.flatMap((r, i) => (r && lostInTransport(r) ? [i] : []));
  if (lost.length === 0 || options.signal?.aborted) return;
  const longer = { ...options, concurrency: 1, timeoutS: options.timeoutS * 2 };
  const poster = new Poster(target, longer, clock);
  const asker = new Asker(target, longer, poster);
  asker.logprobs = options.logprobs;
  try {
    for (const i of lost) {
      if (options.signal?.aborted) return;
      const before = at(replies, i);
      replies[i] = await asker.ask(at(items, i), 1, before.exchange.attempts);
    }
  } finally {
    await poster.close();
  }
}

/** Runs the items (all of them, in order of their results) against one variant. */
export async function runItems(
  target: Target,
  items: readonly AskedItem[],
  options: AccuracyRunOptions,
  nowMs: () => number = () => performance.now(),
): Promise<ArmReplies> {
  const started = nowMs();
  const startUnixMs = Date.now();
  const poster = new Poster(target, options, () => nowMs() - started);
  const asker = new Asker(target, options, poster);
  const replies: ItemReply[] = new Array(items.length);
  try {
    await inPool(
      items.length,
      options.concurrency,
      async (i) => {
        replies[i] = await asker.ask(at(items, i));
      },
      options.signal,
    );
  } finally {
    await poster.close();
  }
  const clock = () => nowMs() - started;
  await askLostAlone(target, items, replies, { ...options, logprobs: asker.logprobs }, clock);
  return {
    replies: replies.filter(Boolean),
    seconds: (nowMs() - started) / 1000,
    logprobs: asker.logprobs && replies.some((r) => r?.tokens),
    startUnixMs,
  };
}
