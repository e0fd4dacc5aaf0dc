import assert from "node:assert/strict";
import { test } from "node:test";
import { type SseEvent, SseParser } from "../../src/openai/sse.ts";

interface Parsed {
  events: SseEvent[];
  comments: string[];
  incomplete: boolean;
}

function parseChunks(chunks: Uint8Array[]): Parsed {
  const out: Parsed = { events: [], comments: [], incomplete: false };
  const parser = new SseParser({
    onEvent: (e) => out.events.push(e),
    onComment: (c) => out.comments.push(c),
  });
  for (const c of chunks) parser.push(c);
  out.incomplete = parser.end();
  return out;
}

/** Every way to cut the bytes in two, and every byte on its own. */
function splits(bytes: Uint8Array): Uint8Array[][] {
  const all: Uint8Array[][] = [[bytes]];
  for (let i = 1; i < bytes.length; i++) all.push([bytes.subarray(0, i), bytes.subarray(i)]);
  all.push(Array.from(bytes, (_, i) => bytes.subarray(i, i + 1)));
  return all;
}

const encode = (text: string) => new TextEncoder().encode(text);

const RECORDED =
  'data: {"choices":[{"delta":{"role":"assistant","content":""}}]}\n\n' +
  ": ping\n\n" +
  'data: {"choices":[{"delta":{"content":"héllo wörld ✓ 🚀"}}]}\n\n' +
  'data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\n' +
  "data: [DONE]\n\n";

test("a recorded stream parses the same at every split point", () => {
  const bytes = encode(RECORDED);
  const expected = parseChunks([bytes]);
  assert.equal(expected.events.length, 4);
  assert.equal(expected.events[3]?.data, "[DONE]");
  assert.match(expected.events[1]?.data ?? "", /héllo wörld ✓ 🚀/);
  assert.deepEqual(expected.comments, [" ping"]);
  for (const chunks of splits(bytes)) assert.deepEqual(parseChunks(chunks), expected);
});

test("CR, LF and CRLF line ends are equivalent, including a CRLF split across chunks", () => {
  const lf = parseChunks([encode(RECORDED)]);
  for (const eol of ["\r\n", "\r"]) {
    const bytes = encode(RECORDED.replaceAll("\n", eol));
    for (const chunks of splits(bytes))
      assert.deepEqual(parseChunks(chunks), lf, JSON.stringify(eol));
  }
});

test("multi-line data, other fields, fields without a space, and events without data", () => {
  const text =
    "event: message\nid: 7\nretry: 1000\ndata: first\ndata:second\ndata\nfoo: bar\n\n" +
    "id: 8\n\n" + // no data: not dispatched
    'event: error\ndata: {"error":{"message":"boom"}}\n\n' +
    "data: not json at all\n\n";
  const expected: SseEvent[] = [
    { data: "first\nsecond\n", event: "message" },
    { data: '{"error":{"message":"boom"}}', event: "error" },
    { data: "not json at all", event: "" },
  ];
  for (const chunks of splits(encode(text))) {
    const parsed = parseChunks(chunks);
    assert.deepEqual(parsed.events, expected);
    assert.equal(parsed.incomplete, false);
  }
});

test("a stream that stops inside an event reports it and drops the event", () => {
  for (const tail of ['data: {"choices":[', "data: [DONE]\n", "event: x\n"]) {
    const parsed = parseChunks([encode(`data: one\n\n${tail}`)]);
    assert.deepEqual(parsed.events, [{ data: "one", event: "" }]);
    assert.equal(parsed.incomplete, true, JSON.stringify(tail));
  }
  assert.equal(parseChunks([encode("data: one\n\n")]).incomplete, false);
});

test("a UTF-8 character split across chunks is decoded whole", () => {
  const bytes = encode("data: 🚀\n\n");
  // The rocket is 4 bytes at offsets 6..9: cut inside it at every offset.
  for (let i = 7; i <= 9; i++) {
    const parsed = parseChunks([bytes.subarray(0, i), bytes.subarray(i)]);
    assert.equal(parsed.events[0]?.data, "🚀");
  }
});
