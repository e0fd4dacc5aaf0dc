// Measurement against the in-process mock on 127.0.0.1: every outcome class is
// produced by the fault that should produce it and by nothing else, the
// scheduled count always equals the sum of outcomes, and held-back clients are
// visible in the numbers and flagged by the self-checks.

import assert from "node:assert/strict";
import { createServer } from "node:net";
import { describe, test } from "node:test";
import { OUTCOMES, type Outcome } from "../../src/common/outcomes.ts";
import type { RawSettings } from "../../src/config/settings.ts";
import { parseTrialOptions } from "../../src/config/trial.ts";
import { DEFAULT_PROFILE } from "../../src/mock/profile.ts";
import { mergeProfile } from "../../src/mock/profile-merge.ts";
import { startMockServer } from "../../src/mock/server.ts";
import type { TrialReport } from "../../src/trial/measure.ts";
import { measureTrial } from "../../src/trial/trial.ts";
import { LOAD_TEST, QUICK_ENGINE } from "../helpers/mock.ts";

const FAST_MOCK = {
  ...QUICK_ENGINE,
  decodeBaseMs: 2,
  naturalMinTokens: 4,
  naturalMaxTokens: 6,
};

const SHORT_RUN: RawSettings = {
  model: "mock-llm",
  rate: "30",
  duration: "0.5s",
  warmup: "0.1s",
  "input-len": "16",
  "output-len": "8",
  timeout: "5s",
  seed: "11",
};

/** Measures the in-process mock; with `block`, the client's event loop is stuck for blockMs from afterMs on. */
async function measureMock(
  mock: Record<string, unknown>,
  settings: RawSettings = {},
  block?: { afterMs: number; blockMs: number },
): Promise<TrialReport> {
  const server = await startMockServer({
    profile: mergeProfile(DEFAULT_PROFILE, { ...FAST_MOCK, ...mock }, "test"),
  });
  const timer = block
    ? setTimeout(() => {
        const until = performance.now() + block.blockMs;
        while (performance.now() < until) {
          // busy: nothing is sent or read
        }
      }, block.afterMs)
    : undefined;
  try {
    const config = parseTrialOptions({ ...SHORT_RUN, url: `${server.url}/v1`, ...settings });
    return await measureTrial(config);
  } finally {
    clearTimeout(timer);
    await server.close();
  }
}

function assertAccounted(r: TrialReport): void {
  const sum = OUTCOMES.reduce((s, o) => s + r.outcomes[o], 0);
  assert.equal(sum, r.scheduled, "scheduled = sum of outcomes");
  assert.ok(r.scheduled > 0);
}

function assertOnly(r: TrialReport, outcome: Outcome): void {
  assertAccounted(r);
  const others = OUTCOMES.filter((o) => o !== outcome && r.outcomes[o] > 0);
  assert.deepEqual(others, [], `only ${outcome}: ${JSON.stringify(r.outcomes)}`);
  assert.equal(r.outcomes[outcome], r.scheduled);
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("each outcome class comes from its fault and from nothing else", LOAD_TEST, () => {
  const cases: [string, Record<string, unknown>, RawSettings, Outcome][] = [
    ["a healthy server", {}, {}, "ok"],
    ["an empty 200 stream", { faults: { empty: 1 } }, {}, "empty"],
    ["a stream closed half-way", { faults: { truncated: 1 } }, {}, "truncated"],
    ["an in-band error object", { faults: { streamError: 1 } }, {}, "stream_error"],
    ["a data event that is not JSON", { faults: { malformed: 1 } }, {}, "protocol_error"],
    ["429 with x-ratelimit-remaining: 0", { faults: { quota429: 1 } }, {}, "rate_limited_quota"],
    ["429 without evidence", { faults: { http429: 1 } }, {}, "rate_limited"],
    ["429 engine_overloaded", { faults: { capacity429: 1 } }, {}, "overloaded"],
    ["503", { faults: { http503: 1 } }, {}, "overloaded"],
    ["529", { faults: { http529: 1 } }, {}, "overloaded"],
    ["500", { faults: { http500: 1 } }, {}, "http_5xx"],
    ["an unknown model (404)", {}, { model: "no-such-model" }, "http_4xx"],
    [
      "a server that ignores ignore_eos",
      { honorIgnoreEos: false },
      { "ignore-eos": "true", "output-len": "50" },
      "short",
    ],
    ["a server that never answers", { faults: { hang: 1 } }, { timeout: "0.3s" }, "censored"],
  ];
  for (const [name, mock, settings, outcome] of cases) {
    test(`${name} → ${outcome}`, LOAD_TEST, async () => {
      const r = await measureMock(mock, settings);
      assertOnly(r, outcome);
      if (outcome !== "ok") assert.ok(r.errors[outcome]?.length, "an example explains the failure");
      if (outcome === "rate_limited_quota") {
        const e = r.errors.rate_limited_quota?.[0];
        assert.equal(e?.error_code, "rate_limit_exceeded");
        assert.equal(e?.headers?.["x-ratelimit-remaining-requests"], "0");
        assert.equal(e?.headers?.["retry-after"], "1");
      }
      if (outcome === "stream_error")
        assert.equal(r.errors.stream_error?.[0]?.error_type, "InternalServerError");
    });
  }

  test("a closed port → connect_error", LOAD_TEST, async () => {
    const port = await closedPort();
    const config = parseTrialOptions({ ...SHORT_RUN, url: `http://127.0.0.1:${port}/v1` });
    const r = await measureTrial(config);
    assertOnly(r, "connect_error");
    assert.match(r.errors.connect_error?.[0]?.detail ?? "", /ECONNREFUSED/);
  });

  test(
    "ignore_eos honoured with the same settings → ok (short is the server's fault, not ours)",
    LOAD_TEST,
    async () => {
      assertOnly(await measureMock({}, { "ignore-eos": "true", "output-len": "50" }), "ok");
    },
  );

  test("an empty stream has a 200 status: it is still not ok", LOAD_TEST, async () => {
    const r = await measureMock({ faults: { empty: 0.5 } });
    assertAccounted(r);
    assert.ok(r.outcomes.empty > 0 && r.outcomes.ok > 0);
    assert.equal(r.metrics.ttft_ms.count, r.outcomes.ok, "latency comes from ok requests only");
  });
});

test(
  "timeouts are censored at the timeout and percentiles among them are lower bounds",
  LOAD_TEST,
  async () => {
    // A 2 s timeout: a starved machine's pause is not mistaken for a hang.
    const r = await measureMock({ faults: { hang: 0.5 } }, { timeout: "2s", rate: "40" });
    assertAccounted(r);
    assert.ok(r.outcomes.censored > 0 && r.outcomes.ok > 0);
    const e2el = r.metrics.e2el_ms;
    assert.equal(
      e2el.count,
      r.outcomes.ok + r.outcomes.censored,
      "censored requests stay in the percentiles",
    );
    assert.equal(e2el.censored, r.outcomes.censored);
    assert.equal(e2el.max, 2000);
    assert.ok(e2el.lower_bounds.includes("p99") && e2el.lower_bounds.includes("max"));
    assert.ok(!e2el.lower_bounds.includes("p50") || r.outcomes.censored * 2 >= r.scheduled);
  },
);

test(
  "a max-concurrency cap below the needed in-flight count: the wait is latency, not service time",
  LOAD_TEST,
  async () => {
    // ≈ 50 req/s of ≈ 100 ms requests needs ≈ 5 in flight; 1 slot makes them queue.
    const r = await measureMock(
      { decodeBaseMs: 10, naturalMinTokens: 10, naturalMaxTokens: 10 },
      { rate: "50", duration: "0.6s", "max-concurrency": "1", "output-len": "10", timeout: "20s" },
    );
    assertOnly(r, "ok");
    const waitMs = (r.metrics.ttft_ms.mean as number) - (r.metrics.ttft_service_ms.mean as number);
    assert.ok(
      waitMs > 200,
      `mean slot wait ${waitMs.toFixed(0)} ms is in the scheduled-basis TTFT`,
    );
    assert.ok((r.metrics.ttft_service_ms.p50 as number) < 60, "service time excludes the wait");
    assert.equal(r.validity.capped, true);
    assert.ok(r.validity.slot_wait_ms.count > 0);
    assert.match(
      r.validity.warnings.join(" "),
      /closed loop: \d+ requests? waited for a free concurrency slot \(max-concurrency 1\)/,
    );
    // The waits reach ≈ 3 s; a starved machine's skew stays far below.
    assert.ok(
      (r.validity.send_skew_ms.p99 as number) < 500,
      "waiting for a slot is not the generator's skew",
    );
  },
);

test(
  "a request that waits for a slot past its deadline is censored (the server held the slot), not unsent",
  LOAD_TEST,
  async () => {
    // One slot, ≈ 100 ms requests, 50 req/s and a 1.5 s timeout: the queue outgrows the deadline
    // (30 requests need ≈ 3 s), with room for a starved machine's pause before a free slot.
    const r = await measureMock(
      { decodeBaseMs: 10, naturalMinTokens: 10, naturalMaxTokens: 10 },
      { rate: "50", duration: "0.6s", "max-concurrency": "1", "output-len": "10", timeout: "1.5s" },
    );
    assertAccounted(r);
    assert.ok(r.outcomes.censored > 0, JSON.stringify(r.outcomes));
    assert.equal(
      r.outcomes.unsent,
      0,
      "the client sent everything it could: the waits are the server's",
    );
    assert.doesNotMatch(r.validity.reasons.join(" "), /never sent in time/);
  },
);

test(
  "requests that could not be sent before their deadline are unsent, and the trial is invalid",
  LOAD_TEST,
  async () => {
    // The client is stuck for longer than the request timeout.
    const r = await measureMock(
      {},
      { rate: "50", duration: "1s", timeout: "0.2s" },
      { afterMs: 400, blockMs: 500 },
    );
    assertAccounted(r);
    assert.ok(r.outcomes.unsent > 0, JSON.stringify(r.outcomes));
    assert.equal(r.validity.valid, false);
    assert.match(r.validity.reasons.join(" "), /(requests were|request was) never sent in time/);
    assert.equal(r.metrics.e2el_ms.censored, r.outcomes.unsent + r.outcomes.censored);
  },
);

test(
  "a blocked event loop: the delay is in scheduled-basis latency and the self-checks flag the trial",
  LOAD_TEST,
  async () => {
    const r = await measureMock({}, { rate: "50", duration: "1s" }, { afterMs: 500, blockMs: 300 });
    assertAccounted(r);
    const lagMs = (r.metrics.ttft_ms.mean as number) - (r.metrics.ttft_service_ms.mean as number);
    assert.ok(
      lagMs > 10,
      `mean send lag ${lagMs.toFixed(1)} ms is counted in TTFT from the schedule`,
    );
    assert.ok((r.validity.send_skew_ms.max as number) >= 150);
    assert.equal(r.validity.valid, false);
    assert.match(
      r.validity.reasons.join(" "),
      /late sends moved p95 TTFT by \+\d+\.\d % \(\+\d+\.\d ms; limit max-skew-effect 2\.5 %\)/,
    );
    assert.ok((r.validity.skew_effect.ttft ?? 0) > 0.025, "the shift is reported");
    assert.ok(r.validity.event_loop_delay_ms.max >= 250, "the event-loop probe saw the block");
  },
);

test("engine stalls show in both scheduled-basis and service latency", LOAD_TEST, async () => {
  const r = await measureMock(
    { stallEveryS: 0.4, stallMs: 200, decodeBaseMs: 5, naturalMinTokens: 30, naturalMaxTokens: 30 },
    { rate: "20", duration: "1.2s", "output-len": "30" },
  );
  assertOnly(r, "ok");
  assert.ok((r.metrics.e2el_service_ms.max as number) >= 180, "service time includes the stall");
  assert.ok((r.metrics.e2el_ms.max as number) >= 180);
  assert.ok((r.metrics.itl_ms.max as number) >= 150, "the stall is one long inter-token gap");
  // Generous: a shared machine may delay a timer, but not by the 200 ms stall.
  assert.ok(
    (r.validity.send_skew_ms.p99 as number) < 150,
    `the client kept its schedule: ${JSON.stringify(r.validity.send_skew_ms)}`,
  );
});

test("multi-token chunks are reported, and ITL is said to be per chunk", LOAD_TEST, async () => {
  const r = await measureMock({ tokensPerChunk: 4 }, { "ignore-eos": "true", "output-len": "16" });
  assertOnly(r, "ok");
  assert.equal(r.tokens.tokens_per_chunk, 4);
  assert.equal(r.tokens.itl_per_multi_token_chunk, true);
  assert.equal(r.tokens.output_total, 16 * r.scheduled, "tokens from usage, not chunks");
});

test("goodput counts ok requests that meet every SLO over the window", LOAD_TEST, async () => {
  const r = await measureMock(
    { decodeBaseMs: 5 },
    {
      // TTFT counts from the scheduled send: 10 s, so a starved machine's pause still meets it.
      slo: "ttft:10000 tpot:1000",
      rate: "20",
      duration: "1s",
      "output-len": "5",
      "ignore-eos": "true",
    },
  );
  assertOnly(r, "ok");
  assert.equal(r.goodput.good, r.outcomes.ok);
  assert.equal(r.goodput.attainment, 1);
  assert.equal(r.goodput.requests_per_s, Math.round((r.outcomes.ok / 1) * 1000) / 1000);
  const strict = await measureMock(
    { decodeBaseMs: 5 },
    { slo: "tpot:1", rate: "20", duration: "1s", "output-len": "5", "ignore-eos": "true" },
  );
  assert.equal(strict.goodput.good, 0, "a 5 ms decode step misses a 1 ms TPOT SLO");
  assert.equal(strict.goodput.slo.tpot_ms, 1);
});
