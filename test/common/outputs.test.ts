// Output files are replaced whole once a run has something to put there, never
// truncated before: a refusal leaves a good report from an earlier run where
// it was, and a write that fails leaves neither a half file nor a temporary one.

import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "../../src/cli.ts";
import { readInputFile } from "../../src/common/files.ts";
import { checkWritable, writeOutputFile } from "../../src/common/outputs.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

const GOOD = '{"a good report": "from an earlier run"}\n';

function io(stderr: string[]) {
  return {
    stdout: () => {},
    stderr: (t: string) => {
      stderr.push(t);
    },
    env: {},
    readFile: readInputFile,
    writeFile: writeOutputFile,
  };
}

test(
  "lanes-report and measure refusing their input leave an earlier --out and --csv as they were",
  LOAD_TEST,
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "lpg-out-"));
    const [out, csv] = [join(dir, "report.json"), join(dir, "report.csv")];
    writeFileSync(out, GOOD);
    writeFileSync(csv, "lane,outcome\n");
    const corrupt = join(dir, "history.jsonl");
    writeFileSync(corrupt, "not json\n");
    for (const history of [join(dir, "missing.jsonl"), corrupt, "/dev/zero"]) {
      const stderr: string[] = [];
      const code = await runCli(
        ["lanes-report", "--history", history, "--out", out, "--csv", csv],
        io(stderr),
      );
      assert.notEqual(code, 0, stderr.join(""));
      assert.equal(readFileSync(out, "utf8"), GOOD, `--out after ${history}`);
      assert.equal(readFileSync(csv, "utf8"), "lane,outcome\n", `--csv after ${history}`);
    }
    const stderr: string[] = [];
    const code = await runCli(
      ["measure", "--url", "http://127.0.0.1:9/v1", "--model", "m", "--rate", "fast", "--out", out],
      io(stderr),
    );
    assert.equal(code, 2, stderr.join(""));
    assert.equal(readFileSync(out, "utf8"), GOOD);
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.endsWith(".tmp")),
      [],
      "no temporary file left",
    );
  },
);

test(
  "an output is replaced whole; an unwritable path is found without touching anything",
  LOAD_TEST,
  () => {
    const dir = mkdtempSync(join(tmpdir(), "lpg-out-"));
    const path = join(dir, "r.json");
    writeFileSync(path, GOOD);
    writeOutputFile(path, "new\n");
    assert.equal(readFileSync(path, "utf8"), "new\n");
    assert.deepEqual(readdirSync(dir), ["r.json"]);
    // A folder where the file should be: the write fails, the folder and nothing else stays.
    assert.throws(() => writeOutputFile(dir, "x"));
    assert.deepEqual(readdirSync(dir), ["r.json"]);
    assert.throws(() => checkWritable(join(dir, "missing-dir", "r.json")), /ENOENT/);
    assert.throws(() => checkWritable(dir), /it is a directory/);
    checkWritable(path);
    checkWritable(join(dir, "new.json"));
    assert.equal(existsSync(join(dir, "new.json")), false, "checked, not created");
    assert.equal(readFileSync(path, "utf8"), "new\n");
  },
);
