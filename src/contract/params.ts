// Probes that a request's parameters are honoured: the token limits, stop
// sequences, n, seed, logprobs, response_format and tool_choice. Each asks
// non-streamed, at temperature 0, and reads the answer.

import type { Exchange } from "./exchange.ts";
import {
  type ContractItem,
  evidenceOf,
  firstChoice,
  isObject,
  item,
  type Json,
  parseJson,
  wireWord,
} from "./items.ts";
import { messageOf } from "./stream-items.ts";

/** Sends one chat request with these fields (model, messages and temperature 0 filled in). */
export type AskChat = (fields: Json, stream?: boolean) => Promise<Exchange>;

const STORY = [{ role: "user", content: "Write a long story about a lighthouse keeper." }];
const JSON_ASK = [{ role: "user", content: "Give a city and its country as a JSON object." }];

const finishOf = (body: Json | undefined): string =>
  wireWord(firstChoice(body)?.finish_reason ?? "none");
const completionTokens = (body: Json | undefined): number | undefined => {
  const u = body?.usage;
  return isObject(u) && typeof u.completion_tokens === "number" ? u.completion_tokens : undefined;
};

/** A limit of 5 tokens: at most 5, and `length` when the limit ended it (the only truncation signal). */
export async function limitProbe(ask: AskChat, key: "max_tokens" | "max_completion_tokens") {
  const ex = await ask({ messages: STORY, [key]: 5 });
  const { body } = messageOf(ex);
  const tokens = completionTokens(body);
  const reason = finishOf(body);
  const holds =
    ex.status === 200 && tokens !== undefined && tokens <= 5 && (tokens < 5 || reason === "length");
  const value =
    ex.status === 200 ? `finish ${reason}, ${tokens ?? "?"} tokens` : `status ${ex.status}`;
  return [item(`params.${key}`, holds, value, evidenceOf(ex))];
}

/** The 4th word of an answer as a stop sequence: the second answer stops before it, finish `stop`. */
export async function stopProbe(ask: AskChat): Promise<ContractItem[]> {
  const first = await ask({ messages: STORY, max_tokens: 24 });
  const text = String(messageOf(first).message?.content ?? "");
  const words = text.split(/\s+/).filter((w) => /^[A-Za-z]{3,}$/.test(w));
  const stop = words[3];
  if (first.status !== 200 || stop === undefined)
    return [item("params.stop", null, "answer too short to test", evidenceOf(first))];
  const second = await ask({ messages: STORY, max_tokens: 24, stop: [stop] });
  const { body, message } = messageOf(second);
  const content = String(message?.content ?? "");
  const holds = second.status === 200 && !content.includes(stop) && finishOf(body) === "stop";
  const value =
    second.status !== 200
      ? `status ${second.status}`
      : holds
        ? "stopped before the sequence"
        : `ignored (finish ${finishOf(body)})`;
  return [item("params.stop", holds, value, evidenceOf(second))];
}

export async function nProbe(ask: AskChat): Promise<ContractItem[]> {
  const ex = await ask({ messages: STORY, max_tokens: 4, n: 2 });
  const { body } = messageOf(ex);
  const choices = Array.isArray(body?.choices) ? body.choices : [];
  const indices = choices.map((c) => (isObject(c) ? c.index : undefined)).join(",");
  const holds = ex.status === 200 && choices.length === 2 && indices === "0,1";
  const value =
    ex.status !== 200 ? `status ${ex.status}` : `${choices.length} choices (index ${indices})`;
  return [item("params.n", holds, value, evidenceOf(ex))];
}

export async function seedProbe(ask: AskChat): Promise<ContractItem[]> {
  const fields = { messages: STORY, max_tokens: 16, seed: 7 };
  const a = await ask(fields);
  const b = await ask(fields);
  const same = messageOf(a).message?.content === messageOf(b).message?.content;
  const holds = a.status === 200 && b.status === 200 && same;
  const value =
    a.status !== 200 ? `status ${a.status}` : same ? "same text twice" : "different texts";
  return [item("params.seed", holds, value, evidenceOf(b))];
}

export async function logprobsProbe(ask: AskChat): Promise<ContractItem[]> {
  const ex = await ask({ messages: STORY, max_tokens: 4, logprobs: true, top_logprobs: 2 });
  const { body } = messageOf(ex);
  const logprobs = firstChoice(body)?.logprobs;
  const lp = isObject(logprobs) ? logprobs.content : undefined;
  const entries = Array.isArray(lp) ? lp : [];
  const wellFormed = entries.every(
    (e) =>
      isObject(e) &&
      typeof e.token === "string" &&
      typeof e.logprob === "number" &&
      Array.isArray(e.top_logprobs) &&
      e.top_logprobs.length === 2,
  );
  const holds = ex.status === 200 && entries.length > 0 && wellFormed;
  const value =
    ex.status !== 200
      ? `status ${ex.status}`
      : entries.length === 0
        ? "no logprobs.content"
        : wellFormed
          ? "token, logprob and 2 top_logprobs per token"
          : "entries missing token, logprob or top_logprobs";
  return [item("params.logprobs", holds, value, evidenceOf(ex))];
}

const CITY_SCHEMA = {
  type: "object",
  properties: { city: { type: "string" }, country: { type: "string" } },
  required: ["city", "country"],
};

export async function responseFormatProbes(ask: AskChat): Promise<ContractItem[]> {
  const items: ContractItem[] = [];
  const formats: [string, Json, (v: unknown) => boolean][] = [
    ["json_object", { type: "json_object" }, isObject],
    [
      "json_schema",
      { type: "json_schema", json_schema: { name: "place", schema: CITY_SCHEMA } },
      (v) => isObject(v) && typeof v.city === "string" && typeof v.country === "string",
    ],
  ];
  for (const [name, format, valid] of formats) {
    const ex = await ask({ messages: JSON_ASK, max_tokens: 64, response_format: format });
    const content = messageOf(ex).message?.content;
    const ok = ex.status === 200 && typeof content === "string" && valid(parseJson(content));
    const value =
      ex.status !== 200 ? `status ${ex.status}` : ok ? "valid JSON" : "not the JSON asked for";
    items.push(item(`params.response_format.${name}`, ok, value, evidenceOf(ex)));
  }
  return items;
}

const WEATHER_TOOL = {
  type: "function",
  function: {
    name: "get_weather",
    description: "The weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};
const WEATHER_ASK = [{ role: "user", content: "What is the weather in Paris?" }];

function toolCallsOf(message: Json | undefined): { name: string; args: unknown }[] {
  const calls = Array.isArray(message?.tool_calls) ? message.tool_calls : [];
  return calls.map((c) => {
    const fn = isObject(c) && isObject(c.function) ? c.function : {};
    return { name: String(fn.name ?? ""), args: parseJson(String(fn.arguments ?? "")) };
  });
}

/** tool_choice required / named: a call to get_weather with JSON arguments; none: no call; auto: recorded. */
export async function toolProbes(ask: AskChat): Promise<ContractItem[]> {
  const named = { type: "function", function: { name: "get_weather" } };
  const choices: [string, unknown][] = [
    ["auto", "auto"],
    ["required", "required"],
    ["named", named],
    ["none", "none"],
  ];
  const items: ContractItem[] = [];
  for (const [name, choice] of choices) {
    const ex = await ask({
      messages: WEATHER_ASK,
      max_tokens: 64,
      tools: [WEATHER_TOOL],
      tool_choice: choice,
    });
    const { body, message } = messageOf(ex);
    const calls = toolCallsOf(message);
    const called =
      calls.length > 0 && calls.every((c) => c.name === "get_weather" && isObject(c.args));
    const value =
      ex.status !== 200
        ? `status ${ex.status}`
        : calls.length === 0
          ? `text (finish ${finishOf(body)})`
          : called
            ? `a get_weather call (finish ${finishOf(body)})`
            : "a malformed call";
    const holds =
      ex.status !== 200
        ? false
        : name === "none"
          ? calls.length === 0
          : name === "auto"
            ? null
            : called;
    items.push(item(`params.tool_choice.${name}`, holds, value, evidenceOf(ex)));
  }
  return items;
}
