import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_PROFILE } from "../../src/mock/profile.ts";
import { mergeProfile } from "../../src/mock/profile-merge.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { chatBody, send, usageOf } from "../helpers/client.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function gaps(times: number[]): number[] {
  return times.slice(1).map((t, i) => t - (times[i] as number));
}

test("more concurrent sequences make each decode step longer", LOAD_TEST, async () => {
  // Step = 4 ms + 1 ms × running: ≈ 5 ms alone, ≈ 28 ms with 24 running.
  const profile = mergeProfile(
    DEFAULT_PROFILE,
    { prefillBaseMs: 1, prefillPerTokenMs: 0, decodeBaseMs: 4, decodePerSeqMs: 1, jitter: 0 },
    "test",
  );
  const server = await startMockServer({ profile });
  try {
    const body = chatBody({ max_tokens: 30, ignore_eos: true });
    const alone = await send(server.url, body);
    const crowd = await Promise.all(Array.from({ length: 24 }, () => send(server.url, body)));
    const aloneItl = median(gaps(alone.contentTimesMs));
    const crowdItl = median(crowd.flatMap((r) => gaps(r.contentTimesMs)));
    assert.ok(
      crowdItl >= 2.5 * aloneItl,
      `median ITL alone ${aloneItl.toFixed(1)} ms, with 24 running ${crowdItl.toFixed(1)} ms`,
    );
    assert.ok(server.stats().engine.maxRunning >= 20);
  } finally {
    await server.close();
  }
});

test("past the batch limit requests queue, so TTFT has a knee", LOAD_TEST, async () => {
  // A batch of 4: requests 5..12 wait for running sequences to finish first.
  const profile = mergeProfile(
    DEFAULT_PROFILE,
    {
      prefillBaseMs: 1,
      prefillPerTokenMs: 0,
      decodeBaseMs: 5,
      decodePerSeqMs: 0,
      jitter: 0,
      maxBatch: 4,
    },
    "test",
  );
  const server = await startMockServer({ profile });
  try {
    const body = chatBody({ max_tokens: 20, ignore_eos: true });
    const results = await Promise.all(Array.from({ length: 12 }, () => send(server.url, body)));
    const ttfts = results.map((r) => r.contentTimesMs[0] as number).sort((a, b) => a - b);
    // The first 4 start at once; the fifth waits for a slot: ≥ 19 more decode steps (≥ 95 ms,
    // timers are never early) of the first batch. A knee between the 4th and the 5th, measured
    // as a jump, so that a busy machine (which slows every request) cannot hide or fake it.
    const jumpMs = (ttfts[4] as number) - (ttfts[3] as number);
    assert.ok(jumpMs >= 50, `TTFT ${ttfts[3]?.toFixed(1)} → ${ttfts[4]?.toFixed(1)} ms`);
    assert.ok((ttfts[4] as number) >= 80, `fifth TTFT ${ttfts[4]?.toFixed(1)} ms`);
    assert.equal(server.stats().engine.maxRunning, 4);
  } finally {
    await server.close();
  }
});

test("longer prompts take longer to prefill", LOAD_TEST, async () => {
  const profile = mergeProfile(
    DEFAULT_PROFILE,
    { prefillBaseMs: 1, prefillPerTokenMs: 0.1, decodeBaseMs: 1, decodePerSeqMs: 0, jitter: 0 },
    "test",
  );
  const server = await startMockServer({ profile });
  try {
    const short = await send(server.url, chatBody({ max_tokens: 1 }));
    // 4,000 characters = 1,000 tokens = 100 ms of prefill.
    const long = await send(
      server.url,
      chatBody({ max_tokens: 1, messages: [{ role: "user", content: "x".repeat(4000) }] }),
    );
    const shortTtft = short.contentTimesMs[0] as number;
    const longTtft = long.contentTimesMs[0] as number;
    assert.ok(
      longTtft - shortTtft >= 70,
      `short ${shortTtft.toFixed(1)} ms, long ${longTtft.toFixed(1)} ms`,
    );
    assert.equal(usageOf(long).prompt_tokens, 1000);
  } finally {
    await server.close();
  }
});

test("periodic engine stalls pause every running stream", LOAD_TEST, async () => {
  const profile = mergeProfile(
    DEFAULT_PROFILE,
    {
      prefillBaseMs: 1,
      prefillPerTokenMs: 0,
      decodeBaseMs: 2,
      decodePerSeqMs: 0,
      jitter: 0,
      stallEveryS: 0.3,
      stallMs: 150,
    },
    "test",
  );
  const server = await startMockServer({ profile });
  try {
    const r = await send(server.url, chatBody({ max_tokens: 200, ignore_eos: true }));
    const long = gaps(r.contentTimesMs).filter((g) => g >= 120);
    assert.ok(long.length >= 1, `gaps ≥ 120 ms: ${long.map((g) => g.toFixed(0)).join(", ")}`);
  } finally {
    await server.close();
  }
});

test(
  "the prefix cache: a repeated prefix is not prefilled again, and usage says how much was cached",
  LOAD_TEST,
  async () => {
    // 0.1 ms per computed prompt token: 1,000 uncached tokens ≈ 100 ms, 8 uncached ≈ 1 ms.
    const knobs = { prefillBaseMs: 1, prefillPerTokenMs: 0.1, jitter: 0 };
    const prompt = (text: string) =>
      chatBody({ max_tokens: 1, messages: [{ role: "user", content: text }] });
    const shared = "w".repeat(2000);
    for (const prefixCache of [true, false]) {
      const server = await startMockServer({
        profile: mergeProfile(DEFAULT_PROFILE, { ...knobs, prefixCache }, "test"),
      });
      try {
        const first = await send(server.url, prompt(`${shared}${"a".repeat(2000)}`));
        const again = await send(server.url, prompt(`${shared}${"a".repeat(2000)}`));
        const half = await send(server.url, prompt(`${shared}${"b".repeat(2000)}`));
        const ttft = (r: typeof first) => r.contentTimesMs[0] as number;
        const cached = (r: typeof first) => usageOf(r).prompt_tokens_details?.cached_tokens;
        assert.equal(cached(first), undefined, "nothing cached before");
        if (prefixCache) {
          // 1,000 tokens = 62 full blocks of 16; the half-shared prompt shares 31 of them.
          assert.equal(cached(again), 992);
          assert.equal(cached(half), 496);
          assert.ok(ttft(first) - ttft(again) >= 60, `${ttft(first)} ms, then ${ttft(again)} ms`);
          assert.ok(ttft(half) - ttft(again) >= 25, `half cached ${ttft(half)} ms`);
          assert.equal(server.stats().engine.cachedTokens, 992 + 496);
        } else {
          assert.equal(cached(again), undefined);
          assert.ok(ttft(again) >= 70, `no cache: ${ttft(again)} ms again`);
          assert.equal(server.stats().engine.cachedTokens, 0);
        }
      } finally {
        await server.close();
      }
    }
  },
);
