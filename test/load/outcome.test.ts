import assert from "node:assert/strict";
import { test } from "node:test";
import { classify } from "../../src/load/outcome.ts";
import { newRecord, type RequestRecord } from "../../src/load/record.ts";
import { applyStreamEvent } from "../../src/load/stream.ts";

function okRecord(overrides: Partial<RequestRecord> = {}): RequestRecord {
  const r = newRecord(0, false, 0, 1000, undefined);
  Object.assign(r, {
    dispatchMs: 1,
    headersMs: 5,
    endMs: 100,
    status: 200,
    outputChunks: 10,
    sawDone: true,
    finishReason: "stop",
    ...overrides,
  });
  return r;
}

test("every branch of the outcome classes", () => {
  const cases: [Partial<RequestRecord>, string][] = [
    [{}, "ok"],
    [{ dispatchMs: Number.NaN, endMs: Number.NaN }, "unsent"],
    [{ timedOut: true }, "censored"],
    [{ endMs: 1001 }, "censored"],
    [{ endMs: Number.NaN }, "censored"],
    [{ status: 0, transportError: "ECONNREFUSED" }, "connect_error"],
    [{ status: 429, headers: { "x-ratelimit-remaining-requests": "0" } }, "rate_limited_quota"],
    [{ status: 429, body: '{"error":{"code":"insufficient_quota"}}' }, "rate_limited_quota"],
    [{ status: 429, body: '{"error":{"code":"engine_overloaded"}}' }, "overloaded"],
    [{ status: 429, body: '{"error":{"message":"Too Many Requests"}}' }, "rate_limited"],
    [{ status: 503 }, "overloaded"],
    [{ status: 529 }, "overloaded"],
    [{ status: 498 }, "overloaded"],
    [{ status: 500 }, "http_5xx"],
    [{ status: 404 }, "http_4xx"],
    [{ status: 302 }, "protocol_error"],
    [{ streamError: '{"message":"boom"}' }, "stream_error"],
    [{ streamError: "x", sawDone: false, finishReason: undefined }, "stream_error"],
    [{ protocolError: "a data event is not JSON" }, "protocol_error"],
    [{ transportError: "other side closed" }, "truncated"],
    [{ sawDone: false }, "truncated"],
    [{ finishReason: undefined }, "truncated"],
    [{ incompleteEvent: true }, "truncated"],
    [{ outputChunks: 0 }, "empty"],
    [{ fixedTokens: 64, usageCompletionTokens: 20, finishReason: "stop" }, "short"],
    [{ fixedTokens: 64, usageCompletionTokens: 64, finishReason: "length" }, "ok"],
    [{ fixedTokens: 64, outputChunks: 16, finishReason: "length" }, "ok"],
    [{ fixedTokens: 8, outputChunks: 10, finishReason: "stop" }, "ok"],
  ];
  for (const [overrides, expected] of cases) {
    assert.equal(classify(okRecord(overrides)), expected, JSON.stringify(overrides));
  }
});

function streamed(events: string[]): RequestRecord {
  const r = okRecord({ outputChunks: 0, sawDone: false, finishReason: undefined });
  events.forEach((data, i) => {
    applyStreamEvent(r, data, 10 * (i + 1));
  });
  return r;
}

test("a role-only chunk is not output; content, reasoning, text and tool-call deltas are", () => {
  const role = '{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}';
  const content = '{"choices":[{"index":0,"delta":{"content":"Hi"}}]}';
  const reasoning = '{"choices":[{"index":0,"delta":{"reasoning_content":"hmm"}}]}';
  const tool =
    '{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":""}}]}}]}';
  const text = '{"choices":[{"index":0,"text":"Hi","finish_reason":null}]}';
  const finish = '{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}';
  const usage = '{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}';
  const r = streamed([role, content, reasoning, tool, text, finish, usage, "[DONE]"]);
  assert.equal(r.firstOutputMs, 20, "TTFT starts at the first content chunk, not the role chunk");
  assert.equal(r.outputChunks, 4);
  assert.deepEqual(r.gapsMs, [10, 10, 10]);
  assert.equal(r.finishReason, "stop");
  assert.equal(r.usageCompletionTokens, 4);
  assert.equal(r.sawDone, true);
  assert.equal(classify(r), "ok");
  const toolOnly = streamed([
    role,
    tool,
    '{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}',
    "[DONE]",
  ]);
  assert.equal(classify(toolOnly), "ok", "a tool call is output");
  assert.equal(classify(streamed([role, finish, "[DONE]"])), "empty");
});

test("a reasoning model: TTFT at its first thought, the first answer token apart, usage's details read", () => {
  const role = '{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}';
  const thought = '{"choices":[{"index":0,"delta":{"reasoning_content":"hmm"}}]}';
  // Newer vLLM names the field `reasoning`.
  const thought2 = '{"choices":[{"index":0,"delta":{"reasoning":"so"}}]}';
  const answer = '{"choices":[{"index":0,"delta":{"content":"Yes"}}]}';
  const finish = '{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}';
  const usage =
    '{"choices":[],"usage":{"prompt_tokens":30,"completion_tokens":3,"completion_tokens_details":{"reasoning_tokens":2},"prompt_tokens_details":{"cached_tokens":16}}}';
  const r = streamed([role, thought, thought2, answer, finish, usage, "[DONE]"]);
  assert.equal(r.firstOutputMs, 20, "TTFT: the first token of any kind");
  assert.equal(r.firstAnswerMs, 40, "the first answer token");
  assert.equal(r.reasoningChunks, 2);
  assert.equal(r.outputChunks, 3);
  assert.deepEqual([r.usageReasoningTokens, r.usageCachedTokens], [2, 16]);
  assert.equal(classify(r), "ok");
  const plain = streamed([role, answer, finish, "[DONE]"]);
  assert.equal(plain.firstAnswerMs, plain.firstOutputMs, "no thinking: the same instant");
});

test("a refusal and a finish_reason outside the contract are outcomes of their own, not ok", () => {
  const role = '{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}';
  const answer = '{"choices":[{"index":0,"delta":{"content":"Paris"}}]}';
  const finish = (reason: string) =>
    `{"choices":[{"index":0,"delta":{},"finish_reason":"${reason}"}]}`;
  const refusal = '{"choices":[{"index":0,"delta":{"refusal":"I can\'t help with that."}}]}';
  assert.equal(classify(streamed([role, refusal, finish("stop"), "[DONE]"])), "refused");
  assert.equal(
    classify(streamed([role, answer, finish("content_filter"), "[DONE]"])),
    "refused",
    "a filtered answer is a refusal, not an empty one",
  );
  assert.equal(classify(streamed([role, answer, finish("error"), "[DONE]"])), "finish_error");
  assert.equal(classify(streamed([role, answer, finish("abort"), "[DONE]"])), "finish_error");
  // TGI before 2.2 says eos_token, some hosted APIs eos: a stop by another name.
  for (const reason of ["stop", "length", "tool_calls", "eos_token", "eos"])
    assert.equal(classify(streamed([role, answer, finish(reason), "[DONE]"])), "ok", reason);
  assert.equal(classify(streamed([role, finish("stop"), "[DONE]"])), "empty", "a silent drop");
});

test("in-band errors, malformed data and data after [DONE] are recognised", () => {
  const content = '{"choices":[{"index":0,"delta":{"content":"Hi"}}]}';
  const finish = '{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}';
  assert.equal(
    classify(streamed([content, '{"error":{"message":"CUDA error"}}', "[DONE]"])),
    "stream_error",
  );
  assert.equal(
    classify(streamed([content, '{"object":"error","message":"x"}', "[DONE]"])),
    "stream_error",
  );
  assert.equal(classify(streamed([content, "not json", finish, "[DONE]"])), "protocol_error");
  assert.equal(classify(streamed([content, "[1,2]", finish, "[DONE]"])), "protocol_error");
  assert.equal(classify(streamed([content, '{"id":"x"}', finish, "[DONE]"])), "protocol_error");
  assert.equal(classify(streamed([content, finish, "[DONE]", content])), "protocol_error");
  const r = streamed([content, "not json"]);
  assert.match(r.protocolError ?? "", /not JSON: not json/);
});
