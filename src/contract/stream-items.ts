// The items of a streamed chat answer (asked with stream_options.include_usage):
// its headers, its framing, the chunks' fields, the deltas, the finish and the
// usage; and the items of a non-streamed one.

import type { Exchange } from "./exchange.ts";
import {
  type ContractItem,
  DOCUMENTED_FINISH,
  evidenceOf,
  firstChoice,
  isObject,
  item,
  type Json,
  parseJson,
  wireWord,
} from "./items.ts";

interface Chunks {
  /** Every data event but [DONE], parsed (undefined: not JSON). */
  parsed: unknown[];
  doneAt: number[];
  count: number;
}

function chunksOf(ex: Exchange): Chunks {
  const parsed: unknown[] = [];
  const doneAt: number[] = [];
  ex.events.forEach((e, i) => {
    if (e.field !== undefined) return;
    if (e.data.trim() === "[DONE]") doneAt.push(i);
    else parsed.push(parseJson(e.data));
  });
  return { parsed, doneAt, count: ex.events.length };
}

const deltaOf = (c: Json): Json | undefined => {
  const d = firstChoice(c)?.delta;
  return isObject(d) ? d : undefined;
};

export function framingItems(ex: Exchange): ContractItem[] {
  const evidence = evidenceOf(ex);
  const type = wireWord((ex.headers["content-type"] ?? "absent").split(";")[0] ?? "");
  const { parsed, doneAt, count } = chunksOf(ex);
  const done =
    doneAt.length === 0
      ? "no [DONE]"
      : doneAt.length > 1
        ? "[DONE] more than once"
        : doneAt[0] !== count - 1
          ? "events after [DONE]"
          : "[DONE] last";
  const notJson = parsed.filter((p) => !isObject(p)).length;
  return [
    item("stream.content_type", type === "text/event-stream", type, evidence),
    item("stream.cache_control", null, wireWord(ex.headers["cache-control"] ?? "absent"), evidence),
    item("stream.done", done === "[DONE] last", done, evidence),
    item(
      "stream.json",
      notJson === 0,
      notJson === 0 ? "every event JSON" : `${notJson} events not JSON`,
      evidence,
    ),
  ];
}

const rising = (chunks: Json[]): boolean =>
  chunks.every((c, i) => i === 0 || Number(c.created) >= Number(chunks[i - 1]?.created));

/** id, object, created and model on every chunk, the same on each (created may rise). */
function fieldsItem(chunks: Json[], evidence: string): ContractItem {
  const problems: string[] = [];
  const first = chunks[0];
  for (const key of ["id", "object", "created", "model"]) {
    if (chunks.some((c) => c[key] === undefined || c[key] === null))
      problems.push(`${key} missing`);
    // created is stamped per chunk by some servers (llama.cpp): it may rise, never fall.
    else if (key === "created" ? !rising(chunks) : chunks.some((c) => c[key] !== first?.[key]))
      problems.push(`${key} changes`);
  }
  if (chunks.some((c) => c.object !== undefined && c.object !== "chat.completion.chunk"))
    problems.push("object is not chat.completion.chunk");
  return item(
    "stream.fields",
    problems.length === 0,
    problems.length === 0 ? "id, object, created, model on every chunk" : problems.join(", "),
    evidence,
  );
}

function roleItem(chunks: Json[], evidence: string): ContractItem {
  const at = chunks.findIndex((c) => deltaOf(c)?.role !== undefined);
  const delta = at < 0 ? undefined : deltaOf(chunks[at] as Json);
  const value =
    at < 0
      ? "absent"
      : typeof delta?.content === "string" && delta.content !== ""
        ? "with the first token"
        : "a chunk of its own";
  return item("stream.role_chunk", null, value, evidence);
}

/** Deltas carry only the new text: a delta that starts with all the text so far repeats it. */
function incrementalItem(chunks: Json[], evidence: string): ContractItem {
  let sofar = "";
  let repeated = 0;
  for (const c of chunks) {
    const content = deltaOf(c)?.content;
    if (typeof content !== "string" || content === "") continue;
    if (sofar !== "" && content.length > sofar.length && content.startsWith(sofar)) repeated++;
    sofar += content;
  }
  return item(
    "stream.incremental",
    repeated === 0,
    repeated === 0 ? "deltas hold the new text" : "deltas repeat the text so far",
    evidence,
  );
}

function finishItems(chunks: Json[], evidence: string): ContractItem[] {
  const reasons = chunks
    .map((c) => firstChoice(c)?.finish_reason)
    .filter((r) => r !== undefined && r !== null);
  const reason = wireWord(reasons[0] ?? "none");
  return [
    item(
      "stream.finish_chunk",
      reasons.length === 1,
      reasons.length === 1 ? "one finish chunk" : `${reasons.length} finish chunks`,
      evidence,
    ),
    item("stream.finish_reason", DOCUMENTED_FINISH.has(reason), reason, evidence),
  ];
}

/** Where usage came: a chunk of its own (choices []) before [DONE], in the finish chunk, or not at all. */
function usagePlacement(chunks: Json[], evidence: string): ContractItem {
  const at = chunks.findIndex((c) => isObject(c.usage));
  const c = chunks[at];
  const value = !c
    ? "absent"
    : Array.isArray(c.choices) && c.choices.length === 0
      ? at === chunks.length - 1
        ? "a chunk of its own, last"
        : "a chunk of its own, not last"
      : "in the finish chunk";
  return item("stream.usage_chunk", value !== "absent", value, evidence);
}

/** total = prompt + completion, completion ≤ max_tokens and at least the content chunks streamed. */
export function usageItems(
  prefix: string,
  usage: unknown,
  maxTokens: number,
  contentChunks: number | undefined,
  evidence: string,
): ContractItem[] {
  if (!isObject(usage)) return [item(`${prefix}.usage`, false, "no usage", evidence)];
  const { prompt_tokens: p, completion_tokens: c, total_tokens: t } = usage;
  if (typeof p !== "number" || typeof c !== "number" || typeof t !== "number")
    return [item(`${prefix}.usage`, false, "usage without its three counts", evidence)];
  const items = [
    item(
      `${prefix}.usage`,
      t === p + c,
      t === p + c ? "total = prompt + completion" : `total ${t} ≠ ${p} + ${c}`,
      evidence,
    ),
    item(
      `${prefix}.usage_max_tokens`,
      c <= maxTokens,
      c <= maxTokens ? "completion ≤ max_tokens" : `completion ${c} > max_tokens ${maxTokens}`,
      evidence,
    ),
    item(`${prefix}.prompt_tokens`, null, `${p} prompt tokens`, evidence),
  ];
  if (contentChunks !== undefined)
    items.push(
      item(
        `${prefix}.usage_vs_stream`,
        c >= contentChunks,
        c >= contentChunks ? "completion ≥ streamed chunks" : "completion < streamed chunks",
        `${c} completion tokens, ${contentChunks} content chunks; ${evidence}`,
      ),
    );
  return items;
}

/** Every item of a streamed chat answer asked with include_usage. */
export function streamItems(ex: Exchange, maxTokens: number): ContractItem[] {
  const evidence = evidenceOf(ex);
  if (ex.status !== 200 || ex.events.length === 0)
    return [
      item(
        "stream.answered",
        false,
        ex.status === 200 ? "not a stream" : `status ${ex.status}`,
        evidence,
      ),
    ];
  const chunks = chunksOf(ex).parsed.filter(isObject);
  const contentChunks = chunks.filter((c) => {
    const content = deltaOf(c)?.content;
    return typeof content === "string" && content !== "";
  }).length;
  const usage = chunks.find((c) => isObject(c.usage))?.usage;
  return [
    item("stream.answered", true, "a stream", evidence),
    ...framingItems(ex),
    fieldsItem(chunks, evidence),
    roleItem(chunks, evidence),
    incrementalItem(chunks, evidence),
    ...finishItems(chunks, evidence),
    usagePlacement(chunks, evidence),
    ...usageItems("stream", usage, maxTokens, contentChunks, evidence),
  ];
}

/** A non-streamed chat answer: its fields, the message, the finish reason, the usage. */
export function nonStreamItems(ex: Exchange, maxTokens: number): ContractItem[] {
  const evidence = evidenceOf(ex);
  const body = parseJson(ex.text);
  if (ex.status !== 200 || !isObject(body))
    return [
      item(
        "nonstream.answered",
        false,
        ex.status === 200 ? "not JSON" : `status ${ex.status}`,
        evidence,
      ),
    ];
  const c = firstChoice(body);
  const message = isObject(c?.message) ? c.message : undefined;
  const problems: string[] = [];
  for (const key of ["id", "created", "model"])
    if (body[key] === undefined) problems.push(`${key} missing`);
  if (body.object !== "chat.completion") problems.push("object is not chat.completion");
  if (message?.role !== "assistant") problems.push("message.role is not assistant");
  if (message && typeof message.content !== "string" && message.content !== null)
    problems.push("message.content is neither text nor null");
  const reason = wireWord(c?.finish_reason ?? "none");
  return [
    item("nonstream.answered", true, "a JSON answer", evidence),
    item(
      "nonstream.fields",
      problems.length === 0,
      problems.length === 0 ? "id, object, created, model, message" : problems.join(", "),
      evidence,
    ),
    item("nonstream.finish_reason", DOCUMENTED_FINISH.has(reason), reason, evidence),
    ...usageItems("nonstream", body.usage, maxTokens, undefined, evidence),
  ];
}

/** The first choice's message of a non-streamed answer, when there is one. */
export function messageOf(ex: Exchange): { body: Json | undefined; message: Json | undefined } {
  const body = parseJson(ex.text);
  if (!isObject(body)) return { body: undefined, message: undefined };
  const m = firstChoice(body)?.message;
  return { body, message: isObject(m) ? m : undefined };
}
