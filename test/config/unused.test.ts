// A value the mode does not use is still checked by its own rule: a mistake
// is said, never ignored with exit 0 (field findings: lanes-issue=maybe in run
// mode, rate=fast in burst mode; a command's flags: test/cli/cli.test.ts).

import assert from "node:assert/strict";
import { test } from "node:test";
import { runGateAction } from "../../src/commands/gate/action.ts";
import { planRun } from "../../src/commands/gate/plan.ts";
import { type BurstActionDeps, runBurstAction } from "../../src/commands/lanes/burst-action.ts";
import { parseConfig } from "../../src/config/config.ts";
import { unusedByMode } from "../../src/config/modes.ts";
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
    const said = { failed: "", summary: "", outputs: {} as Record<string, string> };
    const io = {
      setOutput: (name: string, value: string) => {
        said.outputs[name] = value;
      },
      setFailed: (m: string) => {
        said.failed = m;
      },
      writeSummary: async (m: string) => {
        said.summary = m;
      },
    };
    const deps = { env: {}, readFile: noFile, io } as unknown as BurstActionDeps;
    await runBurstAction({ mode: "burst", rate: "fast", lanes: "lanes.yml" }, deps);
    assert.match(said.failed, /rate = "fast" is not accepted/);
    // Not only the error line: the summary and the outputs say it too.
    assert.match(
      said.summary,
      /\*\*error\*\* — nothing was appended to the history: rate = "fast"/,
    );
    assert.equal(said.outputs.verdict, "error");
    assert.match(said.outputs.headline ?? "", /rate = "fast" is not accepted/);
    assert.equal(said.outputs["lanes-verdicts"], "{}");
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
      /^lanes is set but not used by a gate \(modes run and measure\): mode burst reads it — remove it/.test(
        n,
      ),
    ),
    notes.join("\n"),
  );
  assert.deepEqual(parseConfig(base).gate.setupNotes, []);
});

test("each mode names the inputs it does not read, and nothing it reads", () => {
  const inputs = {
    mode: "report",
    "results-path": "r.json",
    comment: "always",
    "github-token": "",
    rate: "10",
    "max-trials": "8",
    lanes: "lanes.yml",
    "lanes-issue": "true",
  };
  assert.deepEqual(unusedByMode(inputs, "report"), ["rate", "max-trials", "lanes", "lanes-issue"]);
  assert.deepEqual(unusedByMode(inputs, "run"), ["lanes", "lanes-issue"]);
  assert.deepEqual(unusedByMode(inputs, "measure"), ["lanes", "lanes-issue"]);
  assert.deepEqual(unusedByMode(inputs, "burst"), [
    "rate",
    "max-trials",
    "comment",
    "results-path",
  ]);
  assert.deepEqual(
    unusedByMode({ mode: "burst", lanes: "l.yml", "lanes-issue": "true" }, "burst"),
    [],
  );
});

test("report and burst jobs warn about the inputs they do not read, naming them, not their values", async () => {
  const warnings: string[] = [];
  const io = { warning: (m: string) => warnings.push(m), setSecret: () => {} };
  const report = { env: {}, readFile: noFile, writeFile: () => {}, io } as unknown as Parameters<
    typeof runGateAction
  >[1];
  await assert.rejects(
    runGateAction({ mode: "report", "results-path": "r.json", rate: "10", seed: "4" }, report),
    /results file/,
  );
  assert.deepEqual(warnings, [
    "rate, seed are set but not used by mode report: mode report re-decides the results file's own trials and posts them — remove them, or run the mode that reads them",
  ]);
  warnings.length = 0;
  let failed = "";
  const burstIo = {
    ...io,
    setOutput: () => {},
    writeSummary: async () => {},
    setFailed: (m: string) => {
      failed = m;
    },
  };
  const burst = { env: {}, readFile: noFile, io: burstIo } as unknown as BurstActionDeps;
  await runBurstAction({ mode: "burst", rate: "10", lanes: "lanes.yml" }, burst);
  assert.match(failed, /no file is read/);
  assert.match(
    warnings.join("\n"),
    /^rate is set but not used by mode burst: mode burst reads the lanes file/,
  );
});
