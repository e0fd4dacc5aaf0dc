// Each contract deviation the mock can show (as real servers do) is caught by
// the probe meant for it, against a mock on 127.0.0.1; the default mock keeps
// every promise.

import assert from "node:assert/strict";
import { test } from "node:test";
import { compareContract } from "../../src/contract/diff.ts";
import { runArmContract } from "../../src/contract/probes.ts";
import { startMockServer } from "../../src/mock/server.ts";
import type { Target } from "../../src/openai/target.ts";
import { LOAD_TEST, quickProfile } from "../helpers/mock.ts";

async function probe(knobs: Record<string, unknown>, apiKey?: string) {
  const mock = await startMockServer({ profile: quickProfile(knobs) });
  const target: Target = {
    baseUrl: `${mock.url}/v1`,
    model: "mock-llm",
    endpoint: "chat",
    apiKey,
    headers: {},
    extraBody: {},
    includeUsage: true,
    ignoreEos: false,
    temperature: 0,
  };
  try {
    return await runArmContract(target, {
      selection: { include: [], exclude: [] },
      timeoutS: 10,
      metrics: { url: `${mock.url}/metrics`, intervalS: 1, runtime: "auto" },
    });
  } finally {
    await mock.close();
  }
}

const broken = (r: Awaited<ReturnType<typeof probe>>) =>
  r.items.filter((i) => i.holds === false).map((i) => `${i.id}: ${i.value}`);

const NO_RUNTIMES = { baseline: null, candidate: null };
let defaultRun: ReturnType<typeof probe> | undefined;
/** The default mock's items, probed once for every comparison below. */
const defaults = () => {
  defaultRun ??= probe({});
  return defaultRun;
};

test("the default mock keeps every promise of the contract", LOAD_TEST, async () => {
  const r = await defaults();
  assert.deepEqual(broken(r), []);
  assert.ok(r.items.length >= 40, `${r.items.length} items`);
  assert.equal(r.runtime.name, null);
});

const KNOBS: [string, Record<string, unknown>, RegExp][] = [
  [
    "error bodies without code",
    { errorCode: false },
    /^errors\.unknown_model\.body: error\{message,type,param\} without code$/,
  ],
  [
    "an over-context request answered in the stream",
    { contextErrorForm: "stream" },
    /^errors\.over_context\.status: 200 with an in-stream error$/,
  ],
  [
    "deltas that repeat the text so far",
    { cumulativeDeltas: true },
    /^stream\.incremental: deltas repeat the text so far$/,
  ],
  ["stop ignored", { honorStop: false }, /^params\.stop: ignored/],
  ["n ignored", { honorN: false }, /^params\.n: 1 choices/],
  [
    "a left stream kept running",
    { cancelOnDisconnect: false },
    /^operational\.disconnect: kept generating$/,
  ],
  [
    "a /health that stalls under load",
    { healthStallMs: 3000 },
    /^operational\.busy\.health: stalled or failed while busy$/,
  ],
  ["an error finish reason", { "faults.finishError": 1 }, /^stream\.finish_reason: error$/],
  ["every model name answered", { anyModel: true }, /^errors\.unknown_model\.status: status 200$/],
];

for (const [name, knobs, expected] of KNOBS) {
  test(`the contract catches ${name}`, LOAD_TEST, async () => {
    const faults = Object.fromEntries(
      Object.entries(knobs)
        .filter(([k]) => k.startsWith("faults."))
        .map(([k, v]) => [k.slice(7), v]),
    );
    const plain = Object.fromEntries(
      Object.entries(knobs).filter(([k]) => !k.startsWith("faults.")),
    );
    const r = await probe({ ...plain, ...(Object.keys(faults).length ? { faults } : {}) });
    const found = broken(r);
    assert.ok(
      found.some((b) => expected.test(b)),
      found.join("\n"),
    );
    // Against the default mock as the baseline (both times, as a re-run would), it is a regression.
    const items = { baseline: (await defaults()).items, candidate: r.items };
    const diff = compareContract(items, items, NO_RUNTIMES, { baseline: 1, candidate: 1 });
    assert.equal(diff.verdict, "fail");
    const named = diff.regressions.map((f) => `${f.id}: ${f.candidate.value}`);
    assert.ok(
      named.some((b) => expected.test(b)),
      named.join("\n"),
    );
  });
}

test(
  "behaviour that breaks nothing is recorded, not broken: llama.cpp's framing",
  LOAD_TEST,
  async () => {
    const r = await probe({ roleChunk: false, usageInFinishChunk: true, usageCountsEos: true });
    const of = (id: string) => r.items.find((i) => i.id === id);
    assert.equal(of("stream.role_chunk")?.value, "absent");
    assert.equal(of("stream.usage_chunk")?.value, "in the finish chunk");
    assert.equal(of("stream.usage_vs_stream")?.holds, true);
    assert.deepEqual(broken(r), []);
    const items = { baseline: (await defaults()).items, candidate: r.items };
    const diff = compareContract(items, items, NO_RUNTIMES, { baseline: 1, candidate: 1 });
    assert.equal(diff.verdict, "pass");
    assert.deepEqual(diff.changes.map((f) => f.id).sort(), [
      "stream.role_chunk",
      "stream.usage_chunk",
    ]);
  },
);

test(
  "a wrong API key is probed only when a key is in use, and refused with 401",
  LOAD_TEST,
  async () => {
    const r = await probe({ apiKey: "sk-test-contract-key-1234" }, "sk-test-contract-key-1234");
    const status = r.items.find((i) => i.id === "errors.bad_key.status");
    assert.equal(status?.value, "status 401");
    assert.ok(
      !JSON.stringify(r).includes("sk-test-contract-key-1234"),
      "the real key is never in the items",
    );
    assert.deepEqual(broken(r), []);
  },
);

test("which runtime answered: each runtime's own endpoint", LOAD_TEST, async () => {
  for (const [name, said] of [
    ["vllm", "vllm"],
    ["sglang", "sglang"],
    ["tgi", "tgi"],
    ["llamacpp", "llama.cpp"],
  ]) {
    const r = await probe({ runtimeName: name, runtimeVersion: "1.2.3" });
    assert.deepEqual([r.runtime.name, r.runtime.version], [said, "1.2.3"], name);
  }
});
