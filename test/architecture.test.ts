// The house's map, kept so: entry points (src/cli.ts, src/main.ts) →
// commands → the orchestrator (gate) → stages, one way (each folder imports
// only the folders listed for it here, and the list has no cycle); the
// renderers (report) and the publisher (github) are leaves that import only
// types from below (values from common alone); only the commands and the
// entry points read the configuration.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";

const SRC = join(import.meta.dirname, "../src");

/** What each folder may import; "." is src/'s root (the entry points). */
const ALLOWED: Record<string, string[]> = {
  common: [],
  openai: ["common"],
  servermetrics: ["common"],
  replicas: ["common", "servermetrics"],
  workload: ["common", "openai"],
  load: ["common", "openai", "workload"],
  metrics: ["common", "openai", "workload", "load"],
  requests: ["common", "workload", "load", "metrics"],
  trial: [
    "common",
    "openai",
    "workload",
    "load",
    "metrics",
    "servermetrics",
    "replicas",
    "requests",
  ],
  lanes: ["common", "openai", "load"],
  quality: ["common", "openai"],
  accuracy: ["common", "openai", "workload"],
  contract: ["common", "openai", "servermetrics"],
  servers: ["common", "openai", "load", "servermetrics"],
  judge: ["common", "openai", "workload", "accuracy"],
  mock: ["common", "openai", "workload", "accuracy", "judge"],
  capacity: ["common", "workload", "load", "metrics", "trial", "servers"],
  compare: ["common", "workload", "load", "metrics", "trial"],
  stress: ["common", "openai", "workload", "load", "metrics", "compare"],
  gate: [
    "common",
    "openai",
    "load",
    "requests",
    "trial",
    "compare",
    "capacity",
    "quality",
    "contract",
    "accuracy",
    "judge",
    "servers",
    "servermetrics",
    "replicas",
    "stress",
  ],
  shard: [
    "common",
    "openai",
    "load",
    "metrics",
    "replicas",
    "trial",
    "compare",
    "quality",
    "contract",
    "servers",
    "gate",
  ],
  results: [
    "common",
    "workload",
    "load",
    "metrics",
    "requests",
    "trial",
    "compare",
    "capacity",
    "quality",
    "contract",
    "accuracy",
    "judge",
    "servers",
    "servermetrics",
    "replicas",
    "stress",
    "gate",
    "shard",
  ],
  config: [],
  report: [],
  page: [],
  github: [],
  commands: [],
  ".": ["common", "config", "commands", "github"],
};

const STAGES = Object.keys(ALLOWED).filter(
  (f) => !["config", "report", "page", "github", "commands", "."].includes(f),
);
// The configuration builds every stage's options.
ALLOWED.config = STAGES.filter((f) => f !== "results" && f !== "mock");
// Renderers and the publisher see everything below them, as types.
ALLOWED.report = [...STAGES, "lanes"];
ALLOWED.github = [...STAGES];
// The page draws what the comment says: it renders the comment's sections, and reads the histograms.
ALLOWED.page = [...STAGES, "lanes", "report"];
ALLOWED.commands = [...STAGES, "config", "report", "page", "github"];

/** Folders whose imports from other folders (but common) must be `import type`. */
const LEAVES = ["report", "github"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : e.name.endsWith(".ts")
        ? [join(dir, e.name)]
        : [],
  );
}

const folderOf = (file: string) => {
  const rel = relative(SRC, file);
  return rel.includes("/") ? (rel.split("/")[0] as string) : ".";
};

function imports(file: string): { target: string; typeOnly: boolean }[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^\s*(import|export)(\s+type)?\s[^;]*?from\s+"([^"]+)"/gms)]
    .filter((m) => (m[3] as string).startsWith("."))
    .map((m) => ({
      target: resolve(dirname(file), m[3] as string),
      typeOnly: m[2] !== undefined,
    }));
}

test("each folder imports only the folders it may (one-way data flow)", () => {
  const violations: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    const allowed = ALLOWED[from];
    assert.ok(
      allowed,
      `src/${relative(SRC, file)}: folder "${from}" is not in the architecture map`,
    );
    for (const { target } of imports(file)) {
      if (!target.startsWith(SRC)) continue; // package.json, schemas/
      const to = folderOf(target);
      if (to !== from && !allowed.includes(to))
        violations.push(`src/${relative(SRC, file)} imports src/${relative(SRC, target)}`);
    }
  }
  assert.deepEqual(violations, []);
});

test("renderers and the publisher are leaves: from below they import types only (values from common)", () => {
  const violations: string[] = [];
  for (const file of sourceFiles(SRC).filter((f) => LEAVES.includes(folderOf(f)))) {
    for (const { target, typeOnly } of imports(file)) {
      if (!target.startsWith(SRC) || typeOnly) continue;
      const to = folderOf(target);
      if (to !== folderOf(file) && to !== "common")
        violations.push(
          `src/${relative(SRC, file)} imports values from src/${relative(SRC, target)}`,
        );
    }
  }
  assert.deepEqual(violations, []);
});

test("the page takes values only from common, the histograms, the rule's terms and the comment's renderers", () => {
  const VALUES_FROM = ["page", "common", "metrics", "compare", "report"];
  const violations: string[] = [];
  for (const file of sourceFiles(SRC).filter((f) => folderOf(f) === "page")) {
    for (const { target, typeOnly } of imports(file)) {
      if (!target.startsWith(SRC) || typeOnly) continue;
      if (!VALUES_FROM.includes(folderOf(target)))
        violations.push(
          `src/${relative(SRC, file)} imports values from src/${relative(SRC, target)}`,
        );
    }
  }
  assert.deepEqual(violations, []);
});

test("the map itself has no cycle", () => {
  const state = new Map<string, "visiting" | "done">();
  const visit = (folder: string, path: string[]) => {
    if (state.get(folder) === "done") return;
    assert.notEqual(state.get(folder), "visiting", `cycle: ${[...path, folder].join(" → ")}`);
    state.set(folder, "visiting");
    for (const next of ALLOWED[folder] ?? []) visit(next, [...path, folder]);
    state.set(folder, "done");
  };
  for (const folder of Object.keys(ALLOWED)) visit(folder, []);
});

test("only the commands and the entry points read the configuration", () => {
  const readers = Object.entries(ALLOWED)
    .filter(([, deps]) => deps.includes("config"))
    .map(([folder]) => folder)
    .sort();
  assert.deepEqual(readers, [".", "commands"]);
});
