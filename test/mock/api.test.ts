import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { request } from "undici";
import { type MockServer, startMockServer } from "../../src/mock/server.ts";
import { chatBody, send, usageOf } from "../helpers/client.ts";
import { LOAD_TEST, quickProfile } from "../helpers/mock.ts";

// A quick engine so shape tests run in milliseconds.
const FAST = quickProfile();

describe("mock server API", LOAD_TEST, () => {
  let server: MockServer;
  before(async () => {
    server = await startMockServer({ profile: FAST });
  });
  after(() => server.close());

  test("listens on 127.0.0.1 and serves /health and /v1/models", LOAD_TEST, async () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await request(`${server.url}/health`);
    assert.equal(health.statusCode, 200);
    await health.body.dump();
    const models = await request(`${server.url}/v1/models`);
    const body = (await models.body.json()) as {
      object: string;
      data: { id: string; object: string }[];
    };
    assert.equal(body.object, "list");
    assert.deepEqual(
      body.data.map((m) => [m.id, m.object]),
      [["mock-llm", "model"]],
    );
  });

  test(
    "streamed chat: role chunk first, content deltas, finish chunk, usage chunk, [DONE]",
    LOAD_TEST,
    async () => {
      const r = await send(server.url, chatBody({ max_tokens: 5, ignore_eos: true }));
      assert.equal(r.status, 200);
      assert.match(String(r.headers["content-type"]), /^text\/event-stream/);
      assert.ok(r.body.endsWith("data: [DONE]\n\n"), "ends with the [DONE] sentinel");
      for (const frame of r.body.split("\n\n").filter(Boolean)) assert.match(frame, /^data: /);
      const [first, ...rest] = r.events;
      assert.deepEqual((first?.choices as unknown[] | undefined)?.[0], {
        index: 0,
        delta: { role: "assistant", content: "" },
        logprobs: null,
        finish_reason: null,
      });
      const usageChunk = rest.at(-1) as Record<string, unknown>;
      assert.deepEqual(usageChunk.choices, []);
      assert.deepEqual(usageChunk.usage, {
        prompt_tokens: 10,
        completion_tokens: 5,
        total_tokens: 15,
      });
      const finishChunk = rest.at(-2) as Record<string, unknown>;
      assert.deepEqual((finishChunk.choices as unknown[])[0], {
        index: 0,
        delta: {},
        logprobs: null,
        finish_reason: "length",
      });
      const contentChunks = rest.slice(0, -2);
      assert.equal(contentChunks.length, 5);
      for (const c of r.events) {
        assert.equal(c.object, "chat.completion.chunk");
        assert.equal(c.model, "mock-llm");
        assert.equal(c.id, first?.id, "one id for the whole stream");
        if (c !== usageChunk) assert.equal(c.usage, null, "usage is null until the last chunk");
      }
      assert.equal(r.done, true);
    },
  );

  test("without include_usage there is no usage field and no usage chunk", LOAD_TEST, async () => {
    const r = await send(server.url, chatBody({ stream_options: undefined, max_tokens: 3 }));
    assert.equal(r.status, 200);
    assert.ok(r.events.every((e) => !("usage" in e)));
    assert.ok(r.events.every((e) => (e.choices as unknown[]).length === 1));
  });

  test("non-streamed chat returns one chat.completion with exact usage", LOAD_TEST, async () => {
    const r = await send(
      server.url,
      chatBody({ stream: false, stream_options: undefined, max_tokens: 7, ignore_eos: true }),
    );
    assert.equal(r.status, 200);
    const body = JSON.parse(r.body);
    assert.equal(body.object, "chat.completion");
    assert.equal(body.choices[0].message.role, "assistant");
    assert.equal(body.choices[0].message.content.split(" ").length, 7, "one word per token");
    assert.equal(body.choices[0].finish_reason, "length");
    assert.deepEqual(body.usage, { prompt_tokens: 10, completion_tokens: 7, total_tokens: 17 });
  });

  test("text completions stream text deltas and no role chunk", LOAD_TEST, async () => {
    const r = await send(
      server.url,
      {
        model: "mock-llm",
        prompt: "Once upon a time",
        max_tokens: 4,
        ignore_eos: true,
        stream: true,
        stream_options: { include_usage: true },
      },
      { path: "/v1/completions" },
    );
    assert.equal(r.status, 200);
    assert.ok(r.events.every((e) => e.object === "text_completion"));
    assert.equal(r.contentTimesMs.length, 4);
    assert.deepEqual(r.events.at(-1)?.usage, {
      prompt_tokens: 4,
      completion_tokens: 4,
      total_tokens: 8,
    });
    const nonStream = await send(
      server.url,
      {
        model: "mock-llm",
        prompt: "Once upon a time",
        max_tokens: 4,
        ignore_eos: true,
        temperature: 0,
      },
      { path: "/v1/completions" },
    );
    const body = JSON.parse(nonStream.body);
    assert.equal(body.object, "text_completion");
    assert.equal(typeof body.choices[0].text, "string");
  });

  test(
    "ignore_eos gives exactly max_tokens tokens; without it the natural length decides",
    LOAD_TEST,
    async () => {
      for (const maxTokens of [1, 2, 33, 300]) {
        const r = await send(server.url, chatBody({ max_tokens: maxTokens, ignore_eos: true }));
        const usage = usageOf(r);
        assert.equal(usage.completion_tokens, maxTokens);
        assert.equal(r.contentTimesMs.length, maxTokens, "one content chunk per token");
      }
      // Natural length is in [16, 256]: a 1,000-token budget ends with "stop" before it.
      const natural = await send(server.url, chatBody({ max_tokens: 1000 }));
      const usage = usageOf(natural);
      assert.ok(usage.completion_tokens >= 16 && usage.completion_tokens <= 256);
      const finish = natural.events.at(-2)?.choices as { finish_reason: string }[];
      assert.equal(finish[0]?.finish_reason, "stop");
      assert.equal(natural.contentTimesMs.length, usage.completion_tokens);
    },
  );

  test(
    "temperature 0 gives the same text for the same prompt, another text for another prompt",
    LOAD_TEST,
    async () => {
      const a = await send(server.url, chatBody({ max_tokens: 12, ignore_eos: true }));
      const b = await send(server.url, chatBody({ max_tokens: 12, ignore_eos: true }));
      const c = await send(
        server.url,
        chatBody({
          max_tokens: 12,
          ignore_eos: true,
          messages: [{ role: "user", content: "Another prompt." }],
        }),
      );
      assert.equal(a.text, b.text);
      assert.notEqual(a.text, c.text);
      const seeded1 = await send(
        server.url,
        chatBody({ max_tokens: 12, ignore_eos: true, temperature: 0.8, seed: 7 }),
      );
      const seeded2 = await send(
        server.url,
        chatBody({ max_tokens: 12, ignore_eos: true, temperature: 0.8, seed: 7 }),
      );
      assert.equal(seeded1.text, seeded2.text, "same seed, same sample");
    },
  );

  test("errors are OpenAI-shaped with the right status", LOAD_TEST, async () => {
    const cases: [unknown, number, string | null][] = [
      [chatBody({ model: "nope" }), 404, "model"],
      ["{not json", 400, null],
      [chatBody({ max_tokens: 0 }), 400, "max_tokens"],
      [chatBody({ max_tokens: 2.5 }), 400, "max_tokens"],
      [chatBody({ temperature: 3 }), 400, "temperature"],
      [chatBody({ top_p: 0 }), 400, "top_p"],
      [chatBody({ n: 2 }), 400, "n"],
      [chatBody({ stream: false }), 400, "stream_options"],
      [chatBody({ messages: [] }), 400, "messages"],
      [chatBody({ messages: [{ role: "robot", content: "hi" }] }), 400, "messages[0].role"],
      [chatBody({ max_tokens: 100_000 }), 400, "max_tokens"],
      [{ messages: [{ role: "user", content: "x" }] }, 400, "model"],
    ];
    for (const [body, status, param] of cases) {
      const r = await send(server.url, body);
      assert.equal(r.status, status, `status for ${JSON.stringify(body)}`);
      const error = JSON.parse(r.body).error;
      assert.equal(typeof error.message, "string");
      assert.equal(error.type, "invalid_request_error");
      assert.equal(error.param, param, `param for ${JSON.stringify(body)}`);
    }
    const notFound = await request(`${server.url}/v2/nothing`);
    assert.equal(notFound.statusCode, 404);
    assert.equal(
      ((await notFound.body.json()) as { error: { code: string } }).error.code,
      "not_found",
    );
  });
});
