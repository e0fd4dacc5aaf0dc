// The mock's fleet mode: replicas behind one port and an HPA-like scaler that
// scales up after a cold start, back in after its stabilisation window, and
// drains or cuts the streams of a replica it takes away. Timings are only
// bounded from below (a busy machine makes everything later, never earlier).

import assert from "node:assert/strict";
import { test } from "node:test";
import { Autoscaler } from "../../src/mock/fleet-scaler.ts";
import { DEFAULT_PROFILE } from "../../src/mock/profile.ts";
import { MockProfileError, mergeProfile, parseOverrides } from "../../src/mock/profile-merge.ts";
import { type MockServer, startMockServer } from "../../src/mock/server.ts";
import { chatBody, send } from "../helpers/client.ts";
import { LOAD_TEST, quickProfile } from "../helpers/mock.ts";

const fleet = (knobs: Record<string, unknown>) =>
  startMockServer({ profile: quickProfile({ fleetIntervalS: 0.2, ...knobs }) });

const fleetOf = (server: MockServer) => {
  const f = server.stats().fleet;
  assert.ok(f, "a fleet's stats carry fleet");
  return f;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `done` holds; fails after `withinMs` (generous: only a hang should reach it). */
async function until(what: string, done: () => boolean, withinMs = 60_000): Promise<number> {
  const startMs = performance.now();
  while (!done()) {
    if (performance.now() - startMs > withinMs) assert.fail(`${what}: not within ${withinMs} ms`);
    await sleep(20);
  }
  return performance.now();
}

/** `clients` loops of short requests until stop() (or a minute): the x-replica headers seen. */
function keepBusy(url: string, clients: number) {
  let stopped = false;
  const untilMs = performance.now() + 60_000;
  const seen = new Set<string>();
  const loops = Array.from({ length: clients }, async () => {
    while (!stopped && performance.now() < untilMs) {
      const r = await send(url, chatBody({ max_tokens: 30, ignore_eos: true }));
      assert.equal(r.status, 200, r.body);
      seen.add(String(r.headers["x-replica"]));
    }
  });
  return {
    seen,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

async function metricsText(server: MockServer): Promise<string> {
  const response = await fetch(`${server.url}/metrics`);
  assert.equal(response.status, 200);
  return await response.text();
}

/** A long stream left open: which replica answers it, and how it ends. */
async function openStream(url: string, maxTokens: number) {
  const controller = new AbortController();
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(chatBody({ max_tokens: maxTokens, ignore_eos: true })),
    signal: AbortSignal.any([controller.signal, AbortSignal.timeout(120_000)]),
  });
  assert.equal(response.status, 200);
  const ended = (async () => {
    let body = "";
    let error: string | undefined;
    try {
      for await (const bytes of response.body ?? []) body += Buffer.from(bytes).toString("utf8");
    } catch (e) {
      error = String(e);
    }
    return { done: body.includes("data: [DONE]"), error };
  })();
  return { replica: response.headers.get("x-replica"), ended, abort: () => controller.abort() };
}

test(
  "the scaler rule: tolerance, clamp, up at once, down after the stabilisation window",
  LOAD_TEST,
  () => {
    const rule = { minReplicas: 1, maxReplicas: 4, target: 8, stabilizationS: 10 };
    const hpa = new Autoscaler(rule);
    assert.equal(hpa.next(0, 1, 0, 8.5), 1, "within 10 % of the target: no change");
    assert.equal(hpa.next(1000, 1, 0, 20), 3, "ceil(1 × 20 ÷ 8)");
    assert.equal(hpa.next(2000, 1, 2, 20), 3, "the pending ones count as coming");
    assert.equal(hpa.next(3000, 3, 0, 100), 4, "clamped to the maximum");
    assert.equal(hpa.next(4000, 4, 0, 0), 4, "idle, but 4 was wanted within 10 s");
    assert.equal(hpa.next(13_500, 4, 0, 0), 1, "the window passed: down to the minimum");
    const flappy = new Autoscaler({ ...rule, stabilizationS: 0 });
    assert.equal(flappy.next(0, 1, 0, 24), 3);
    assert.equal(flappy.next(1000, 3, 0, 4), 2, "ceil(3 × 4 ÷ 8): down at once");
  },
);

test(
  "load above the target brings a second replica after its cold start; /metrics counts it",
  LOAD_TEST,
  async () => {
    const server = await fleet({
      decodeBaseMs: 10,
      fleetReplicas: 1,
      fleetMaxReplicas: 2,
      fleetTarget: 2,
      fleetScaleUpDelayS: 1,
      fleetStabilizationS: 600,
    });
    try {
      assert.deepEqual(fleetOf(server), {
        ready: 1,
        pending: 0,
        scaleUps: 0,
        scaleIns: 0,
        cutStreams: 0,
      });
      assert.match(await metricsText(server), /^replicas 1$/m);
      const startMs = performance.now();
      const load = keepBusy(server.url, 8);
      const readyMs = await until("two replicas ready", () => fleetOf(server).ready === 2);
      assert.ok(readyMs - startMs >= 900, `ready after ${readyMs - startMs} ms, before its 1 s`);
      await until("a response from r1", () => load.seen.has("r1"));
      const text = await metricsText(server);
      await load.stop();
      assert.deepEqual([...load.seen].sort(), ["r0", "r1"]);
      assert.match(text, /^# TYPE replicas gauge$/m);
      assert.match(text, /^replicas 2$/m);
      assert.match(text, /^vllm:num_requests_running\{/m);
      assert.equal(fleetOf(server).scaleUps, 1);
      assert.equal(fleetOf(server).scaleIns, 0);
      assert.ok(server.stats().engine.steps > 0);
    } finally {
      await server.close();
    }
  },
);

test("after the load ends the fleet scales back to fleetReplicas", LOAD_TEST, async () => {
  const server = await fleet({
    decodeBaseMs: 10,
    fleetReplicas: 1,
    fleetMaxReplicas: 3,
    fleetTarget: 2,
    fleetScaleUpDelayS: 0.3,
    fleetStabilizationS: 1,
  });
  try {
    const load = keepBusy(server.url, 8);
    await until("more than one replica ready", () => fleetOf(server).ready > 1);
    await load.stop();
    await until("back to one replica", () => {
      const f = fleetOf(server);
      return f.ready === 1 && f.pending === 0;
    });
    const f = fleetOf(server);
    assert.ok(f.scaleIns >= 1 && f.scaleIns === f.scaleUps, JSON.stringify(f));
    assert.equal(f.cutStreams, 0, "drained, and nothing was open");
    assert.match(await metricsText(server), /^replicas 1$/m);
    const health = await fetch(`${server.url}/health`);
    assert.equal(health.status, 200);
  } finally {
    await server.close();
  }
});

/**
 * Four long streams on r0 bring up r1; one more stream lands on r1; the four
 * end, so the scaler (stabilisation 0) takes r1 away with its stream open.
 */
async function scaleInWithAStreamOpen(fleetScaleIn: "cut" | "drain") {
  const server = await fleet({
    decodeBaseMs: 20,
    fleetReplicas: 1,
    fleetMaxReplicas: 2,
    fleetTarget: 2,
    fleetScaleUpDelayS: 0.3,
    fleetStabilizationS: 0,
    fleetScaleIn,
  });
  try {
    const onR0 = await Promise.all(Array.from({ length: 4 }, () => openStream(server.url, 2000)));
    assert.deepEqual(new Set(onR0.map((s) => s.replica)), new Set(["r0"]));
    await until("r1 ready", () => fleetOf(server).ready === 2);
    const onR1 = await openStream(server.url, 300);
    assert.equal(onR1.replica, "r1", "the least loaded ready replica");
    for (const s of onR0) s.abort();
    await until("r1 scaled in", () => fleetOf(server).scaleIns === 1);
    const after = await send(server.url, chatBody({ max_tokens: 3 }));
    assert.equal(after.headers["x-replica"], "r0", "a replica scaled in takes no new request");
    const ended = await onR1.ended;
    return { ended, stats: fleetOf(server) };
  } finally {
    await server.close();
  }
}

test(
  "fleetScaleIn cut: the scaled-in replica's stream ends without [DONE]",
  LOAD_TEST,
  async () => {
    const { ended, stats } = await scaleInWithAStreamOpen("cut");
    assert.equal(ended.done, false);
    assert.ok(ended.error, "the stream broke off");
    assert.ok(stats.cutStreams >= 1, JSON.stringify(stats));
    assert.equal(stats.ready, 1);
  },
);

test("fleetScaleIn drain: the scaled-in replica's stream finishes", LOAD_TEST, async () => {
  const { ended, stats } = await scaleInWithAStreamOpen("drain");
  assert.equal(ended.done, true, ended.error);
  assert.equal(ended.error, undefined);
  assert.equal(stats.cutStreams, 0);
  assert.equal(stats.ready, 1);
});

test(
  "on gpu-busy the scaler goes to the maximum where queue, at the same load, stays",
  LOAD_TEST,
  async () => {
    const knobs = {
      decodeBaseMs: 10,
      fleetReplicas: 1,
      fleetMaxReplicas: 3,
      fleetScaleUpDelayS: 0.2,
      fleetStabilizationS: 600,
    };
    const busy = await fleet({ ...knobs, fleetMetric: "gpu-busy", fleetTarget: 50 });
    try {
      const load = keepBusy(busy.url, 4);
      await until("three replicas", () => fleetOf(busy).ready === 3);
      await load.stop();
    } finally {
      await busy.close();
    }
    const queue = await fleet({ ...knobs, fleetMetric: "queue", fleetTarget: 8 });
    try {
      const load = keepBusy(queue.url, 4);
      await sleep(2000);
      await load.stop();
      assert.equal(fleetOf(queue).scaleUps, 0, "4 in flight is under the target of 8");
    } finally {
      await queue.close();
    }
  },
);

test("without a fleet the stats carry none and /metrics no replicas line", LOAD_TEST, async () => {
  const server = await startMockServer({ profile: quickProfile() });
  try {
    assert.equal("fleet" in server.stats(), false);
    const r = await send(server.url, chatBody({ max_tokens: 3 }));
    assert.equal(r.headers["x-replica"], undefined);
    assert.doesNotMatch(await metricsText(server), /^replicas /m);
  } finally {
    await server.close();
  }
});

test(
  "fleet knobs: --set parses them; bad values name the key, value and what is accepted",
  LOAD_TEST,
  () => {
    const profile = mergeProfile(
      DEFAULT_PROFILE,
      parseOverrides(["fleetReplicas=2", "fleetMetric=gpu-busy", "fleetScaleIn=cut"]),
      "--set",
    );
    assert.equal(profile.fleetReplicas, 2);
    assert.equal(profile.fleetMetric, "gpu-busy");
    assert.equal(profile.fleetScaleIn, "cut");
    assert.equal(DEFAULT_PROFILE.fleetReplicas, 0, "no fleet by default");
    const cases: [unknown, RegExp][] = [
      [
        { fleetMetric: "cpu" },
        /fleetMetric = "cpu" is not accepted; expected one of queue, gpu-busy/,
      ],
      [
        { fleetScaleIn: "kill" },
        /fleetScaleIn = "kill" is not accepted; expected one of drain, cut/,
      ],
      [{ fleetTarget: 0 }, /fleetTarget = 0 is not accepted; expected a number > 0/],
      [{ fleetIntervalS: 0.05 }, /fleetIntervalS = 0\.05 .*a number in \[0\.1, 60\]/],
      [{ fleetReplicas: 1.5 }, /fleetReplicas = 1\.5 .*an integer ≥ 0/],
      [{ fleetMaxReplicas: 0 }, /fleetMaxReplicas = 0 .*an integer ≥ 1/],
      [{ fleetStabilizationS: -1 }, /fleetStabilizationS = -1 .*\[0, 3600\]/],
      [{ fleetScaleUpDelayS: 4000 }, /fleetScaleUpDelayS = 4000 .*\[0, 3600\]/],
      [{ fleetReplicas: 5 }, /fleetReplicas \(5\) must not exceed fleetMaxReplicas \(4\)/],
    ];
    for (const [partial, message] of cases) {
      assert.throws(
        () => mergeProfile(DEFAULT_PROFILE, partial, "profile.json"),
        (error: unknown) => {
          assert.ok(error instanceof MockProfileError);
          assert.match(error.message, /^profile\.json: /);
          assert.match(error.message, message);
          return true;
        },
      );
    }
  },
);
