// Asks the judge: each pair in one order is one chat completion at
// temperature 0 with a fixed seed, its verdict in a strict JSON shape
// (response_format with a json_schema until the judge refuses one: then
// asked again without, and never with again). A dropped connection, a
// timeout, a 5xx or a 429 is sent once more; a reply that does not parse is
// asked once more with a reminder; then the order is unjudged, and why is
// kept. A bounded number of requests in flight, none started after a cancel.

import { inPool, Poster } from "../accuracy/http.ts";
import type { ChatMessage } from "../accuracy/items.ts";
import { isRecord } from "../common/arrays.ts";
import { errorMessage } from "../common/errors.ts";
import { requestBody, type Target } from "../openai/target.ts";
import {
  type JudgeAsk,
  judgeMessages,
  parseVerdict,
  RETRY_NOTE,
  VERDICT_FORMAT,
  type Winner,
} from "./prompt.ts";

export interface JudgeRunOptions {
  /** Requests in flight at once. */
  concurrency: number;
  timeoutS: number;
  seed: number;
  /** The job's cancel: no request starts after it. */
  signal?: AbortSignal;
}

/** One order's verdict: the winner (null: unjudged) and the judge's reason, or why there is none. */
export interface OrderVerdict {
  winner: Winner | null;
  reason: string;
  error: string | null;
}

/** The judge's reply: at most this many tokens (a reason and a word). */
const MAX_TOKENS = 400;
/** A reply excerpt kept in an error. */
const EXCERPT_CHARS = 120;

/**
 * The request fields a judge may refuse, each with what a 4xx naming it
 * looks like: asked again without the field (max_tokens as
 * max_completion_tokens, as OpenAI's reasoning models want it), and never
 * with it again. The structured output is the first given up.
 */
const ADAPTABLE = [
  ["schema", /response_format|json_schema|guided|grammar|schema/i],
  ["maxTokens", /max_tokens/i],
  ["sampling", /temperature|top_p|seed/i],
] as const;
type Adaptable = (typeof ADAPTABLE)[number][0];

/** A judge that answers these refuses us whatever we ask: its URL, key or model is wrong. */
const REFUSES_US = new Set([401, 403, 404]);
/** An error kept at most this long (the results file's bound). */
const MAX_ERROR_CHARS = 300;

/** The message content of a completion body; null: none. */
function contentOf(text: string): string | null {
  try {
    const body: unknown = JSON.parse(text);
    const choice = isRecord(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
    const message = isRecord(choice) && isRecord(choice.message) ? choice.message : undefined;
    return typeof message?.content === "string" ? message.content : null;
  } catch {
    return null;
  }
}

const unjudged = (error: string): OrderVerdict => ({
  winner: null,
  reason: "",
  error: error.slice(0, MAX_ERROR_CHARS),
});

const excerpt = (text: string): string => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}…` : flat;
};

export class Judge {
  private readonly poster: Poster;
  private readonly target: Target;
  private readonly options: JudgeRunOptions;
  /** The fields the judge refused, not sent again. */
  private readonly refused = new Set<Adaptable>();
  /** Set when the judge refused us outright (401, 403, 404): nothing more is sent. */
  fatal: string | null = null;
  /** Requests sent, every attempt. */
  sent = 0;

  constructor(target: Target, options: JudgeRunOptions, nowMs: () => number) {
    this.target = target;
    this.options = options;
    const started = nowMs();
    this.poster = new Poster(target, options, () => nowMs() - started);
  }

  close = () => this.poster.close();

  private body(messages: readonly ChatMessage[]): string {
    const r = this.refused;
    const fields: Record<string, unknown> = {
      messages,
      [r.has("maxTokens") ? "max_completion_tokens" : "max_tokens"]: MAX_TOKENS,
      ...(r.has("sampling") ? {} : { temperature: 0, top_p: 1, seed: this.options.seed }),
      n: 1,
      ...(r.has("schema") ? {} : { response_format: VERDICT_FORMAT }),
    };
    return requestBody(this.target, fields, false);
  }

  /** One send: the status and the body's text, or why none came. */
  private async send(
    messages: readonly ChatMessage[],
  ): Promise<{ status: number; text: string } | { error: string }> {
    const exchange = this.poster.exchange(1);
    this.sent++;
    try {
      const text = await this.poster.post(this.body(messages), exchange);
      return { status: exchange.status, text };
    } catch (error) {
      const timedOut = error instanceof Error && error.name === "TimeoutError";
      return {
        error: timedOut ? `no answer within ${this.options.timeoutS} s` : errorMessage(error),
      };
    }
  }

  /** The first field a 4xx names that the judge may do without, not yet given up. */
  private refusal(status: number, text: string): Adaptable | null {
    if (status < 400 || status >= 500) return null;
    return (
      ADAPTABLE.find(([field, names]) => !this.refused.has(field) && names.test(text))?.[0] ?? null
    );
  }

  /** A send, once more after a transport failure, a 5xx or a 429, and without each field the judge refuses. */
  private async reply(
    messages: readonly ChatMessage[],
  ): Promise<{ content: string } | { error: string }> {
    let last = "";
    for (let attempt = 0; attempt < 2; attempt++) {
      if (this.fatal) return { error: `not asked: ${this.fatal}` };
      const got = await this.send(messages);
      if ("error" in got) {
        last = got.error;
        if (this.options.signal?.aborted) break;
        continue;
      }
      const field = this.refusal(got.status, got.text);
      if (field) {
        this.refused.add(field);
        attempt--;
        continue;
      }
      if (got.status >= 500 || got.status === 429) {
        last = `HTTP ${got.status}`;
        continue;
      }
      if (got.status < 200 || got.status >= 300) {
        const error = `HTTP ${got.status}: ${excerpt(got.text)}`;
        if (REFUSES_US.has(got.status)) this.fatal ??= `the judge answered ${error}`;
        return { error };
      }
      const content = contentOf(got.text);
      return content === null ? { error: "a body without a message" } : { content };
    }
    return { error: last };
  }

  /** The verdict of one pair in one order: asked once more when the reply does not parse. */
  async verdict(ask: JudgeAsk): Promise<OrderVerdict> {
    const messages = judgeMessages(ask);
    const first = await this.reply(messages);
    if ("error" in first) return unjudged(first.error);
    const parsed = parseVerdict(first.content);
    if (parsed) return { ...parsed, error: null };
    const again = await this.reply([
      ...messages,
      { role: "assistant", content: first.content },
      { role: "user", content: RETRY_NOTE },
    ]);
    if ("error" in again) return unjudged(again.error);
    const second = parseVerdict(again.content);
    return second
      ? { ...second, error: null }
      : unjudged(`the judge's reply was not the JSON asked for: “${excerpt(again.content)}”`);
  }
}

/** Each ask's verdict, in order, `concurrency` at a time; an ask not reached before a cancel is unjudged. */
export async function judgeAll(
  judge: Judge,
  asks: readonly JudgeAsk[],
  concurrency: number,
  signal?: AbortSignal,
): Promise<OrderVerdict[]> {
  const out: OrderVerdict[] = asks.map(() => unjudged("not asked: the job was cancelled"));
  await inPool(
    asks.length,
    concurrency,
    async (i) => {
      const ask = asks[i];
      if (ask) out[i] = await judge.verdict(ask);
    },
    signal,
  );
  return out;
}
