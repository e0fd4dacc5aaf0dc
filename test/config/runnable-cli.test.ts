// A plan that cannot run, refused by the CLI as a bad setting (exit 2) before
// any request, with an `error` results file that says why (issue 50, item 2).

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { GateResults } from "../../src/results/model.ts";
import { CLI, runCliProcess } from "../helpers/cli.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

test(
  "the CLI refuses a plan that cannot run as a bad setting (exit 2), before any request",
  LOAD_TEST,
  async () => {
    const resultsPath = join(mkdtempSync(join(tmpdir(), "lpg-runnable-")), "results.json");
    // The URLs lead nowhere: a plan that got as far as a request would fail differently.
    const r = await runCliProcess(
      [
        "gate",
        "--model=m",
        "--baseline-url=http://127.0.0.1:9/v1",
        "--candidate-url=http://127.0.0.1:9/v1",
        "--rate=2",
        "--duration=4s",
        "--arrival=constant",
        "--comment=never",
        `--results-path=${resultsPath}`,
      ],
      60_000,
      [],
      process.env,
      CLI,
    );
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /the plan cannot run: every trial's 4 s window schedules 8 requests/);
    assert.doesNotMatch(r.stderr, /preflight|ECONNREFUSED/);
    const results = JSON.parse(readFileSync(resultsPath, "utf8")) as GateResults;
    assert.equal(results.verdict, "error");
    assert.equal(results.trials.length, 0);
    assert.match(results.headline, /the plan cannot run/);
  },
);
