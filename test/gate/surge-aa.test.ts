// The surge suite's A/A against the mock: the same server on both arms
// recovers at once on both and passes.

import assert from "node:assert/strict";
import { test } from "node:test";
import { LOAD_TEST } from "../helpers/mock.ts";
import { surgeGate } from "../helpers/surge.ts";

test("the same server on both arms: the surge passes", LOAD_TEST, async () => {
  const { run } = await surgeGate({ seed: 7 }, 2);
  const s = run.surge;
  assert.ok(s, run.surge_skipped ?? "no surge report");
  assert.equal(s.verdict, "pass", s.comparison.checks.map((c) => c.reason).join("; "));
  // Recovered in the first second after the surge's end.
  assert.ok(
    s.pairs.every((p) => p.baseline.recovery_s === 0 && p.candidate.recovery_s === 0),
    JSON.stringify(s.pairs),
  );
});
