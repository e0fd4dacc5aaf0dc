// Secrets never leave the process: not through a server that echoes the key,
// not through a start command's log, not through a comment. And the results
// file of a run that could not start is still written, before any request.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { planRun } from "../src/commands/gate/plan.ts";
import { runGateCommand } from "../src/commands/gate/run.ts";
import { DEFAULT_PROFILE } from "../src/mock/profile.ts";
import { mergeProfile } from "../src/mock/profile-merge.ts";
import { startMockServer } from "../src/mock/server.ts";
import { renderMarkdown } from "../src/report/markdown.ts";
import { PreflightError } from "../src/servers/preflight.ts";
import { NO_CHECKS } from "./helpers/gate.ts";
import { LOAD_TEST } from "./helpers/mock.ts";

const CLI = join(import.meta.dirname, "../src/cli.ts");
const KEY = "sk-live-0123456789abcdef";

/** A gate's plan against a port nothing answers on, with the given settings on top. */
const planOf = (extra: Record<string, string | string[]>) =>
  planRun(
    {
      "baseline-url": "http://127.0.0.1:9/v1",
      "candidate-url": "http://127.0.0.1:9/v1",
      model: "m",
      rate: "5",
      ...extra,
    },
    (p) => readFileSync(p, "utf8"),
  );

test(
  "a server that echoes the API key in its 401: the key is in no output, report or file",
  LOAD_TEST,
  async () => {
    const server = await startMockServer({
      profile: mergeProfile(DEFAULT_PROFILE, { apiKey: "sk-the-right-one" }, "test"),
    });
    try {
      const dir = mkdtempSync(join(tmpdir(), "lpg-secret-"));
      const out = join(dir, "report.json");
      // Not spawnSync: the mock lives in this process and must go on answering.
      const child = spawn(
        process.execPath,
        [
          CLI,
          "measure",
          `--url=${server.url}/v1`,
          "--model=mock-llm",
          "--rate=20",
          "--duration=0.3s",
          "--warmup=0s",
          `--out=${out}`,
          `--requests-path=${join(dir, "requests.csv")}`,
        ],
        { env: { ...process.env, OPENAI_API_KEY: KEY }, stdio: ["ignore", "pipe", "pipe"] },
      );
      const r = { stdout: "", stderr: "" };
      child.stdout.on("data", (d: Buffer) => {
        r.stdout += d;
      });
      child.stderr.on("data", (d: Buffer) => {
        r.stderr += d;
      });
      const status = await new Promise<number | null>((resolve) => child.once("close", resolve));
      assert.equal(status, 4, r.stderr);
      const report = readFileSync(out, "utf8");
      assert.match(
        report,
        /Incorrect API key provided: \*\*\*/,
        "the echo is kept, the key is not",
      );
      const requests = readFileSync(join(dir, "requests.csv"), "utf8");
      assert.match(
        requests,
        /Incorrect API key provided: \*\*\*/,
        "each request's error, redacted",
      );
      assert.match(r.stderr, /requests written to .*requests\.csv: \d+ lines/);
      for (const text of [r.stdout, r.stderr, report, requests])
        assert.doesNotMatch(text, new RegExp(KEY));
    } finally {
      await server.close();
    }
  },
);

test(
  "a start command that prints the key: redacted from the guards, the results, the comment",
  LOAD_TEST,
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "lpg-secret-log-"));
    const resultsPath = join(dir, "r.json");
    const plan = planOf({
      "quality-suite": "none",
      accuracy: "none",
      contract: "none",
      "api-key": KEY,
      header: [`X-Api-Key: ${KEY}-header`],
      "baseline-start": `echo "loading with key ${KEY} and ${KEY}-header"; exit 3`,
      "ready-timeout": "5s",
      "server-log-dir": dir,
      "results-path": resultsPath,
    });
    const lines: string[] = [];
    const results = await runGateCommand(plan, {
      env: {},
      readFile: (p) => readFileSync(p, "utf8"),
      writeFile: (p, t) => writeFileSync(p, t),
      log: (l) => lines.push(l),
    });
    assert.equal(results.verdict, "error");
    assert.match(results.guards[0]?.detail ?? "", /loading with key \*\*\* and \*\*\*/);
    const file = readFileSync(resultsPath, "utf8");
    const comment = renderMarkdown(results, "default");
    for (const text of [file, comment, lines.join("\n")])
      assert.doesNotMatch(text, new RegExp(KEY));
  },
);

test("an unwritable results path is found before any request, named", LOAD_TEST, async () => {
  const plan = planOf({
    "results-path": "/nonexistent-dir/r.json",
  });
  const results = await runGateCommand(plan, {
    env: {},
    readFile: (p) => readFileSync(p, "utf8"),
    writeFile: (p, t) => writeFileSync(p, t),
    log: () => {},
    measureTrial: async () => {
      throw new Error("no request may be sent");
    },
  });
  assert.equal(results.verdict, "error");
  assert.match(
    results.headline,
    /results-path = "\/nonexistent-dir\/r\.json" cannot be written: ENOENT/,
  );
});

test(
  "while the run goes on, the results file already says `error` (unfinished): a crash or a kill leaves no empty file",
  LOAD_TEST,
  async () => {
    const written = new Map<string, string>();
    const plan = planOf({
      "quality-suite": "none",
      accuracy: "none",
      contract: "none",
      "results-path": "/out/r.json",
      "requests-path": "none",
    });
    let during: { verdict?: string; headline?: string } = {};
    const results = await runGateCommand(plan, {
      env: {},
      readFile: (p) => readFileSync(p, "utf8"),
      writeFile: (p, t) => written.set(p, t),
      log: () => {},
      checks: {
        ...NO_CHECKS,
        preflight: async (arm) => {
          // As a process killed here would leave it.
          during = JSON.parse(written.get("/out/r.json") ?? "{}");
          throw new PreflightError(arm, "the server went away");
        },
      },
    });
    assert.equal(during.verdict, "error");
    assert.match(during.headline ?? "", /the run did not finish/);
    assert.notEqual(results.headline, during.headline, "replaced at the end");
    assert.equal(JSON.parse(written.get("/out/r.json") ?? "{}").headline, results.headline);
  },
);
