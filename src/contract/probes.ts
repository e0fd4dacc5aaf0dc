// The builtin contract suite: each probe sends its requests one at a time
// (apart from the latency trials) and records items. runArmContract runs the
// selected probes on one arm and says which runtime answered.

import { Agent } from "undici";
import { completionPath, origin, requestHeaders, type Target } from "../openai/target.ts";
import type { ServerMetricsOptions } from "../servermetrics/scraper.ts";
import { metricsFetcher } from "../servermetrics/scraper.ts";
import { type Exchange, exchange, type ProbeRequest } from "./exchange.ts";
import { type ContractItem, refusalItems } from "./items.ts";
import {
  disconnectItem,
  healthItem,
  modelsItem,
  type OperationalDeps,
  underLoadItems,
} from "./operational.ts";
import {
  type AskChat,
  limitProbe,
  logprobsProbe,
  nProbe,
  responseFormatProbes,
  seedProbe,
  stopProbe,
  toolProbes,
} from "./params.ts";
import { identifyRuntime, type RuntimeId } from "./runtime.ts";
import { messageOf, nonStreamItems, streamItems } from "./stream-items.ts";

export interface ProbeContext {
  target: Target;
  ask: AskChat;
  /** A non-streamed request to the chat endpoint with this body as given (malformed on purpose). */
  raw(body: string, headers?: Record<string, string>): Promise<Exchange>;
  ops: OperationalDeps;
  modelsPath: string;
}

export interface Probe {
  id: string;
  /** One line for the docs. */
  what: string;
  run(ctx: ProbeContext): Promise<ContractItem[]>;
}

const HELLO = [{ role: "user", content: "Say hello." }];
const STREAM_TOKENS = 16;
/** An over-context limit no served model has. */
const OVER_CONTEXT_TOKENS = 10_000_000;

async function refused(
  ctx: ProbeContext,
  id: string,
  fields: Record<string, unknown>,
  stream = false,
) {
  return refusalItems(id, await ctx.ask(fields, stream));
}

export const BUILTIN_PROBES: readonly Probe[] = [
  {
    id: "errors.unknown_model",
    what: "an unknown model is a 4xx with OpenAI's error body",
    run: (ctx) =>
      refused(ctx, "errors.unknown_model", {
        model: "llm-perf-gate-no-such-model",
        messages: HELLO,
        max_tokens: 4,
      }),
  },
  {
    id: "errors.temperature",
    what: "temperature 5 is a 4xx",
    run: (ctx) =>
      refused(ctx, "errors.temperature", { messages: HELLO, max_tokens: 4, temperature: 5 }),
  },
  {
    id: "errors.over_context",
    what: "max_tokens beyond the context is a 4xx status, not an error inside a 200 stream",
    run: (ctx) =>
      refused(
        ctx,
        "errors.over_context",
        { messages: HELLO, max_tokens: OVER_CONTEXT_TOKENS },
        true,
      ),
  },
  {
    id: "errors.malformed_json",
    what: "a body that is not JSON is a 4xx",
    run: async (ctx) =>
      refusalItems("errors.malformed_json", await ctx.raw('{"model": "x", "messages": [')),
  },
  {
    id: "errors.missing_messages",
    what: "a chat request without messages is a 4xx",
    run: async (ctx) =>
      refusalItems(
        "errors.missing_messages",
        await ctx.raw(JSON.stringify({ model: ctx.target.model, max_tokens: 4 })),
      ),
  },
  {
    id: "errors.bad_key",
    what: "a wrong API key is a 401 (only when a key is in use)",
    run: async (ctx) => {
      if (!ctx.target.apiKey) return [];
      const body = JSON.stringify({ model: ctx.target.model, messages: HELLO, max_tokens: 4 });
      const items = refusalItems(
        "errors.bad_key",
        await ctx.raw(body, { authorization: "Bearer llm-perf-gate-wrong-key" }),
      );
      return items;
    },
  },
  {
    id: "stream",
    what: "a streamed answer: headers, framing, chunk fields, role chunk, incremental deltas, one finish, usage",
    run: async (ctx) =>
      streamItems(
        await ctx.ask(
          { messages: HELLO, max_tokens: STREAM_TOKENS, stream_options: { include_usage: true } },
          true,
        ),
        STREAM_TOKENS,
      ),
  },
  {
    id: "nonstream",
    what: "the same request non-streamed: fields, message, finish reason, usage",
    run: async (ctx) =>
      nonStreamItems(await ctx.ask({ messages: HELLO, max_tokens: STREAM_TOKENS }), STREAM_TOKENS),
  },
  {
    id: "params.max_tokens",
    what: "max_tokens 5 is honoured and ends in length",
    run: (ctx) => limitProbe(ctx.ask, "max_tokens"),
  },
  {
    id: "params.max_completion_tokens",
    what: "max_completion_tokens 5 is honoured and ends in length",
    run: (ctx) => limitProbe(ctx.ask, "max_completion_tokens"),
  },
  {
    id: "params.stop",
    what: "a stop sequence ends the answer before it",
    run: (ctx) => stopProbe(ctx.ask),
  },
  { id: "params.n", what: "n 2 gives two choices, index 0 and 1", run: (ctx) => nProbe(ctx.ask) },
  {
    id: "params.seed",
    what: "the same seed at temperature 0 gives the same text",
    run: (ctx) => seedProbe(ctx.ask),
  },
  {
    id: "params.logprobs",
    what: "logprobs with top_logprobs 2 has their shape",
    run: (ctx) => logprobsProbe(ctx.ask),
  },
  {
    id: "params.response_format",
    what: "json_object and json_schema answers are the JSON asked for",
    run: (ctx) => responseFormatProbes(ctx.ask),
  },
  {
    id: "params.tool_choice",
    what: "tool_choice auto, required, named and none",
    run: (ctx) => toolProbes(ctx.ask),
  },
  {
    id: "operational.models",
    what: "/v1/models lists the model",
    run: (ctx) => modelsItem(ctx.ops, ctx.modelsPath),
  },
  {
    id: "operational.health",
    what: "/health, when present, answers 200 without a key",
    run: async (ctx) => (await healthItem(ctx.ops)).items,
  },
  {
    id: "operational.busy",
    what: "/health and /v1/models keep answering while 16 streams run",
    run: async (ctx) =>
      underLoadItems(ctx.ops, ctx.modelsPath, (await healthItem(ctx.ops)).present),
  },
  {
    id: "operational.disconnect",
    what: "a client that leaves mid-stream frees its slot (by the server's running count)",
    run: (ctx) => disconnectItem(ctx.ops),
  },
];

/** Whether an id is the prefix or the whole of another, dot-wise. */
export const under = (id: string, prefix: string): boolean =>
  id === prefix || id.startsWith(`${prefix}.`);

export interface ContractSelection {
  /** Probe or item ids (prefixes); empty: every probe. */
  include: string[];
  exclude: string[];
}

export function selectedProbes(selection: ContractSelection, only?: ReadonlySet<string>): Probe[] {
  return BUILTIN_PROBES.filter(
    (p) =>
      (selection.include.length === 0 ||
        selection.include.some((i) => under(p.id, i) || under(i, p.id))) &&
      !selection.exclude.some((e) => under(p.id, e)) &&
      (!only || only.has(p.id)),
  );
}

export const keptItem = (selection: ContractSelection, id: string): boolean =>
  (selection.include.length === 0 || selection.include.some((i) => under(id, i) || under(i, id))) &&
  !selection.exclude.some((e) => under(id, e));

export interface ArmContract {
  items: ContractItem[];
  runtime: RuntimeId;
  seconds: number;
}

export interface ContractRunOptions {
  selection: ContractSelection;
  timeoutS: number;
  metrics: ServerMetricsOptions | null;
  /** The job's cancel: no probe starts after it. */
  signal?: AbortSignal;
}

/** Runs the selected probes (only these probe ids, on a re-run) against one arm. */
export async function runArmContract(
  target: Target,
  options: ContractRunOptions,
  only?: ReadonlySet<string>,
): Promise<ArmContract> {
  const startMs = performance.now();
  const agent = new Agent({ connections: 32 });
  const fetcher = options.metrics ? metricsFetcher() : undefined;
  const base = origin(target);
  const chatPath = completionPath(target, "chat");
  const send = (probe: ProbeRequest, timeoutS = options.timeoutS) =>
    exchange(agent, base, probe, timeoutS);
  const authHeaders: Record<string, string> = { ...target.headers };
  if (target.apiKey) authHeaders.authorization = `Bearer ${target.apiKey}`;
  const chatBody = (fields: Record<string, unknown>, stream = true) =>
    JSON.stringify({
      model: target.model,
      temperature: 0,
      messages: HELLO,
      ...target.extraBody,
      ...fields,
      stream,
    });
  const chatRequest = (
    body: string,
    stream = true,
    headers: Record<string, string> = {},
  ): ProbeRequest => ({
    method: "POST",
    path: chatPath,
    headers: { ...requestHeaders(target, stream), ...headers },
    body,
  });
  let fingerprint: unknown;
  const ctx: ProbeContext = {
    target,
    ask: async (fields, stream = false) => {
      const ex = await send(chatRequest(chatBody(fields, stream), stream));
      if (!stream && fingerprint === undefined) fingerprint = fingerprintOf(ex);
      return ex;
    },
    raw: (body, headers) => send(chatRequest(body, false, headers)),
    modelsPath: `${new URL(target.baseUrl).pathname.replace(/\/+$/, "")}/models`,
    ops: {
      send,
      chatBody,
      chatRequest,
      model: target.model,
      authHeaders,
      dispatcher: agent,
      origin: base,
      metrics:
        options.metrics && fetcher ? { options: options.metrics, fetch: fetcher.fetch } : null,
      timeoutS: options.timeoutS,
    },
  };
  const items: ContractItem[] = [];
  try {
    for (const probe of selectedProbes(options.selection, only)) {
      if (options.signal?.aborted) break;
      items.push(...(await probe.run(ctx)));
    }
    const models = await send({ method: "GET", path: ctx.modelsPath, headers: authHeaders });
    const runtime = await identifyRuntime(send, authHeaders, {
      serverHeader: models.headers.server,
      fingerprint,
    });
    return {
      items: items.filter((i) => keptItem(options.selection, i.id)),
      runtime,
      seconds: Math.round((performance.now() - startMs) / 100) / 10,
    };
  } finally {
    await agent.close();
    await fetcher?.close();
  }
}

function fingerprintOf(ex: Exchange): unknown {
  return messageOf(ex).body?.system_fingerprint;
}
