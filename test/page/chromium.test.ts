// The page in a real headless Chromium: a results file whose texts carry
// markup, drawn by `report`, logs nothing, loads nothing, runs nothing, and
// shows its texts as text and every chart with its numbers.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { gzipSync } from "node:zlib";
import { runCli } from "../../src/cli.ts";
import { readInputFile } from "../../src/common/files.ts";
import { writeOutputFile } from "../../src/common/outputs.ts";
import { sampleRequests } from "../../src/requests/sample.ts";
import { openInChromium } from "../helpers/chromium.ts";
import { fakeGateResults } from "../helpers/gate.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

const SCRIPT = "<script>window.__pwned=1</script>";
const IMAGE = '<img src="http://127.0.0.1:9/x.png" onerror="window.__pwned=1">';

/** A gate's results with markup in every text a reader sees. */
async function hostileResults(dir: string): Promise<string> {
  const steady = [1, 1.02, 0.99].map((k) => ({ ttftMs: 100 * k, itlMs: 10 * k }));
  const slower = [1.3, 1.32, 1.29].map((k) => ({ ttftMs: 100 * k, itlMs: 10 * k }));
  const r = await fakeGateResults(steady, slower);
  const config = r.config;
  assert.ok(config);
  config.baseline.model = `model ${SCRIPT}`;
  config.candidate.model = `model ${IMAGE}`;
  r.warnings.push(`warned ${SCRIPT} ${IMAGE} ![x](http://127.0.0.1:9/y.png)`);
  r.requests_file = {
    schema: "llm-perf-gate/requests@1",
    path: "/elsewhere/hostile.requests.jsonl.gz",
    format: "jsonl",
    gzip: true,
    lines: 4,
    dropped: 0,
    error: null,
  };
  const lines = ["baseline", "candidate", "baseline", "candidate"].map((arm, i) =>
    JSON.stringify({
      arm,
      pair: 1 + Math.floor(i / 2),
      attempt: 0,
      outcome: "ok",
      ttft_ms: 100 + i,
      prompt_tokens_intended: 128,
      error: SCRIPT,
    }),
  );
  writeFileSync(join(dir, "hostile.requests.jsonl.gz"), gzipSync(lines.join("\n")));
  const path = join(dir, "hostile.json");
  writeFileSync(path, JSON.stringify(r));
  return path;
}

test(
  "a hostile results file's page in Chromium: no console error, no request, no script; its texts shown as text, every chart with its numbers",
  LOAD_TEST,
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "lpg-chromium-"));
    const results = await hostileResults(dir);
    const out = join(dir, "report.html");
    let stderr = "";
    const code = await runCli(["report", results, "--html", out], {
      stdout: () => {},
      stderr: (t) => {
        stderr += t;
      },
      env: {},
      readFile: readInputFile,
      writeFile: writeOutputFile,
    });
    assert.equal(code, 0, stderr);
    assert.match(
      stderr,
      /report written to .*report\.html \(requests from .*hostile\.requests\.jsonl\.gz\)/,
    );
    assert.doesNotMatch(readFileSync(out, "utf8"), /<script|<img/i);
    const page = await openInChromium(out);
    assert.deepEqual(page.problems, []);
    assert.deepEqual(page.requests, [`file://${out}`]);
    assert.equal(page.pwned, false);
    assert.ok(page.text.includes(`model ${SCRIPT}`), "the model's name, as text");
    assert.ok(page.text.includes(`warned ${SCRIPT} <img src="http:`), "the warning, as text");
    const ids = page.figures.map((f) => f.id);
    assert.deepEqual(ids, [
      "forest-goodput",
      "forest-ttft",
      "forest-itl",
      "latency-ttft",
      "latency-itl",
      "latency-e2el",
      "scatter",
    ]);
    for (const f of page.figures) {
      assert.equal(f.svgs, 1, `${f.id}: one chart`);
      assert.ok(f.svgText.length > 20, `${f.id}: the chart's axes and legend are text`);
      assert.ok(f.tableText.length > 20, `${f.id}: its numbers beside it`);
    }
    assert.match(page.figures[1]?.svgText ?? "", /p95 TTFT: change/);
    assert.match(page.figures[1]?.tableText ?? "", /pair 1\s*\+3\d\.\d %/);
  },
);

test(
  "a FIFO as the requests file: refused by name at once, the page still written",
  LOAD_TEST,
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "lpg-fifo-"));
    const fifo = join(dir, "r.requests.jsonl");
    assert.equal(spawnSync("mkfifo", [fifo]).status, 0, "mkfifo is there");
    const s = await sampleRequests(fifo);
    assert.match(s.stopped ?? "", /could not be read: it is not a regular file/);
    const results = await hostileResults(dir);
    const out = join(dir, "report.html");
    const err: string[] = [];
    const code = await runCli(["report", results, "--html", out, "--requests-file", fifo], {
      stdout: () => {},
      stderr: (t) => err.push(t),
      env: {},
      readFile: readInputFile,
      writeFile: writeOutputFile,
    });
    assert.equal(code, 0);
    assert.match(
      readFileSync(out, "utf8"),
      /r\.requests\.jsonl: the file could not be read: it is not a regular file/,
    );
    // Said on stderr too, not only inside the page.
    assert.match(
      err.join(""),
      /the requests file ".*r\.requests\.jsonl" was read in part \(.*not a regular file\)/,
    );
  },
);

test(
  "a page that cannot be written (a full disk) names --html and the path",
  LOAD_TEST,
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "lpg-full-"));
    const results = await hostileResults(dir);
    const err: string[] = [];
    const code = await runCli(["report", results, "--html", "/dev/full"], {
      stdout: () => {},
      stderr: (t) => err.push(t),
      env: {},
      readFile: readInputFile,
      writeFile: writeOutputFile,
    });
    assert.equal(code, 1);
    assert.match(err.join(""), /^llm-perf-gate: --html "\/dev\/full" could not be written: ENOSPC/);
  },
);
