// accuracy-concurrency auto (issue 50, item 3): the fewer of the slots the two
// servers say they run at once — llama.cpp's /props, SGLang's
// /get_server_info, TGI's /info — at most 64; 16 where neither says (vLLM).

import assert from "node:assert/strict";
import { test } from "node:test";
import { parseConfig } from "../../src/config/config.ts";
import { AUTO_CONCURRENCY, accuracyConcurrency } from "../../src/gate/accuracy-run.ts";
import type { GateDeps } from "../../src/gate/options.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { serverSlots } from "../../src/servermetrics/slots.ts";
import { LOAD_TEST, quickProfile } from "../helpers/mock.ts";

const ARMS = {
  model: "m",
  "baseline-url": "http://127.0.0.1:1/v1",
  "candidate-url": "http://127.0.0.1:2/v1",
  rate: "5",
};

test(
  "each runtime's page says its slots; a page that says nothing usable is not an answer",
  LOAD_TEST,
  async () => {
    const pages = (map: Record<string, unknown>) => async (url: string) =>
      map[new URL(url).pathname];
    assert.deepEqual(await serverSlots("http://h", {}, pages({ "/props": { total_slots: 4 } })), {
      slots: 4,
      source: "/props total_slots",
    });
    assert.deepEqual(
      await serverSlots(
        "http://h",
        {},
        pages({ "/get_server_info": { max_running_requests: 48 } }),
      ),
      { slots: 48, source: "/get_server_info max_running_requests" },
    );
    assert.deepEqual(
      await serverSlots("http://h", {}, pages({ "/info": { max_concurrent_requests: 128 } })),
      { slots: 128, source: "/info max_concurrent_requests" },
    );
    for (const bad of [{ total_slots: 0 }, { total_slots: "4" }, { total_slots: 2.5 }, [], null])
      assert.equal(await serverSlots("http://h", {}, pages({ "/props": bad })), null);
  },
);

test(
  "auto takes the fewer slots of the two, at most 64; 16 when neither says; a number as set",
  LOAD_TEST,
  async () => {
    const a = parseConfig({ ...ARMS, accuracy: "builtin", "accuracy-items": "100" }).gate;
    assert.ok(a.accuracy);
    assert.equal(a.accuracy.concurrency, "auto", "the default");
    const lines: string[] = [];
    const log = (l: string) => lines.push(l);
    const deps = (slots: Record<string, number | null>): GateDeps => ({
      checks: {
        preflight: async () => {
          throw new Error("not here");
        },
        waitIdle: async () => {
          throw new Error("not here");
        },
        slots: async (t) => {
          const n = slots[t.baseUrl];
          return n ? { slots: n, source: "/props total_slots" } : null;
        },
      },
    });
    const [b, c] = ["http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1"];
    assert.equal(await accuracyConcurrency(a, a.accuracy, deps({ [b]: 4, [c]: 8 }), log), 4);
    assert.match(
      lines.at(-1) ?? "",
      /4 items at a time \(accuracy-concurrency auto: the baseline's \/props total_slots 4, the candidate's \/props total_slots 8\)/,
    );
    assert.equal(await accuracyConcurrency(a, a.accuracy, deps({ [c]: 512 }), log), 64);
    assert.equal(await accuracyConcurrency(a, a.accuracy, deps({}), log), AUTO_CONCURRENCY);
    assert.match(lines.at(-1) ?? "", /neither server says/);
    // The real probe: nothing listens at the arms' ports, neither says: the old default.
    assert.equal(await accuracyConcurrency(a, a.accuracy, {}, log), 16);
    const set = parseConfig({ ...ARMS, accuracy: "builtin", "accuracy-concurrency": "7" }).gate;
    assert.ok(set.accuracy);
    assert.equal(await accuracyConcurrency(set, set.accuracy, deps({ [b]: 2 }), log), 7);
    assert.throws(
      () => parseConfig({ ...ARMS, accuracy: "builtin", "accuracy-concurrency": "0" }),
      /accuracy-concurrency = "0" is not accepted; expected auto, or a whole number from 1 to 256/,
    );
  },
);

test("the mock as llama.cpp says its slots on /props", LOAD_TEST, async () => {
  const server = await startMockServer({
    profile: quickProfile({ runtimeName: "llamacpp", maxBatch: 4 }),
  });
  try {
    assert.deepEqual(await serverSlots(server.url, {}), { slots: 4, source: "/props total_slots" });
  } finally {
    await server.close();
  }
});
