// The scaling scenario A/A against two fleet mocks (helpers/scaling.ts): two
// pairs of the same scaler fail no rule.

import assert from "node:assert/strict";
import { test } from "node:test";
import { LOAD_TEST } from "../helpers/mock.ts";
import { scalingGate } from "../helpers/scaling.ts";

const SHORT = { scaling: "4x 6s", "scaling-after": "3s", "scaling-hover": "1.76x 4s" };

test("an A/A scaling gate fails nothing", LOAD_TEST, async () => {
  const { run } = await scalingGate({}, { ...SHORT, "scaling-pairs": "2" });
  const s = run.scaling;
  assert.ok(s, run.scaling_skipped ?? "no scaling report");
  assert.equal(s.pairs.length, 2, s.notes.join("; "));
  assert.ok(
    s.comparison.checks.every((c) => c.verdict !== "fail"),
    s.comparison.checks.map((c) => `${c.id}: ${c.reason}`).join("; "),
  );
});
