// Teacher-forced scoring: the baseline's answer given to the candidate as the
// start of its own reply, and the candidate's next-token distribution read at
// every token of it — vLLM's `prompt_logprobs` on a chat whose last message is
// the assistant's (`continue_final_message`, no generation prompt, one token
// generated). Where the greedy answers part, the free-running comparison
// stops (the contexts differ); scored this way the divergence covers the
// baseline's whole answer. Only for items whose answers differ (where they do
// not, the candidate's own logprobs are already this), and only where the
// server scores given text: the first answer without `prompt_logprobs`
// stops the run, and the report says the server does not.

import { isRecord } from "../common/arrays.ts";
import { errorMessage } from "../common/errors.ts";
import { requestBody, type Target } from "../openai/target.ts";
import type { TokenLogprobs } from "./divergence.ts";
import { type Exchange, inPool, Poster } from "./http.ts";
import type { AccuracyItem } from "./items.ts";
import type { AccuracyRunOptions } from "./run.ts";

/** One answer to score: the item, the baseline's reply and its tokens. */
export interface ScoreRequest {
  item: AccuracyItem;
  reply: string;
  tokens: readonly TokenLogprobs[];
}

/** What scoring an answer gave: the candidate's distribution at each of its tokens, or why not. */
export interface Scored {
  id: string;
  /** null: not scored (the server does not, the tokens did not line up, the request failed). */
  tokens: TokenLogprobs[] | null;
  error: string | null;
  exchange: Exchange;
}

export interface ScoredRun {
  scored: Scored[];
  /** Whether the server scored given text at all. */
  supported: boolean;
  startUnixMs: number;
}

/** Positions whose token must line up with the baseline's, at least, for the scores to count. */
const ALIGNED_SHARE = 0.9;

/**
 * The tokens that spell the reply: the generated tokens up to the last one
 * the reply's text holds — a server may list a token it did not write into
 * the text (vLLM lists the end-of-sequence token as ""), and scoring the
 * text gives no entry for it.
 */
export function replyTokens(tokens: readonly TokenLogprobs[], reply: string): TokenLogprobs[] {
  const kept: TokenLogprobs[] = [];
  let text = "";
  for (const t of tokens) {
    if (t.token === "" || !reply.startsWith(text + t.token)) break;
    text += t.token;
    kept.push(t);
  }
  return kept;
}

/** A 4xx that names the fields scoring relies on: the server does not score given text. */
const refusesScoring = (status: number, text: string) =>
  status >= 400 &&
  status < 500 &&
  /prompt_logprobs|continue_final_message|add_generation_prompt/i.test(text);

export function scoringBody(target: Target, r: ScoreRequest, options: AccuracyRunOptions): string {
  return requestBody(
    target,
    {
      messages: [...r.item.messages, { role: "assistant", content: r.reply }],
      max_tokens: 1,
      temperature: 0,
      top_p: 1,
      seed: options.seed,
      n: 1,
      prompt_logprobs: Math.max(1, options.topLogprobs),
      add_generation_prompt: false,
      continue_final_message: true,
    },
    false,
  );
}

/** One prompt position's entry: {token id: {logprob, rank, decoded_token}} → its tokens, best first. */
function entryTokens(entry: unknown): { token: string; logprob: number }[] | null {
  if (!isRecord(entry)) return null;
  const out: { token: string; logprob: number }[] = [];
  for (const v of Object.values(entry))
    if (isRecord(v) && typeof v.decoded_token === "string" && typeof v.logprob === "number")
      out.push({ token: v.decoded_token, logprob: v.logprob });
  return out.sort((a, b) => b.logprob - a.logprob);
}

/**
 * The candidate's distributions at the baseline's tokens: the last entries of
 * `prompt_logprobs`, one per token of the given reply; null when absent, or
 * when fewer than nine in ten of them list the baseline's token (the chat
 * template tokenized the reply otherwise than it was generated).
 */
export function scoredTokens(
  body: unknown,
  baseline: readonly TokenLogprobs[],
): TokenLogprobs[] | null {
  if (!isRecord(body) || !Array.isArray(body.prompt_logprobs)) return null;
  const entries = body.prompt_logprobs.slice(-baseline.length);
  if (entries.length < baseline.length) return null;
  let aligned = 0;
  const tokens = baseline.map((b, i) => {
    const top = entryTokens(entries[i]) ?? [];
    const own = top.find((t) => t.token === b.token);
    if (own) aligned++;
    return { token: b.token, logprob: own?.logprob ?? Number.NEGATIVE_INFINITY, top };
  });
  return aligned >= ALIGNED_SHARE * baseline.length ? tokens : null;
}

/** Scores the baseline's answers on the candidate, a bounded number at a time. */
export async function scoreOnCandidate(
  target: Target,
  requests: readonly ScoreRequest[],
  options: AccuracyRunOptions,
  nowMs: () => number = () => performance.now(),
): Promise<ScoredRun> {
  const started = nowMs();
  const startUnixMs = Date.now();
  const poster = new Poster(target, options, () => nowMs() - started);
  const scored: Scored[] = [];
  let supported = true;
  try {
    await inPool(
      requests.length,
      options.concurrency,
      async (i) => {
        const r = requests[i];
        if (!r || !supported) return;
        const exchange = poster.exchange(1);
        try {
          const text = await poster.post(scoringBody(target, r, options), exchange);
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          const ok = exchange.status >= 200 && exchange.status < 300;
          // A refusal of the fields, or an answer without them: the server does not score given text.
          if (refusesScoring(exchange.status, text)) supported = false;
          if (ok && !(isRecord(body) && Array.isArray(body.prompt_logprobs))) supported = false;
          const tokens = ok ? scoredTokens(body, r.tokens) : null;
          const error = !ok
            ? `HTTP ${exchange.status}`
            : tokens
              ? null
              : "no prompt_logprobs lined up with the answer";
          scored.push({ id: r.item.id, tokens, error, exchange });
        } catch (e) {
          exchange.timedOut = e instanceof Error && e.name === "TimeoutError";
          scored.push({ id: r.item.id, tokens: null, error: errorMessage(e), exchange });
        }
      },
      options.signal,
    );
  } finally {
    await poster.close();
  }
  return { scored, supported, startUnixMs };
}
