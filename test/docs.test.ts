// The documentation is what the code says: action.yml and docs/inputs.md are
// generated from the settings table (and say so), every link in the README
// and docs/ resolves inside the repository, the README stays short, and the
// workflows it shows are safe.

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { actionYml, inputsMarkdown } from "../scripts/docs.ts";
import { ACTION_OUTPUTS } from "../src/github/outputs.ts";

const ROOT = join(import.meta.dirname, "..");
const CAPACITY_OUTPUTS = [
  "capacity-baseline",
  "capacity-candidate",
  "capacity-change",
  "capacity-verdict",
];
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
/** The docs' pages (docs/recipes holds files a user copies, linked from a page). */
const PAGES = readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md"));
const DOCS = ["README.md", "CHANGELOG.md", "bench/README.md", ...PAGES.map((f) => `docs/${f}`)];

test("action.yml and docs/inputs.md are what the settings table generates (npm run docs)", () => {
  assert.equal(read("action.yml"), actionYml(), "action.yml is stale: run npm run docs");
  assert.equal(
    read("docs/inputs.md"),
    inputsMarkdown(),
    "docs/inputs.md is stale: run npm run docs",
  );
  const action = parse(read("action.yml")) as { runs: { using: string } };
  assert.equal(action.runs.using, "node24");
});

test("every link in the README and docs/ resolves inside the repository", () => {
  const broken: string[] = [];
  for (const doc of DOCS) {
    const text = read(doc).replace(/```[\s\S]*?```/g, "");
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = (m[1] as string).split("#")[0] as string;
      if (/^[a-z]+:/i.test(m[1] as string)) broken.push(`${doc}: ${m[1]} leaves the repository`);
      else if (target !== "" && !existsSync(resolve(ROOT, dirname(doc), target)))
        broken.push(`${doc}: ${m[1]} does not exist`);
    }
  }
  assert.deepEqual(broken, []);
});

test("the README is read in five minutes: under 250 lines, every docs page linked", () => {
  const readme = read("README.md");
  assert.ok(readme.split("\n").length < 250, `README has ${readme.split("\n").length} lines`);
  for (const page of PAGES)
    assert.ok(readme.includes(`(docs/${page})`), `README does not link docs/${page}`);
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
      accuracy: "none",
      contract: "none",
      "max-tpot-regression": "10%",
      "max-e2el-regression": "10%",
    },
    { measureTrial: async () => fakeReport({ ttftMs: 100, itlMs: 10 }) },
  );
  // Set only when a comment is posted, only by a capacity gate, only by mode burst, only
  // when a requests file was written (the stand-in gate opens none), or by the action once
  // its page is written (test/commands/action.test.ts).
  const { BURST_OUTPUTS } = await import("../src/commands/lanes/burst-action.ts");
  const set = new Set<string>([
    "comment-url",
    "requests-path",
    "report-html",
    ...CAPACITY_OUTPUTS,
    ...BURST_OUTPUTS,
  ]);
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
    { comment: "", summary: "" },
  );
  assert.deepEqual([...set].sort(), Object.keys(action.outputs).sort());
  assert.deepEqual(
    Object.keys(action.outputs),
    ACTION_OUTPUTS.map(([name]) => name),
  );

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
    { comment: "", summary: "" },
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

test("the docs' workflows: a same-repository guard on the GPU runner, and the fork recipe's names match", () => {
  const readme = DOCS.map(read).join("\n");
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
