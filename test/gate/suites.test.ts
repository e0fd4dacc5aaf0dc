// The side-suites as one list: an entry for every suite id, run in order, and
// a suite that throws (a server that died) leaving the reports of those that
// ran before it in the run's record — a quality regression still fails.

import assert from "node:assert/strict";
import { test } from "node:test";
import { noSuites, SUITE_IDS } from "../../src/gate/suites.ts";
import { ServerError } from "../../src/servers/server.ts";
import { mockPairGate } from "../helpers/gate.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

test("one entry for every suite id, in the order they run", () => {
  // The cheapest first: with fail-fast a regression they confirm skips the costly ones.
  assert.deepEqual(SUITE_IDS, [
    "contract",
    "quality",
    "accuracy",
    "judge",
    "truncation",
    "scaling",
    "surge",
    "drain",
  ]);
  assert.deepEqual(Object.keys(noSuites()), [...SUITE_IDS]);
});

test(
  "a suite that throws after another failed: the earlier report stays, the gate still fails on it",
  LOAD_TEST,
  async () => {
    const { run } = await mockPairGate(
      { candidate: { breakJson: 0.1 } },
      // Without fail-fast: the accuracy suite runs after the quality regression (and throws).
      { contract: "none", "accuracy-items": "12", "fail-fast": "false" },
      {
        runItems: async () => {
          throw new ServerError("candidate", "the candidate's server exited (137)", "killed");
        },
      },
    );
    assert.equal(run.quality?.verdict, "fail");
    assert.equal(run.accuracy, null);
    assert.match(run.accuracy_skipped ?? "", /not run: the candidate's server exited \(137\)/);
    assert.equal(run.guards[0]?.code, "server");
    assert.equal(run.verdict, "fail", "the quality regression, measured apart, still fails");
  },
);
