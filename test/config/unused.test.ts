// A value the mode does not use is still checked by its own rule: a mistake
// is said, never ignored with exit 0 (field findings: lanes-issue=maybe in run
// mode, rate=fast in burst mode, prefix-pick without prefix-groups).

import assert from "node:assert/strict";
import { test } from "node:test";
import { runCli } from "../../src/cli.ts";
import { planRun } from "../../src/commands/gate/plan.ts";
import { type BurstActionDeps, runBurstAction } from "../../src/commands/lanes/burst-action.ts";
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

test("a command checks every flag by its rule, used or not", LOAD_TEST, async () => {
  const stderr: string[] = [];
  const code = await runCli(
    [
      "measure",
      "--url",
      "http://127.0.0.1:9/v1",
      "--model",
      "m",
      "--rate",
      "5",
      "--prefix-pick",
      "banana",
    ],
    {
      stdout: () => {},
      stderr: (t) => {
        stderr.push(t);
      },
      env: {},
      readFile: noFile,
      writeFile: () => {},
    },
  );
  assert.equal(code, 2);
  assert.match(stderr.join(""), /prefix-pick = banana is not used without prefix-groups/);
});
