// The one-way data flow of DESIGN.md, kept so: each folder of src/ imports
// only the folders listed for it here (config → workload → load → metrics →
// compare → report → github, with the orchestrator and the entry points
// above them), the list has no cycle, and only the entry points at src/'s
// root read the configuration.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";

const SRC = join(import.meta.dirname, "../src");

/** What each folder may import; "." is src/'s root (main, cli, pipeline, demo). */
const ALLOWED: Record<string, string[]> = {
  common: [],
  openai: ["common"],
  servermetrics: ["common"],
  lanes: ["common", "openai", "load"],
  workload: ["common", "openai"],
  load: ["common", "openai", "workload"],
  metrics: ["common", "openai", "workload", "load"],
  trial: ["common", "openai", "workload", "load", "metrics", "servermetrics"],
  compare: ["common", "workload", "load", "metrics", "trial"],
  capacity: ["common", "workload", "load", "metrics", "trial", "servers"],
  quality: ["common", "openai"],
  servers: ["common", "openai", "load", "servermetrics"],
  report: [
    "common",
    "workload",
    "load",
    "metrics",
    "trial",
    "compare",
    "capacity",
    "quality",
    "servers",
    "servermetrics",
    "lanes",
  ],
  github: ["common", "compare", "report"],
  mock: ["common", "openai", "workload"],
  gate: [
    "common",
    "openai",
    "load",
    "trial",
    "compare",
    "capacity",
    "quality",
    "servers",
    "servermetrics",
    "report",
  ],
  // The configuration reads every stage's options; the entry points use everything.
  config: [],
  ".": [],
};

const STAGES = Object.keys(ALLOWED).filter((f) => f !== "config" && f !== "." && f !== "mock");
ALLOWED.config = STAGES;
ALLOWED["."] = [...STAGES, "mock", "config"];

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

function imports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specs = [...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"/gms)].map(
    (m) => m[1] as string,
  );
  return specs.filter((s) => s.startsWith(".")).map((s) => resolve(dirname(file), s));
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
    for (const target of imports(file)) {
      if (!target.startsWith(SRC)) continue; // package.json, schemas/
      const to = folderOf(target);
      if (to !== from && !allowed.includes(to))
        violations.push(`src/${relative(SRC, file)} imports src/${relative(SRC, target)}`);
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

test("only the entry points read the configuration", () => {
  const readers = Object.entries(ALLOWED)
    .filter(([, deps]) => deps.includes("config"))
    .map(([folder]) => folder);
  assert.deepEqual(readers, ["."]);
});
