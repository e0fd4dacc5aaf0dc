// Every setting is documented where users look — an action input in
// action.yml and a row of the README's input table — with the default the
// settings table gives it.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { ACTION_INPUTS, SETTINGS, settingsIn } from "../src/config/settings.ts";

const ROOT = join(import.meta.dirname, "..");
const CAPACITY_OUTPUTS = [
  "capacity-baseline",
  "capacity-candidate",
  "capacity-change",
  "capacity-verdict",
];

test("every action setting is an action.yml input, with the table's default, and is in the README", () => {
  const action = parse(readFileSync(join(ROOT, "action.yml"), "utf8")) as {
    inputs: Record<string, { description: string }>;
    runs: { using: string };
  };
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  assert.deepEqual(Object.keys(action.inputs).sort(), [...ACTION_INPUTS].sort());
  for (const s of SETTINGS.filter((x) => x.scope !== "endpoint")) {
    assert.ok(readme.includes(`\`${s.name}\``), `README lacks ${s.name}`);
    const input = action.inputs[s.name];
    if (input && "default" in s) {
      assert.ok(
        input.description.includes(`Default ${s.default}.`),
        `action.yml: ${s.name}'s description should say "Default ${s.default}."`,
      );
    }
  }
  assert.equal(action.runs.using, "node24");
});

test("the measure command's flags are documented in the README", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  for (const s of settingsIn("endpoint", "trial")) {
    assert.ok(readme.includes(`\`--${s.name}`), `README lacks --${s.name}`);
  }
});

test("the sweep command's own flags are documented in the README", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  for (const s of settingsIn("sweep")) {
    assert.ok(readme.includes(`\`--${s.name}\``), `README lacks --${s.name}`);
  }
});

test("every output the action sets is declared in action.yml", async () => {
  const { publish } = await import("../src/github/publish.ts");
  const { gate } = await import("./helpers/gate.ts");
  const { fakeReport } = await import("./helpers/reports.ts");
  const action = parse(readFileSync(join(ROOT, "action.yml"), "utf8")) as {
    outputs: Record<string, unknown>;
  };
  const { results } = await gate(
    {
      "baseline-url": "http://127.0.0.1:8001/v1",
      "candidate-url": "http://127.0.0.1:8002/v1",
      model: "m",
      rate: "10",
      "quality-suite": "none",
      "max-tpot-regression": "10%",
      "max-e2el-regression": "10%",
    },
    { measureTrial: async () => fakeReport({ ttftMs: 100, itlMs: 10 }) },
  );
  // Set only when a comment is posted, only by a capacity gate, or only by mode burst.
  const { BURST_OUTPUTS } = await import("../src/burst-action.ts");
  const set = new Set<string>(["comment-url", ...CAPACITY_OUTPUTS, ...BURST_OUTPUTS]);
  const io = {
    setOutput: (name: string) => set.add(name),
    info: () => {},
    warning: () => {},
    error: () => {},
    writeSummary: async () => {},
  };
  const settings = { comment: "never" as const, commentKey: "default", jobSummary: false };
  await publish(
    results,
    settings,
    "r.json",
    { env: {}, eventPayload: {}, api: undefined },
    io,
    false,
  );
  assert.deepEqual([...set].sort(), Object.keys(action.outputs).sort());

  // A capacity gate sets its four, even when a capacity is unknown.
  const capacitySet = new Set<string>();
  const comparison = {
    baseline_per_s: 60.2,
    candidate_per_s: null,
    change: null,
    change_low: null,
    change_high: null,
    max_drop: 0.05,
    verdict: "inconclusive" as const,
    reason: "the candidate's capacity is unknown",
  };
  const withCapacity = {
    ...results,
    capacity: { comparison } as unknown as NonNullable<typeof results.capacity>,
  };
  await publish(
    withCapacity,
    settings,
    "r.json",
    { env: {}, eventPayload: {}, api: undefined },
    { ...io, setOutput: (name: string, value: string) => capacitySet.add(`${name}=${value}`) },
    false,
  );
  for (const [name, value] of [
    ["capacity-baseline", "60.2"],
    ["capacity-candidate", ""],
    ["capacity-change", ""],
    ["capacity-verdict", "inconclusive"],
  ]) {
    assert.ok(capacitySet.has(`${name}=${value}`), `${name}=${value}`);
  }
});

test("the README's workflows: a same-repository guard on the GPU runner, and the fork recipe's names match", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map(
    (m) => parse(m[1] as string) as Record<string, unknown>,
  );
  const onSelfHosted = blocks.find((b) => JSON.stringify(b).includes("self-hosted")) as {
    jobs: Record<string, { if?: string }>;
  };
  assert.match(
    Object.values(onSelfHosted.jobs)[0]?.if ?? "",
    /github\.event\.pull_request\.head\.repo\.full_name == github\.repository/,
  );
  const measure = blocks.find((b) => b.on === "pull_request" && JSON.stringify(b).includes("mode"));
  const report = blocks.find((b) => String(JSON.stringify(b.on)).includes("workflow_run")) as {
    on: { workflow_run: { workflows: string[] } };
  };
  assert.ok(measure?.name, "the measure workflow has a name");
  assert.deepEqual(report.on.workflow_run.workflows, [measure?.name]);
});
