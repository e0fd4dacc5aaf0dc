// A run whose event loop is blocked (a catastrophic regex, a parse that never
// yields) cannot end itself: the watchdog's worker writes the results file —
// error, naming the bound and the run's last log line — and kills it.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { LOAD_TEST } from "../helpers/mock.ts";

const WATCHDOG = join(import.meta.dirname, "../../src/commands/watchdog.ts");

function runChild(
  code: string,
): Promise<{ exitCode: number | null; signal: string | null; stderr: string; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, ["--input-type=module", "-e", code], { stdio: "pipe" });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += String(d);
  });
  return new Promise((resolve) =>
    child.on("close", (exitCode, signal) =>
      resolve({ exitCode, signal, stderr, ms: performance.now() - started }),
    ),
  );
}

test(
  "a blocked event loop: the results file says error and why, and the process ends",
  LOAD_TEST,
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "lpg-watchdog-"));
    const path = join(dir, "results.json");
    const { signal, stderr, ms } = await runChild(`
    import { writeFileSync } from "node:fs";
    import { startWatchdog, PLACEHOLDER } from ${JSON.stringify(WATCHDOG)};
    const path = ${JSON.stringify(path)};
    writeFileSync(path, '{"verdict": "error", "headline": "unfinished"}');
    const dog = startWatchdog({ boundMs: 1000, resultsPath: path, template: JSON.stringify({ verdict: "error", headline: PLACEHOLDER }) });
    dog.phase('quality: case "regex" check "pattern"');
    setTimeout(() => { for (;;); }, 300);
  `);
    assert.equal(signal, "SIGKILL", stderr);
    const results = JSON.parse(readFileSync(path, "utf8"));
    assert.equal(results.verdict, "error");
    assert.match(
      results.headline,
      /^the event loop was blocked for more than 1 s \(the run's last log line: quality: case "regex" check "pattern"\): the watchdog stopped the run$/,
    );
    assert.match(stderr, /error: the event loop was blocked/);
    // Generous: the bound is 1 s; a busy machine may delay the worker's checks.
    assert.ok(ms < 60_000, `${ms} ms`);
  },
);

test("a run that ends normally: the watchdog stops and never writes", LOAD_TEST, async () => {
  const dir = mkdtempSync(join(tmpdir(), "lpg-watchdog-"));
  const path = join(dir, "results.json");
  const { exitCode, signal, stderr } = await runChild(`
    import { writeFileSync } from "node:fs";
    import { startWatchdog, PLACEHOLDER } from ${JSON.stringify(WATCHDOG)};
    const path = ${JSON.stringify(path)};
    writeFileSync(path, '{"verdict": "pass"}');
    const dog = startWatchdog({ boundMs: 1000, resultsPath: path, template: PLACEHOLDER });
    await new Promise((r) => setTimeout(r, 1500));
    await dog.stop();
  `);
  assert.deepEqual([exitCode, signal], [0, null], stderr);
  assert.equal(readFileSync(path, "utf8"), '{"verdict": "pass"}');
});
