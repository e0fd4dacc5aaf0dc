// The bundled CLI splits a trial over worker threads: dist/trial-worker.js is
// found beside dist/cli.js, and the report says how many workers ran it.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { startMockServer } from "../../src/mock/server.ts";
import { runCliProcess } from "../helpers/cli.ts";
import { LOAD_TEST, quickProfile } from "../helpers/mock.ts";

const BUNDLED_CLI = join(import.meta.dirname, "../../dist/cli.js");

test(
  "the bundled CLI measures with two workers, each from dist/trial-worker.js",
  LOAD_TEST,
  async () => {
    const mock = await startMockServer({ profile: quickProfile() });
    const dir = mkdtempSync(join(tmpdir(), "lpg-workers-"));
    try {
      const out = join(dir, "report.json");
      const args = ["measure", "--url", `${mock.url}/v1`, "--model", "mock-llm", "--rate", "40"];
      const more = ["--duration", "1s", "--warmup", "0.2s", "--output-len", "8", "--workers", "2"];
      const run = await runCliProcess(
        [...args, ...more, "--metrics-url", "none", "--out", out],
        120_000,
        [],
        process.env,
        BUNDLED_CLI,
      );
      assert.ok(run.code === 0 || run.code === 3, `exit ${run.code}: ${run.stderr}`);
      const report = JSON.parse(readFileSync(out, "utf8"));
      assert.equal(report.validity.workers, 2);
      assert.equal(report.outcomes.ok, report.scheduled);
      assert.ok(report.scheduled > 0);
      assert.match(run.stdout, /the busiest of 2 workers/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await mock.close();
    }
  },
);
