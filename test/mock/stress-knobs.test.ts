// The mock's knobs for what a runtime upgrade changes under stress (issue 38):
// answers cut short by load with finish_reason stop, a slow recovery after
// overload, a stop that drains its streams or cuts them, and the exit status
// of a stopped server. Each knob both ways: on, the behaviour; off, none.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { request } from "undici";
import { DEFAULT_PROFILE, type MockProfile } from "../../src/mock/profile.ts";
import { mergeProfile } from "../../src/mock/profile-merge.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { chatBody, type Recorded, send, usageOf } from "../helpers/client.ts";
import { LOAD_TEST, QUICK_ENGINE } from "../helpers/mock.ts";

const mock = (knobs: Partial<MockProfile>) =>
  startMockServer({
    profile: mergeProfile(DEFAULT_PROFILE, { ...QUICK_ENGINE, ...knobs }, "test"),
  });

const finishOf = (r: Recorded) =>
  r.events
    .map((e) => (e.choices as { finish_reason?: string | null }[] | undefined)?.[0]?.finish_reason)
    .find((f) => typeof f === "string");

const LONG = chatBody({ max_tokens: 20, ignore_eos: true });

test(
  "answers cut short above a load threshold end with stop, saying nothing else",
  LOAD_TEST,
  async () => {
    const server = await mock({ truncateAboveRunning: 3, truncateShare: 0.5, decodeBaseMs: 5 });
    try {
      const alone = await send(server.url, LONG);
      assert.equal(usageOf(alone).completion_tokens, 20);
      assert.equal(finishOf(alone), "length");
      // Six at once: those admitted while 3 or more run are cut to half.
      const busy = await Promise.all(Array.from({ length: 6 }, () => send(server.url, LONG)));
      const shapes = busy.map((r) => `${usageOf(r).completion_tokens} ${finishOf(r)} ${r.done}`);
      assert.ok(shapes.filter((x) => x === "10 stop true").length >= 3, shapes.join(", "));
      assert.deepEqual(
        shapes.filter((x) => x !== "10 stop true"),
        shapes.filter((x) => x === "20 length true"),
        "a whole answer or a half one, each a well-formed stream",
      );
    } finally {
      await server.close();
    }
    const off = await mock({ decodeBaseMs: 5 });
    try {
      const busy = await Promise.all(Array.from({ length: 6 }, () => send(off.url, LONG)));
      for (const r of busy) assert.equal(usageOf(r).completion_tokens, 20);
    } finally {
      await off.close();
    }
  },
);

test("after a request was shed, the engine runs slower for recoveryLagS", LOAD_TEST, async () => {
  const server = await mock({
    maxBatch: 1,
    maxQueue: 1,
    decodeBaseMs: 10,
    recoveryLagS: 5,
    recoveryScale: 5,
  });
  try {
    const timed = async () => {
      const started = performance.now();
      await send(server.url, LONG);
      return performance.now() - started;
    };
    // The faster of two: a busy machine only ever makes a request slower.
    const beforeMs = Math.min(await timed(), await timed());
    // One runs, one waits, the third is shed: the overload the lag follows.
    const burst = await Promise.all(Array.from({ length: 3 }, () => send(server.url, LONG)));
    assert.ok(burst.some((r) => r.status === 503));
    const afterMs = await timed();
    // 20 steps of 10 ms, then of 50 ms: at least a second after, whatever the machine.
    assert.ok(afterMs >= 950, `${afterMs.toFixed(0)} ms after the shed`);
    assert.ok(
      afterMs > 2 * beforeMs,
      `${afterMs.toFixed(0)} ms after vs ${beforeMs.toFixed(0)} ms before`,
    );
  } finally {
    await server.close();
  }
});

/** LONG streamed: `started` once the first content arrived, `body` the whole stream as received. */
function streamed(url: string): { started: Promise<void>; body: Promise<string> } {
  let onStart = () => {};
  const started = new Promise<void>((resolve) => {
    onStart = resolve;
  });
  const body = (async () => {
    let text = "";
    try {
      const res = await request(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(LONG),
      });
      for await (const chunk of res.body) {
        text += Buffer.from(chunk).toString("utf8");
        if (text.includes('"content":"')) onStart();
      }
    } catch {
      // Cut: what came before is the answer.
    }
    onStart();
    return text;
  })();
  return { started, body };
}

test(
  "a stop drains the streams in flight and refuses new ones, or cuts them",
  LOAD_TEST,
  async () => {
    // 20 steps of 50 ms: a second of stream, stopped once its first content has arrived.
    const slow = { decodeBaseMs: 50 };
    const draining = await mock({ ...slow, drainS: 30 });
    const inFlight = streamed(draining.url);
    await inFlight.started;
    const stopped = draining.stop();
    const late = await send(draining.url, LONG);
    const drained = await inFlight.body;
    await stopped;
    assert.match(drained, /"completion_tokens":20/, "the stream in flight ran to its end");
    assert.match(drained, /data: \[DONE\]/);
    assert.ok(late.status === 503 || late.error !== undefined, `refused: ${late.status}`);

    const cutting = await mock(slow);
    const cut = streamed(cutting.url);
    await cut.started;
    await cutting.stop();
    const r = await cut.body;
    assert.match(r, /"content":"/, "it had started");
    assert.doesNotMatch(r, /\[DONE\]/, "cut: no [DONE]");
  },
);

test("a stopped mock process exits with stopExitCode", LOAD_TEST, async () => {
  const cli = join(import.meta.dirname, "../../src/cli.ts");
  const child = spawn(process.execPath, [cli, "mock", "--port", "0", "--set", "stopExitCode=134"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve) =>
    child.stdout.on("data", (d: Buffer) => {
      if (d.toString().includes("listening on")) resolve();
    }),
  );
  const code = new Promise<number | null>((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  assert.equal(await code, 134);
});

test(
  "batch nondeterminism: greedy answers to one prompt end elsewhere now and then",
  LOAD_TEST,
  async () => {
    // Natural lengths, no ignore_eos: where a greedy answer ends is the knob's.
    const prompts = Array.from({ length: 8 }, (_, i) =>
      chatBody({ max_tokens: 512, messages: [{ role: "user", content: `question ${i}` }] }),
    );
    const lengths = async (server: { url: string }) => {
      const out: string[] = [];
      for (const body of prompts) {
        const [a, b] = [await send(server.url, body), await send(server.url, body)];
        out.push(`${usageOf(a).completion_tokens}/${usageOf(b).completion_tokens}`);
      }
      return out;
    };
    const on = await mock({ lengthNondeterminism: 1 });
    try {
      const pairs = await lengths(on);
      const differ = pairs.filter((p) => p.split("/")[0] !== p.split("/")[1]);
      // A redrawn length of 16–256 tokens repeats by chance 1 time in 241.
      assert.ok(differ.length >= 6, pairs.join(", "));
    } finally {
      await on.close();
    }
    const off = await mock({});
    try {
      for (const p of await lengths(off)) assert.equal(p.split("/")[0], p.split("/")[1], p);
    } finally {
      await off.close();
    }
  },
);
