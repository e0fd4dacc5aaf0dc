// A results file with not one complete pair of trials is an error when read
// back, never a pass: a report job must not post "pass" for a file stripped
// of its trials (or of one arm's).

import assert from "node:assert/strict";
import { test } from "node:test";
import { headlineFor } from "../../src/report/headline.ts";
import { trustResults } from "../../src/results/trust.ts";
import { fakeGateResults } from "../helpers/gate.ts";

const steady = [1, 1.02, 0.99].map((k) => ({ ttftMs: 100 * k, itlMs: 10 * k }));

test("a results file without its trials, or without one arm's, is an error with its reason", async () => {
  const r = await fakeGateResults(steady, steady);
  assert.equal(r.verdict, "pass");
  const stripped = [
    { ...r, trials: [] },
    { ...r, trials: r.trials.filter((t) => t.arm === "baseline") },
  ];
  for (const file of stripped) {
    const read = trustResults(JSON.parse(JSON.stringify(file)), "r.json", headlineFor);
    assert.equal(read.verdict, "error");
    assert.deepEqual(
      read.guards.map((g) => g.code),
      ["no_pairs"],
    );
    assert.match(read.headline, /not one complete pair of trials to compare/);
  }
});
