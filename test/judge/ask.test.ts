// Asking the judge over HTTP, against a scripted server on 127.0.0.1: a
// refused json_schema is dropped for good, a 5xx is sent once more, prose is
// asked once more with a reminder, a 401 and a silent server are unjudged
// with their reason.

import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { test } from "node:test";
import { Judge, judgeAll } from "../../src/judge/ask.ts";
import type { Target } from "../../src/openai/target.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

type Reply = { status: number; body: string } | "hang";
const completion = (content: string) =>
  JSON.stringify({ choices: [{ message: { role: "assistant", content }, finish_reason: "stop" }] });
const VERDICT = completion('{"reason": "A keeps the facts.", "winner": "A"}');

/** A server that answers each request with the next scripted reply, and keeps each request's body. */
async function scripted(replies: Reply[]) {
  const bodies: Record<string, unknown>[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = "";
    req.on("data", (c) => {
      text += c;
    });
    req.on("end", () => {
      bodies.push(JSON.parse(text));
      const reply = replies.shift() ?? { status: 200, body: VERDICT };
      if (reply === "hang") return;
      res.writeHead(reply.status, { "content-type": "application/json" });
      res.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const target: Target = {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    model: "judge",
    endpoint: "chat",
    apiKey: "sk-test-judge",
    headers: {},
    extraBody: {},
    includeUsage: false,
    ignoreEos: false,
    temperature: 0,
  };
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { target, bodies, close };
}

const ASK = {
  messages: [{ role: "user" as const, content: "Say hi." }],
  reference: null,
  rubric: null,
  a: "Hi!",
  b: "Go away.",
};

async function verdicts(replies: Reply[], asks = 1, timeoutS = 10) {
  const s = await scripted(replies);
  const judge = new Judge(s.target, { concurrency: 1, timeoutS, seed: 1 }, () => performance.now());
  try {
    const out = await judgeAll(
      judge,
      Array.from({ length: asks }, () => ASK),
      1,
    );
    return { out, bodies: s.bodies, sent: judge.sent };
  } finally {
    await judge.close();
    await s.close();
  }
}

test(
  "a judge that refuses json_schema is asked again without it, and never with it again",
  LOAD_TEST,
  async () => {
    const { out, bodies } = await verdicts(
      [
        {
          status: 400,
          body: '{"error": {"message": "response_format json_schema is not supported"}}',
        },
      ],
      2,
    );
    assert.deepEqual(
      out.map((v) => v.winner),
      ["A", "A"],
    );
    assert.equal(bodies.length, 3);
    assert.ok(bodies[0]?.response_format, "asked with the schema first");
    assert.equal(bodies[1]?.response_format, undefined);
    assert.equal(bodies[2]?.response_format, undefined);
    assert.equal(bodies[0]?.temperature, 0);
  },
);

test(
  "a 5xx is sent once more; prose is asked once more with a reminder, then read",
  LOAD_TEST,
  async () => {
    const { out, bodies } = await verdicts([
      { status: 503, body: '{"error": {"message": "busy"}}' },
      { status: 200, body: completion("I think A is better.") },
    ]);
    assert.equal(out[0]?.winner, "A");
    assert.equal(out[0]?.reason, "A keeps the facts.");
    assert.equal(bodies.length, 3);
    const retry = bodies[2]?.messages as { role: string; content: string }[];
    assert.deepEqual(
      retry.slice(-2).map((m) => m.role),
      ["assistant", "user"],
    );
    assert.match(retry.at(-1)?.content ?? "", /was not the JSON object asked for/);
  },
);

test(
  "prose twice, a 401, a judge that never answers: unjudged, each with its reason",
  LOAD_TEST,
  async () => {
    const prose = completion("Both are fine, honestly.");
    const twice = await verdicts([
      { status: 200, body: prose },
      { status: 200, body: prose },
    ]);
    assert.equal(twice.out[0]?.winner, null);
    assert.equal(
      twice.out[0]?.error,
      "the judge's reply was not the JSON asked for: “Both are fine, honestly.”",
    );
    const refused = await verdicts([{ status: 401, body: '{"error": {"message": "bad key"}}' }]);
    assert.match(refused.out[0]?.error ?? "", /^HTTP 401: \{"error"/);
    assert.equal(refused.sent, 1, "a 4xx is not sent again");
    const silent = await verdicts(["hang", "hang"], 1, 1);
    assert.equal(silent.out[0]?.error, "no answer within 1 s");
    assert.equal(silent.sent, 2);
  },
);

test(
  "a reasoning model's refusals: max_tokens as max_completion_tokens, no temperature, each once",
  LOAD_TEST,
  async () => {
    const { out, bodies } = await verdicts(
      [
        {
          status: 400,
          body: '{"error": {"message": "Unsupported parameter: max_tokens; use max_completion_tokens"}}',
        },
        {
          status: 400,
          body: '{"error": {"message": "temperature does not support 0 with this model"}}',
        },
      ],
      2,
    );
    assert.deepEqual(
      out.map((v) => v.winner),
      ["A", "A"],
    );
    assert.equal(bodies.length, 4);
    assert.equal(bodies[2]?.max_completion_tokens, 400);
    assert.equal(bodies[2]?.max_tokens, undefined);
    assert.equal(bodies[2]?.temperature, undefined);
    assert.ok(bodies[2]?.response_format, "the schema was not what it refused");
    assert.equal(bodies[3]?.temperature, undefined, "never asked with it again");
  },
);
