// The contract's pure parts: what an exchange's items say, the diff between
// the arms (a regression counts only when the re-run shows it again), and the
// file that chooses the probes.

import assert from "node:assert/strict";
import { test } from "node:test";
import { classify, compareContract, suspectIds } from "../../src/contract/diff.ts";
import { type Exchange, sseEvents } from "../../src/contract/exchange.ts";
import { type ContractItem, refusalItems } from "../../src/contract/items.ts";
import { selectedProbes } from "../../src/contract/probes.ts";
import { retryAfterItems } from "../../src/contract/rate-limits.ts";
import { parseContractSelection } from "../../src/contract/selection.ts";
import { streamItems } from "../../src/contract/stream-items.ts";

function exchangeOf(status: number, text: string, contentType = "application/json"): Exchange {
  const stream = contentType.startsWith("text/event-stream");
  return {
    status,
    headers: { "content-type": contentType },
    text,
    events: stream ? sseEvents(text) : [],
    error: null,
    ms: 1,
  };
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra = {}) =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
const usage = (p: number, c: number) =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [], usage: { prompt_tokens: p, completion_tokens: c, total_tokens: p + c } })}\n\n`;

const byId = (items: ContractItem[]) => new Map(items.map((i) => [i.id, i]));

test("a well-formed stream holds every item; its role chunk and usage placement are recorded", () => {
  const text = `${chunk({ role: "assistant", content: "" })}${chunk({ content: "Hi" })}${chunk({ content: " there" })}${chunk({}, "length")}${usage(3, 2)}data: [DONE]\n\n`;
  const items = byId(streamItems(exchangeOf(200, text, "text/event-stream"), 2));
  for (const i of items.values()) assert.notEqual(i.holds, false, `${i.id}: ${i.value}`);
  assert.equal(items.get("stream.role_chunk")?.value, "a chunk of its own");
  assert.equal(items.get("stream.usage_chunk")?.value, "a chunk of its own, last");
  assert.equal(items.get("stream.usage_vs_stream")?.value, "completion ≥ streamed chunks");
  assert.equal(items.get("stream.answered")?.holds, true);
});

test("a stream that repeats the text so far, sends two finishes and data after [DONE] breaks those items", () => {
  const text = `${chunk({ content: "Hi" })}${chunk({ content: "Hi there" }, "stop")}${chunk({}, "stop")}data: [DONE]\n\n${chunk({ content: "late" })}`;
  const items = byId(streamItems(exchangeOf(200, text, "text/event-stream"), 16));
  assert.equal(items.get("stream.incremental")?.holds, false);
  assert.equal(items.get("stream.finish_chunk")?.value, "2 finish chunks");
  assert.equal(items.get("stream.done")?.value, "events after [DONE]");
  assert.equal(items.get("stream.usage_chunk")?.holds, false, "include_usage asked, none came");
  assert.equal(items.get("stream.role_chunk")?.value, "absent");
});

test("an invented finish reason and usage that does not add up break their items", () => {
  const bad = `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: {}, finish_reason: "done" }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 9 } })}\n\n`;
  const items = byId(
    streamItems(
      exchangeOf(200, `${chunk({ content: "a" })}${bad}data: [DONE]\n\n`, "text/event-stream"),
      16,
    ),
  );
  assert.equal(items.get("stream.finish_reason")?.holds, false);
  assert.equal(items.get("stream.finish_reason")?.value, "done");
  assert.equal(items.get("stream.usage")?.value, "total 9 ≠ 3 + 2");
  assert.equal(items.get("stream.usage_chunk")?.value, "in the finish chunk");
});

test("a refused request: a 4xx with OpenAI's error body holds; an error inside a 200 stream or a body without code does not", () => {
  const full = JSON.stringify({ error: { message: "m", type: "t", param: null, code: "x" } });
  assert.deepEqual(
    refusalItems("errors.x", exchangeOf(400, full)).map((i) => [i.holds, i.value]),
    [
      [true, "status 400"],
      [true, "error{message,type,param,code}"],
    ],
  );
  const noCode = JSON.stringify({ error: { message: "m", type: "t", param: null } });
  assert.equal(
    refusalItems("errors.x", exchangeOf(404, noCode))[1]?.value,
    "error{message,type,param} without code",
  );
  const inStream = exchangeOf(200, `data: ${full}\n\ndata: [DONE]\n\n`, "text/event-stream");
  assert.deepEqual(
    refusalItems("errors.x", inStream).map((i) => i.holds),
    [false, true],
  );
  assert.equal(refusalItems("errors.x", inStream)[0]?.value, "200 with an in-stream error");
  const answered = refusalItems("errors.x", exchangeOf(200, '{"choices": []}'));
  assert.deepEqual(
    answered.map((i) => [i.holds, i.value]),
    [
      [false, "status 200"],
      [null, "no error"],
    ],
  );
});

test("a server's words in a value are plain and short (they reach the comment)", () => {
  const evil = `${"x".repeat(100)}<img src=x>\`@someone|`;
  const text = `${chunk({ content: "a" })}${chunk({}, evil)}data: [DONE]\n\n`;
  const reason = byId(streamItems(exchangeOf(200, text, "text/event-stream"), 16)).get(
    "stream.finish_reason",
  );
  assert.ok(reason && reason.value.length <= 40 && !/[<>`@|]/.test(reason.value), reason?.value);
});

const it = (id: string, holds: boolean | null, value: string): ContractItem => ({
  id,
  holds,
  value,
  evidence: "",
});

test("the diff: a break confirmed by the re-run fails, one not seen again is flaky, a changed value is listed, a shared break is pre-existing", () => {
  const items = {
    baseline: [
      it("a", true, "ok"),
      it("b", true, "ok"),
      it("c", null, "own chunk"),
      it("d", false, "bad"),
      it("e", false, "bad"),
      it("f", null, "12 ms"),
    ],
    candidate: [
      it("a", false, "broken"),
      it("b", false, "broken"),
      it("c", null, "finish chunk"),
      it("d", false, "bad"),
      it("e", true, "ok"),
      it("f", null, "15 ms"),
    ],
  };
  assert.deepEqual(suspectIds(items), ["a", "b", "c", "f"]);
  const reruns = {
    baseline: [
      it("a", true, "ok"),
      it("b", true, "ok"),
      it("c", null, "own chunk"),
      it("f", null, "13 ms"),
    ],
    candidate: [
      it("a", false, "broken"),
      it("b", true, "ok"),
      it("c", null, "finish chunk"),
      it("f", null, "11 ms"),
    ],
  };
  const none = { baseline: null, candidate: null };
  const r = compareContract(items, reruns, none, { baseline: 1, candidate: 1 });
  assert.equal(r.verdict, "fail");
  assert.deepEqual(
    r.regressions.map((f) => f.id),
    ["a"],
  );
  // b did not break again; f changed again, but not to the same values: both flaky.
  assert.deepEqual(
    r.flaky.map((f) => f.id),
    ["b", "f"],
  );
  assert.deepEqual(
    r.changes.map((f) => f.id),
    ["c"],
  );
  assert.deepEqual(
    r.preexisting.map((f) => f.id),
    ["d"],
  );
  assert.deepEqual(
    r.fixed.map((f) => f.id),
    ["e"],
  );
  // Without the re-run nothing is confirmed: nothing fails.
  const unconfirmed = compareContract(items, { baseline: [], candidate: [] }, none, {
    baseline: 1,
    candidate: 1,
  });
  assert.equal(unconfirmed.verdict, "pass");
  assert.equal(classify(it("x", true, "a"), it("x", true, "a")), "same");
});

test("a candidate whose stream fails: its answered item breaks, the items it could not record are not changes", () => {
  const ok = `${chunk({ role: "assistant", content: "" })}${chunk({ content: "Hi" })}${chunk({}, "length")}${usage(3, 1)}data: [DONE]\n\n`;
  const baseline = streamItems(exchangeOf(200, ok, "text/event-stream"), 16);
  const candidate = streamItems(exchangeOf(500, '{"error": {"message": "boom"}}'), 16);
  const items = { baseline, candidate };
  const r = compareContract(
    items,
    items,
    { baseline: null, candidate: null },
    { baseline: 1, candidate: 1 },
  );
  assert.deepEqual(
    r.regressions.map((f) => [f.id, f.candidate.value]),
    [["stream.answered", "status 500"]],
  );
  assert.deepEqual(r.changes, []);
});

test("429s and 503s are judged apart: which come depends on the load", () => {
  const with429 = retryAfterItems([{ status: 429, headers: { "retry-after": "1" }, body: "{}" }]);
  const without503 = retryAfterItems([{ status: 503, headers: {}, body: "{}" }]);
  assert.deepEqual(
    with429.map((i) => [i.id, i.holds]),
    [
      ["ratelimit.retry_after_429", true],
      ["ratelimit.retry_after_503", null],
    ],
  );
  const r = compareContract(
    { baseline: with429, candidate: without503 },
    { baseline: with429, candidate: without503 },
    { baseline: null, candidate: null },
    { baseline: 1, candidate: 1 },
  );
  assert.equal(r.verdict, "pass", "a 503 the baseline never sent is a change, not a break");
});

test("a contract file chooses probes and items by id, and refuses ids that name nothing", () => {
  const s = parseContractSelection(
    '{"include": ["errors", "stream"], "exclude": ["errors.bad_key"]}',
    "c.json",
  );
  const ids = selectedProbes(s).map((p) => p.id);
  assert.ok(ids.includes("errors.unknown_model") && ids.includes("stream"));
  assert.ok(!ids.includes("errors.bad_key") && !ids.includes("params.n"));
  // An item id selects its probe.
  assert.deepEqual(
    selectedProbes(parseContractSelection('{"include": ["stream.role_chunk"]}', "c.json")).map(
      (p) => p.id,
    ),
    ["stream"],
  );
  assert.throws(
    () => parseContractSelection('{"include": ["strem"]}', "c.json"),
    /contract file c\.json: include\[0\] = "strem" names no probe or item; expected .*probes: errors\.unknown_model/,
  );
  assert.throws(
    () => parseContractSelection('{"only": []}', "c.json"),
    /key "only" is not accepted/,
  );
  assert.throws(
    () => parseContractSelection("[1]", "c.json"),
    /contract file c\.json is not a JSON object/,
  );
});
