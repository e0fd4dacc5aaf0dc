// A value the mode does not use is still checked by its own rule: a mistake
// is said, never ignored with exit 0 (field findings: lanes-issue=maybe in run
// mode, rate=fast in burst mode; a command's flags: test/cli/cli.test.ts).

import assert from "node:assert/strict";
import { test } from "node:test";
import { planRun } from "../../src/commands/gate/plan.ts";
import { type BurstActionDeps, runBurstAction } from "../../src/commands/lanes/burst-action.ts";
import { parseConfig } from "../../src/config/config.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

const noFile = () => {
  throw new Error("no file is read");
};

test(
  "the gate's run mode checks a lanes setting it does not use, and report mode as before",
  LOAD_TEST,
  () => {
    const run = planRun({ mode: "run", "lanes-issue": "maybe" }, noFile);
    assert.match(run.problem?.message ?? "", /lanes-issue = "maybe" is not accepted; expected/);
    const report = planRun({ mode: "report", rate: "fast" }, noFile);
    assert.match(report.problem?.message ?? "", /rate = "fast" is not accepted/);
    assert.equal(planRun({ mode: "run", "lanes-issue": "true" }, noFile).problem, undefined);
  },
);

test(
  "burst mode checks a gate setting it does not use, before reading anything",
  LOAD_TEST,
  async () => {
    const deps = { env: {}, readFile: noFile } as unknown as BurstActionDeps;
    await assert.rejects(
      runBurstAction({ mode: "burst", rate: "fast", lanes: "lanes.yml" }, deps),
      /rate = "fast" is not accepted/,
    );
  },
);

test("a lanes file given to a gate is named in a warning, not silently unread", LOAD_TEST, () => {
  const base = {
    "baseline-url": "http://127.0.0.1:8001/v1",
    "candidate-url": "http://127.0.0.1:8002/v1",
    model: "m",
    rate: "10",
    accuracy: "none",
    "quality-suite": "none",
    contract: "none",
  };
  const notes = parseConfig({ ...base, lanes: "broken-lanes.yml" }).gate.setupNotes ?? [];
  assert.ok(
    notes.some((n) =>
      /^lanes is set but not used by a gate: mode burst reads it \(its file is not read here\)/.test(
        n,
      ),
    ),
    notes.join("\n"),
  );
  assert.deepEqual(parseConfig(base).gate.setupNotes, []);
});
