// `npm run test:unit`: the tests that start no server and no process — the
// pure ones, in seconds. A test file is a load test when it imports a module
// that starts a server, a process or real requests (below); those carry a
// node:test timeout (test/suite.test.ts checks it).

import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dirname, "..");

/** Modules whose values start servers, processes or real requests: a test importing one drives load. */
const LOAD_MODULES = [
  "node:child_process",
  "node:net",
  "node:http",
  "mock/server.ts",
  "commands/demo.ts",
  "commands/gate/run.ts",
  "helpers/cli.ts",
  "helpers/client.ts",
  "trial/measure.ts",
  "load/run.ts",
  "load/waker.ts",
  "servers/lifecycle.ts",
  "servers/preflight.ts",
  "quality/run.ts",
  "lanes/burst.ts",
  "bench/fast-server",
  "helpers/chromium.ts",
  "helpers/surge.ts",
  "helpers/scaling.ts",
  "replicas/read.ts",
  "src/cli.ts",
  "src/main.ts",
];

/** A value import (not `import type`) of one of the load modules. */
export function isLoadTest(file: string): boolean {
  const text = readFileSync(file, "utf8");
  for (const m of text.matchAll(/^import\s+(?!type\b)[^;]*?from\s+"([^"]+)"/gms)) {
    const spec = m[1] as string;
    if (LOAD_MODULES.some((mod) => spec === mod || spec.endsWith(`/${mod}`) || spec.endsWith(mod)))
      return true;
  }
  return false;
}

export function testFiles(dir = join(ROOT, "test")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? testFiles(join(dir, e.name))
      : e.name.endsWith(".test.ts")
        ? [join(dir, e.name)]
        : [],
  );
}

if (import.meta.main) {
  const unit = testFiles()
    .filter((f) => !isLoadTest(f))
    .map((f) => relative(ROOT, f));
  const r = spawnSync(process.execPath, ["--test", "--test-concurrency=2", ...unit], {
    cwd: ROOT,
    stdio: "inherit",
  });
  process.exit(r.status ?? 1);
}
