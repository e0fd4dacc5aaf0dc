import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_PROFILE, type FaultKind } from "../../src/mock/profile.ts";
import { mergeProfile } from "../../src/mock/profile-merge.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { chatBody, type Recorded, send, usageOf } from "../helpers/client.ts";
import { LOAD_TEST, QUICK_ENGINE } from "../helpers/mock.ts";

const FAST = {
  ...QUICK_ENGINE,
  naturalMinTokens: 4,
  naturalMaxTokens: 6,
};

type Form = FaultKind | "ok" | "unexpected";

/** Classifies a response by what it looks like on the wire, independently of the server's counters. */
function formOf(r: Recorded): Form {
  const error = r.status >= 400 ? JSON.parse(r.body) : undefined;
  const finish = r.events
    .flatMap((e) => (e.choices as { finish_reason?: string }[] | undefined) ?? [])
    .find((c) => c.finish_reason)?.finish_reason;
  if (r.status === 0 && r.error) return "hang";
  if (
    r.status === 429 &&
    r.headers["x-ratelimit-remaining-requests"] === "0" &&
    r.headers["retry-after"]
  ) {
    return error.error.code === "rate_limit_exceeded" ? "quota429" : "unexpected";
  }
  if (r.status === 429 && error.error.code === 429) return "http429";
  if (r.status === 429) {
    return error.error.code === "engine_overloaded" ? "capacity429" : "unexpected";
  }
  if (r.status === 503)
    return error.error.type === "service_unavailable" ? "http503" : "unexpected";
  if (r.status === 529) return error.error.type === "overloaded_error" ? "http529" : "unexpected";
  if (r.status === 500)
    return error.error.type === "InternalServerError" ? "http500" : "unexpected";
  if (r.status !== 200) return "unexpected";
  if (r.error?.startsWith("malformed")) return finish && r.done ? "malformed" : "unexpected";
  if (r.error) return !finish && !r.done && r.text.length > 0 ? "truncated" : "unexpected";
  if (r.events.some((e) => "error" in e)) return !finish && r.done ? "streamError" : "unexpected";
  const deltas = r.events.flatMap(
    (e) => (e.choices as { delta?: Record<string, unknown> }[] | undefined) ?? [],
  );
  if (deltas.some((c) => c.delta?.refusal))
    return finish === "stop" && r.done && r.text === "" ? "refusal" : "unexpected";
  if (finish === "error") return r.done && r.text.length > 0 ? "finishError" : "unexpected";
  if (r.text === "") return finish === "stop" && r.done ? "empty" : "unexpected";
  return finish && r.done ? "ok" : "unexpected";
}

async function pool<T>(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const workers = Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  });
  await Promise.all(workers);
  return results;
}

test(
  "each fault appears at about its configured rate and in its documented form",
  LOAD_TEST,
  async () => {
    const rates: Record<FaultKind, number> = {
      quota429: 0.06,
      capacity429: 0.06,
      http429: 0.05,
      malformed: 0.05,
      http503: 0.06,
      http529: 0.06,
      http500: 0.06,
      empty: 0.06,
      truncated: 0.06,
      streamError: 0.06,
      hang: 0.03,
      finishError: 0.05,
      refusal: 0.05,
    };
    const profile = mergeProfile(DEFAULT_PROFILE, { ...FAST, seed: 42, faults: rates }, "test");
    const server = await startMockServer({ profile });
    try {
      const n = 600;
      const results = await pool(n, 40, () => send(server.url, chatBody(), { timeoutMs: 5000 }));
      const counts = new Map<Form, number>();
      for (const r of results) counts.set(formOf(r), (counts.get(formOf(r)) ?? 0) + 1);
      const odd = results.find((r) => formOf(r) === "unexpected");
      assert.equal(
        odd,
        undefined,
        `every response has one documented form: ${JSON.stringify(odd)?.slice(0, 400)}`,
      );
      const stats = server.stats();
      assert.equal(stats.completionRequests, n);
      for (const [kind, rate] of Object.entries(rates) as [FaultKind, number][]) {
        const seen = counts.get(kind) ?? 0;
        assert.equal(
          seen,
          stats.faults[kind],
          `${kind}: what the client saw is what the server injected`,
        );
        const sd = Math.sqrt(n * rate * (1 - rate));
        assert.ok(
          Math.abs(seen - n * rate) <= 4 * sd,
          `${kind}: ${seen} of ${n}, expected ≈ ${n * rate}`,
        );
      }
      const okRate = 1 - Object.values(rates).reduce((a, b) => a + b, 0);
      const ok = counts.get("ok") ?? 0;
      assert.ok(Math.abs(ok - n * okRate) <= 4 * Math.sqrt(n * okRate * (1 - okRate)));
    } finally {
      await server.close();
    }
  },
);

test("faults are deterministic under a seed", LOAD_TEST, async () => {
  const faults = { http500: 0.3, empty: 0.3 };
  const forms: Form[][] = [];
  for (const seed of [7, 7, 8]) {
    const server = await startMockServer({
      profile: mergeProfile(DEFAULT_PROFILE, { ...FAST, seed, faults }, "test"),
    });
    const seq: Form[] = [];
    for (let i = 0; i < 30; i++) seq.push(formOf(await send(server.url, chatBody())));
    forms.push(seq);
    await server.close();
  }
  assert.deepEqual(forms[0], forms[1]);
  assert.notDeepEqual(forms[0], forms[2]);
});

test("chunks can carry several tokens; usage still counts every token", LOAD_TEST, async () => {
  const server = await startMockServer({
    profile: mergeProfile(DEFAULT_PROFILE, { ...FAST, tokensPerChunk: 4 }, "test"),
  });
  try {
    const r = await send(server.url, chatBody({ max_tokens: 10, ignore_eos: true }));
    assert.equal(r.contentTimesMs.length, 3, "4 + 4 + 2 tokens");
    assert.equal(usageOf(r).completion_tokens, 10);
    assert.equal(r.text.split(" ").length, 10);
  } finally {
    await server.close();
  }
});

test("`: ping` comment lines arrive on open streams", LOAD_TEST, async () => {
  const server = await startMockServer({
    profile: mergeProfile(DEFAULT_PROFILE, { ...FAST, decodeBaseMs: 10, pingEveryMs: 15 }, "test"),
  });
  try {
    const r = await send(server.url, chatBody({ max_tokens: 20, ignore_eos: true }));
    assert.ok(r.comments.length >= 3, `${r.comments.length} pings in ≈ 200 ms`);
    assert.ok(r.comments.every((c) => c === " ping"));
    assert.match(r.body, /\n\n: ping\n\n/);
    assert.equal(r.done, true);
  } finally {
    await server.close();
  }
});

test("a queue limit sheds load with 503 queue_full", LOAD_TEST, async () => {
  const server = await startMockServer({
    profile: mergeProfile(
      DEFAULT_PROFILE,
      { ...FAST, maxBatch: 1, maxQueue: 2, decodeBaseMs: 20 },
      "test",
    ),
  });
  try {
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        send(server.url, chatBody({ max_tokens: 5, ignore_eos: true })),
      ),
    );
    const shed = results.filter((r) => r.status === 503);
    const ok = results.filter((r) => r.status === 200 && r.done);
    assert.equal(shed.length + ok.length, 8);
    assert.ok(ok.length >= 3, `${ok.length} served (1 running + 2 queued at least)`);
    assert.ok(shed.length >= 1);
    for (const r of shed) assert.equal(JSON.parse(r.body).error.code, "queue_full");
    assert.equal(server.stats().shed, shed.length);
  } finally {
    await server.close();
  }
});

test(
  "a loading server lists its model but fails completions with 503 until loaded",
  LOAD_TEST,
  async () => {
    const server = await startMockServer({
      profile: mergeProfile(DEFAULT_PROFILE, { ...FAST, loadingS: 0.3 }, "test"),
    });
    try {
      const early = await send(server.url, chatBody());
      assert.equal(early.status, 503);
      assert.equal(JSON.parse(early.body).error.code, "model_loading");
      await new Promise((resolve) => setTimeout(resolve, 400));
      const later = await send(server.url, chatBody());
      assert.equal(later.status, 200);
      assert.equal(later.done, true);
    } finally {
      await server.close();
    }
  },
);
