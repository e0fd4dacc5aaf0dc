// Multi-turn sessions against the mock on 127.0.0.1: sessions arrive open
// loop, each turn is sent think-time after the previous answer with the whole
// history; with a prefix cache the later turns prefill only what is new.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parseTrialOptions } from "../../src/config/trial.ts";
import type { RequestRecord } from "../../src/load/record.ts";
import { runLoad } from "../../src/load/run.ts";
import { DEFAULT_PROFILE } from "../../src/mock/profile.ts";
import { mergeProfile } from "../../src/mock/profile-merge.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { measureTrial } from "../../src/trial/trial.ts";
import { buildWorkload, sessionTurn, turnIndex } from "../../src/workload/plan.ts";
import { messagesFor, turnMessages } from "../../src/workload/prompts.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

// A long first message (a document), short follow-ups: 2,000 then 32 tokens a turn.
const SESSIONS = {
  model: "mock-llm",
  rate: "4",
  duration: "1.5s",
  warmup: "0s",
  turns: "3",
  "think-time": "50ms",
  "input-len": "2000",
  "turn-input-len": "32",
  "output-len": "16",
  "ignore-eos": "true",
  "max-skew-effect": "50%",
  "max-late-sends": "50%",
  "max-event-loop-delay-ms": "200",
};

async function sessionRun(prefixCache: boolean) {
  const server = await startMockServer({
    profile: mergeProfile(DEFAULT_PROFILE, { prefixCache, jitter: 0 }, "test"),
  });
  try {
    return await measureTrial(parseTrialOptions({ url: `${server.url}/v1`, ...SESSIONS }));
  } finally {
    await server.close();
  }
}

test(
  "later turns' TTFT is below the first turn's with a prefix cache, and about equal without",
  LOAD_TEST,
  async () => {
    const cached = await sessionRun(true);
    const plain = await sessionRun(false);
    for (const r of [cached, plain]) {
      assert.equal(r.sessions?.turns, 3);
      assert.equal(r.sessions?.started, 6, "4 sessions/s for 1.5 s");
      assert.equal(r.sessions?.completed, 6);
      assert.equal(r.scheduled, 18, "every turn of every session");
      assert.equal(r.outcomes.ok, 18);
    }
    const [c1, c2, c3] = (cached.sessions?.ttft_p50_ms_by_turn ?? []) as [number, number, number];
    const [p1, p2, p3] = (plain.sessions?.ttft_p50_ms_by_turn ?? []) as [number, number, number];
    // First turns: 2,000 uncached tokens either way (0.02 ms each on the mock).
    assert.ok(c2 < 0.6 * c1 && c3 < 0.6 * c1, `with the cache: ${c1}, ${c2}, ${c3} ms`);
    assert.ok(p2 > 0.8 * p1 && p3 > 0.8 * p1, `without: ${p1}, ${p2}, ${p3} ms`);
    assert.match(cached.workload.sessions ?? "", /^3 turns, think 0\.05 s, later turns 32 tokens$/);
  },
);

test(
  "a later turn carries the session: its prompt is the first turn's, the answer and its own message",
  LOAD_TEST,
  async () => {
    const server = await startMockServer();
    try {
      const workload = buildWorkload(
        parseTrialOptions({ url: `${server.url}/v1`, ...SESSIONS, rate: "2", duration: "1s" })
          .workload,
      );
      const records: RequestRecord[] = [];
      const run = await runLoad({
        target: parseTrialOptions({ url: `${server.url}/v1`, ...SESSIONS }).target,
        workload,
        timeoutS: 10,
        maxConcurrency: undefined,
        onRequest: (r) => records.push(r),
      });
      assert.equal(run.neverDue, 0);
      const byTurn = (t: number) =>
        records.filter(
          (r) =>
            sessionTurn(workload, r.index).turn === t &&
            sessionTurn(workload, r.index).session === 0,
        )[0] as RequestRecord;
      const [t0, t1, t2] = [byTurn(0), byTurn(1), byTurn(2)];
      // 4 characters a token on the mock: history + answer (16) + 32 new, give or take the joins.
      const p0 = t0.usagePromptTokens as number;
      const p1 = t1.usagePromptTokens as number;
      assert.ok(p1 >= p0 + 16 + 32 && p1 <= p0 + 16 + 32 + 4, `turn 1 ${p0}, turn 2 ${p1}`);
      assert.ok((t2.usagePromptTokens as number) >= p1 + 48);
      // Each turn was due think-time after the one before ended, and its latency counts from then.
      assert.ok(Math.abs(t1.scheduledMs - (t0.endMs + 50)) < 1e-6);
      assert.ok(t1.dispatchMs >= t1.scheduledMs - 1);
    } finally {
      await server.close();
    }
  },
);

test("a failed turn ends its session: the later turns never fall due", LOAD_TEST, async () => {
  const server = await startMockServer({
    profile: mergeProfile(DEFAULT_PROFILE, { faults: { http500: 1 } }, "test"),
  });
  try {
    const r = await measureTrial(
      parseTrialOptions({
        url: `${server.url}/v1`,
        ...SESSIONS,
        rate: "2",
        duration: "1s",
        "max-error-rate": "100%",
      }),
    );
    assert.equal(r.sessions?.started, 2);
    assert.equal(r.sessions?.failed, 2);
    assert.equal(r.sessions?.completed, 0);
    assert.equal(r.scheduled, 2, "only the first turns fell due");
    assert.equal(r.outcomes.http_5xx, 2);
  } finally {
    await server.close();
  }
});

test(
  "ShareGPT conversations are sessions: their human turns in order, the replies' lengths as output lengths",
  LOAD_TEST,
  () => {
    const file = JSON.stringify([
      {
        conversations: [
          { from: "human", value: "first question" },
          { from: "gpt", value: "x".repeat(40) },
          { from: "human", value: "second question" },
          { from: "gpt", value: "y".repeat(80) },
          { from: "human", value: "third question" },
          { from: "gpt", value: "z".repeat(12) },
        ],
      },
      {
        conversations: [
          { from: "human", value: "only one" },
          { from: "gpt", value: "ok" },
        ],
      },
    ]);
    const options = parseTrialOptions(
      {
        url: "http://127.0.0.1:1/v1",
        model: "m",
        rate: "5",
        duration: "2s",
        warmup: "0s",
        dataset: "c.json",
        turns: "4",
      },
      {},
      () => file,
    );
    const w = buildWorkload(options.workload);
    const sessions = w.scheduledCount;
    assert.equal(sessions, 10);
    for (let s = 0; s < sessions; s++) {
      const first = messagesFor(w, s)[0]?.content;
      const turns = w.turnsOf[s] as number;
      // A conversation has as many turns as human turns, at most `turns`.
      assert.equal(turns, first === "first question" ? 3 : 1);
      if (turns === 3) {
        const second = turnIndex(w, s, 1);
        const third = turnIndex(w, s, 2);
        assert.deepEqual(sessionTurn(w, third), { session: s, turn: 2 });
        assert.equal(w.maxTokens[s], 10, "the first reply: 40 characters");
        assert.equal(w.maxTokens[second], 20);
        assert.equal(w.maxTokens[third], 3);
        const history = [
          { role: "user", content: "first question" },
          { role: "assistant", content: "…" },
        ];
        assert.deepEqual(turnMessages(w, second, history).at(-1), {
          role: "user",
          content: "second question",
        });
        assert.equal(turnMessages(w, third, []).at(-1)?.content, "third question");
      }
    }
    assert.equal(w.offsetsMs.length, sessions + 2 * [...w.turnsOf].filter((t) => t === 3).length);
  },
);
