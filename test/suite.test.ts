// The house rules a reviewer would otherwise check by hand: every test file
// that drives load carries a node:test timeout (a hang fails its test, not the
// whole CI run), no file under src/ is over 400 lines, and `as` casts stay
// rare (under 100 in src/: a cast is a claim the compiler cannot check).

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { isLoadTest, testFiles } from "../scripts/unit-tests.ts";

const ROOT = join(import.meta.dirname, "..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : e.name.endsWith(".ts")
        ? [join(dir, e.name)]
        : [],
  );
}

test("every test that drives load has a node:test timeout", () => {
  const missing: string[] = [];
  for (const file of testFiles().filter(isLoadTest)) {
    const text = readFileSync(file, "utf8");
    const calls = [...text.matchAll(/\b(test|describe)\(\s*("|`|')/g)].length;
    const timed = [...text.matchAll(/\b(test|describe)\([\s\S]*?,\s*(SLOW_)?LOAD_TEST,/g)].length;
    if (timed < calls)
      missing.push(`${relative(ROOT, file)}: ${calls - timed} of ${calls} without`);
  }
  assert.deepEqual(missing, []);
});

test("no file under src/ is over 400 lines", () => {
  const long = sourceFiles(join(ROOT, "src"))
    .map((f) => [relative(ROOT, f), readFileSync(f, "utf8").split("\n").length] as const)
    .filter(([, lines]) => lines > 400);
  assert.deepEqual(long, []);
});

test("`as` casts in src/ stay under 100", () => {
  let casts = 0;
  for (const f of sourceFiles(join(ROOT, "src"))) {
    const code = readFileSync(f, "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/\/\/.*$/gm, "")
      .replace(/"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g, '""');
    casts += [...code.matchAll(/\bas (?!const\b)[A-Za-z_{[(]/g)].length;
  }
  assert.ok(casts < 100, `${casts} casts`);
});
