import assert from "node:assert/strict";
import { test } from "node:test";
import {
  buildWorkload,
  fixedOutputTokens,
  measuredCount,
  type WorkloadSpec,
} from "../../src/workload/plan.ts";
import { messagesFor } from "../../src/workload/prompts.ts";

const SPEC: WorkloadSpec = {
  arrival: { kind: "poisson", ratePerS: 20 },
  warmupS: 2,
  durationS: 10,
  seed: 3,
  inputLen: { kind: "uniform", min: 10, max: 50 },
  outputLen: { kind: "fixed", tokens: 64 },
  maxTokens: undefined,
  ignoreEos: true,
  dataset: undefined,
  promptRound: 0,
  textSalt: 0,
  prefix: undefined,
  trace: undefined,
  sessions: undefined,
  tokenizer: undefined,
};

test("a workload is reproducible byte for byte and its fingerprint tells seeds apart", () => {
  const a = buildWorkload(SPEC);
  const b = buildWorkload(SPEC);
  assert.equal(a.fingerprint, b.fingerprint);
  assert.deepEqual(a.offsetsMs, b.offsetsMs);
  for (let i = 0; i < a.offsetsMs.length; i++)
    assert.deepEqual(messagesFor(a, i), messagesFor(b, i));
  assert.notEqual(buildWorkload({ ...SPEC, seed: 4 }).fingerprint, a.fingerprint);
  assert.notEqual(
    buildWorkload({ ...SPEC, outputLen: { kind: "fixed", tokens: 65 } }).fingerprint,
    a.fingerprint,
  );
});

test("warm-up requests come first and the window continues the same arrival process", () => {
  const w = buildWorkload(SPEC);
  assert.ok(
    w.warmupCount > 10 && w.warmupCount < 80,
    `${w.warmupCount} warm-up requests in 2 s at 20/s`,
  );
  assert.ok((w.offsetsMs[w.warmupCount - 1] as number) < 2000);
  assert.ok((w.offsetsMs[w.warmupCount] as number) >= 2000);
  assert.ok((w.offsetsMs.at(-1) as number) < 12_000);
  assert.ok(measuredCount(w) > 120 && measuredCount(w) < 280);
  const noWarmup = buildWorkload({ ...SPEC, warmupS: 0 });
  assert.equal(noWarmup.warmupCount, 0);
});

test("synthetic prompts have 4 characters per token, differ per request, and fix the output when ignore_eos", () => {
  const w = buildWorkload(SPEC);
  const seen = new Set<string>();
  for (let i = 0; i < w.offsetsMs.length; i++) {
    const [message] = messagesFor(w, i);
    assert.equal(message?.content.length, 4 * (w.inputTokens[i] as number));
    assert.ok((w.inputTokens[i] as number) >= 10 && (w.inputTokens[i] as number) <= 50);
    seen.add(message?.content as string);
    assert.equal(fixedOutputTokens(w, i), 64);
  }
  assert.equal(seen.size, w.offsetsMs.length);
  assert.equal(fixedOutputTokens(buildWorkload({ ...SPEC, ignoreEos: false }), 0), undefined);
});

test("dataset prompts cycle in a seeded order and keep their own max_tokens unless overridden", () => {
  const entries = [0, 1, 2].map((k) => ({
    messages: [{ role: "user", content: `prompt ${k}` }],
    maxTokens: 10 + k,
    later: [],
  }));
  const spec = { ...SPEC, outputLen: undefined, dataset: { name: "d.jsonl", entries } };
  const w = buildWorkload(spec);
  const counts = [0, 0, 0];
  for (let i = 0; i < w.offsetsMs.length; i++) {
    const k = w.datasetIndex[i] as number;
    counts[k] = (counts[k] as number) + 1;
    assert.equal(messagesFor(w, i)[0]?.content, `prompt ${k}`);
    assert.equal(w.maxTokens[i], 10 + k);
  }
  assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, "cycled evenly");
  const capped = buildWorkload({ ...spec, maxTokens: 11 });
  assert.ok([...capped.maxTokens].every((m) => m <= 11));
});

test("all-at-once puts the window's requests at its start", () => {
  const w = buildWorkload({ ...SPEC, arrival: { kind: "all-at-once", count: 5 }, warmupS: 1 });
  assert.equal(w.warmupCount, 5);
  assert.deepEqual([...w.offsetsMs], [0, 0, 0, 0, 0, 1000, 1000, 1000, 1000, 1000]);
});

test("shared prefixes: the same text per group, a unique suffix per request, Zipf favours the first groups", () => {
  const prefix = { groups: 4, tokens: 64, zipfS: 0 };
  const w = buildWorkload({ ...SPEC, prefix });
  const content = (i: number) => messagesFor(w, i)[0]?.content as string;
  const byGroup = new Map<number, number[]>();
  for (let i = 0; i < w.offsetsMs.length; i++) {
    const g = w.prefixGroup[i] as number;
    assert.ok(g >= 0 && g < 4);
    byGroup.set(g, [...(byGroup.get(g) ?? []), i]);
    // 4 characters per token: the prefix, then the request's own input-len tokens.
    assert.equal(content(i).length, 4 * (64 + (w.inputTokens[i] as number)));
  }
  assert.equal(byGroup.size, 4, "every group is used");
  for (const [, members] of byGroup) {
    const [a, b] = members as [number, number];
    assert.equal(content(a).slice(0, 256), content(b).slice(0, 256), "one prefix per group");
    assert.notEqual(content(a).slice(256), content(b).slice(256), "each its own suffix");
  }
  const heads = new Set([...byGroup.values()].map((m) => content(m[0] as number).slice(0, 256)));
  assert.equal(heads.size, 4, "groups differ");
  // Without prefixes, the same requests as before: prefixes draw from their own stream.
  const plain = buildWorkload(SPEC);
  assert.deepEqual(plain.inputTokens, w.inputTokens);
  assert.deepEqual(plain.offsetsMs, w.offsetsMs);
  assert.equal(content(0).slice(256), messagesFor(plain, 0)[0]?.content);
  assert.notEqual(plain.fingerprint, w.fingerprint);
  const zipf = buildWorkload({ ...SPEC, prefix: { ...prefix, zipfS: 1.5 } });
  const count = (g: number) => zipf.prefixGroup.filter((x) => x === g).length;
  assert.ok(count(0) > 2 * count(3), `zipf: group 1 ${count(0)}, group 4 ${count(3)}`);
  assert.notEqual(zipf.fingerprint, w.fingerprint);
});
