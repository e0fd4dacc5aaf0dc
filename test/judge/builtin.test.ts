// The built-in open-ended suite and the calibration's pairs: generated, the
// same every time, their references written from the prompts' own facts, and
// each perturbation worse in the way it says.

import assert from "node:assert/strict";
import { test } from "node:test";
import { builtinJudgeSuite, MAX_ITEMS_PER_FAMILY } from "../../src/judge/builtin.ts";
import { builtinPairs, PAIRS_PER_KIND } from "../../src/judge/calibration.ts";
import { PERTURBATIONS } from "../../src/judge/perturb.ts";

const numbersIn = (text: string) => text.match(/\b\d+\b/g) ?? [];

test("400 items in four families, the same every time, a larger suite beginning with the smaller", () => {
  const suite = builtinJudgeSuite();
  assert.equal(suite.items.length, 400);
  assert.deepEqual(
    [...new Set(suite.items.map((i) => i.family))],
    ["summary", "trend", "tone", "support"],
  );
  assert.equal(new Set(suite.items.map((i) => i.id)).size, 400);
  const larger = builtinJudgeSuite(150);
  const ids = new Set(larger.items.map((i) => i.id));
  assert.ok(suite.items.every((i) => ids.has(i.id)));
  const again = larger.items.find((i) => i.id === "trend-007");
  assert.deepEqual(
    again,
    suite.items.find((i) => i.id === "trend-007"),
  );
});

test("every reference is written from its prompt: no number it states is missing from the prompt", () => {
  for (const item of builtinJudgeSuite().items) {
    const prompt = item.messages.map((m) => m.content).join("\n");
    assert.ok(item.reference && item.reference.length > 20, item.id);
    // A trend's change and percentage are computed from the table; every other number is in it.
    const derived = item.family === "trend" ? 2 : 0;
    const missing = numbersIn(item.reference ?? "").filter((n) => !prompt.includes(n));
    assert.ok(missing.length <= derived, `${item.id}: ${missing.join(", ")} not in the prompt`);
  }
});

test("the calibration's pairs: each perturbation worse in its own way, never an item the arms answer", () => {
  const pairs = builtinPairs(PAIRS_PER_KIND, true);
  assert.equal(pairs.length, PAIRS_PER_KIND * PERTURBATIONS.length);
  const itemPrompts = new Set(
    builtinJudgeSuite(MAX_ITEMS_PER_FAMILY).items.map((i) => i.messages[0]?.content),
  );
  for (const p of pairs) {
    assert.notEqual(p.first, p.second, p.id);
    assert.equal(p.better, "first");
    assert.ok(!itemPrompts.has(p.messages[0]?.content), `${p.id} is an item's prompt`);
    assert.ok(p.reference, "shown with the reference when asked");
    switch (p.kind) {
      case "fact":
        assert.notDeepEqual(numbersIn(p.first), numbersIn(p.second), p.id);
        assert.equal(p.second.length - p.first.length <= 3, true);
        break;
      case "truncated":
        assert.ok(p.first.startsWith(p.second) && !/[.!?,;:]$/.test(p.second), p.id);
        break;
      case "shuffled": {
        const split = (t: string) => t.split(/(?<=[.!?])\s+/);
        assert.deepEqual([...split(p.second)].sort(), [...split(p.first)].sort(), p.id);
        assert.notDeepEqual(split(p.second), split(p.first));
        break;
      }
      case "padded":
        assert.ok(p.second.length >= 2 * p.first.length, p.id);
        assert.deepEqual(numbersIn(p.second), numbersIn(p.first), "no more content");
        break;
      case "injected":
        assert.match(p.second, /evaluator|disregard|judge/i);
        assert.notDeepEqual(numbersIn(p.second), numbersIn(p.first), "and worse besides");
        break;
    }
  }
  assert.equal(
    builtinPairs(4, false)[0]?.reference,
    null,
    "without the reference when items have none",
  );
});
