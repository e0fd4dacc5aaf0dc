// Answers lost to load (issue 50, item 3): on a server with fewer slots than
// the items in flight, the ones it never starts time out — twice — and were
// scored wrong. They are asked once more, alone, with twice the timeout; one
// that still gets no reply is marked lost (left out of the comparison), and an
// error the server chose is not retried alone.

import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { answersOf } from "../../src/accuracy/answers.ts";
import type { AccuracyItem } from "../../src/accuracy/items.ts";
import { lostInTransport, runItems } from "../../src/accuracy/run.ts";
import type { Target } from "../../src/openai/target.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

const SLOTS = 2;

/** Two slots; a request beyond them waits for a slot that never comes. "never" is never answered, "refuse" is a 500. */
function slotServer() {
  let busy = 0;
  const held: ServerResponse[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (d: Buffer) => {
      body += d;
    });
    req.on("end", () => {
      if (body.includes("stall")) {
        // Headers, then a body that never ends: lost in transport too, not the server's answer.
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"choices":');
        held.push(res);
        return;
      }
      if (body.includes("refuse")) {
        res.writeHead(500).end('{"error":{"message":"boom"}}');
        return;
      }
      if (body.includes("never") || busy >= SLOTS) {
        held.push(res);
        return;
      }
      busy++;
      setTimeout(() => {
        busy--;
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            choices: [
              { message: { role: "assistant", content: "Answer: 4" }, finish_reason: "stop" },
            ],
          }),
        );
      }, 50);
    });
  });
  return { server, held };
}

test(
  "answers lost under load are asked again alone with twice the timeout; one never answered is lost, a 500 is not",
  LOAD_TEST,
  async () => {
    const { server, held } = slotServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const target: Target = {
      baseUrl: `http://127.0.0.1:${port}/v1`,
      model: "m",
      endpoint: "chat",
      apiKey: undefined,
      headers: {},
      extraBody: {},
      includeUsage: false,
      ignoreEos: false,
      temperature: 0,
    };
    const item = (id: string, content: string): AccuracyItem =>
      ({
        id,
        family: "arith",
        messages: [{ role: "user", content }],
        answer: 4,
        match: { kind: "numeric", tolerance: 0 },
        maxTokens: 16,
      }) as AccuracyItem;
    const items = [
      ...Array.from({ length: 6 }, (_, i) => item(`q${i}`, `2 + 2, case ${i}`)),
      item("never", "never"),
      item("stall", "stall"),
      item("refuse", "refuse"),
    ];
    try {
      const run = await runItems(target, items, {
        concurrency: 8,
        timeoutS: 1,
        topLogprobs: 0,
        seed: 1,
        vllmSampling: false,
      });
      const byId = new Map(run.replies.map((r) => [r.id, r]));
      // Six items at eight at a time on two slots: four waited past the timeout twice, then alone got their answer.
      for (let i = 0; i < 6; i++) {
        const r = byId.get(`q${i}`);
        assert.equal(r?.error, null, `q${i}: ${r?.error}`);
        assert.equal(r?.text, "Answer: 4");
      }
      const retried = run.replies.filter((r) => r.id.startsWith("q") && r.exchange.attempts === 3);
      assert.ok(retried.length >= 1, "some answered only alone, at their third send");
      const never = byId.get("never");
      assert.ok(never && lostInTransport(never), "no reply even alone: lost");
      assert.equal(never?.exchange.attempts, 3);
      assert.match(never?.error ?? "", /no answer within 2 s/);
      const stalled = byId.get("stall");
      assert.ok(stalled && lostInTransport(stalled), "a body that never ends: lost");
      assert.equal(stalled?.exchange.status, 200);
      const refused = byId.get("refuse");
      assert.ok(refused && !lostInTransport(refused), "an HTTP 500 is the server's answer");
      assert.equal(
        refused?.exchange.attempts,
        2,
        "a 500 is tried once more in the pool, not alone",
      );
      const answers = answersOf(items, {
        baseline: run.replies,
        candidate: run.replies,
        again: [],
      });
      assert.equal(answers.find((a) => a.id === "never")?.baseline.lost, true);
      assert.equal(answers.find((a) => a.id === "refuse")?.baseline.lost, undefined);
    } finally {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  },
);
