// Input files are read one way: a regular file only, at most its kind's size,
// refused at once and by name otherwise — a FIFO never blocks the run, a
// device never fills the memory.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "../../src/cli.ts";
import { FILE_CAPS_BYTES, FILE_LINE_CAPS, readInputFile } from "../../src/common/files.ts";
import { MAX_TRACE_ROWS } from "../../src/workload/trace.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

const dir = mkdtempSync(join(tmpdir(), "lpg-files-"));
const fifo = join(dir, "suite.fifo");
const made = spawnSync("mkfifo", [fifo]);

test(
  "a regular file is read whole; a FIFO, a device and a directory are refused by what they are",
  LOAD_TEST,
  () => {
    const ok = join(dir, "ok.yml");
    writeFileSync(ok, "rate: 5\n");
    assert.equal(readInputFile(ok, "config file"), "rate: 5\n");
    assert.equal(made.status, 0, "mkfifo is there");
    assert.throws(
      () => readInputFile(fifo, "quality suite"),
      /it is a FIFO; a quality suite must be a regular file/,
    );
    assert.throws(
      () => readInputFile("/dev/zero", "trace"),
      /it is a device; a trace must be a regular file/,
    );
    assert.throws(
      () => readInputFile(dir, "lanes file"),
      /it is a directory; a lanes file must be a regular file/,
    );
    assert.throws(() => readInputFile(join(dir, "none"), "config file"), { code: "ENOENT" });
  },
);

test("a file over its kind's cap is refused before it is read", LOAD_TEST, () => {
  const big = join(dir, "big.yml");
  writeFileSync(big, "x".repeat(FILE_CAPS_BYTES["config file"] + 1));
  assert.throws(
    () => readInputFile(big, "config file"),
    /it is larger than the 1 MiB a config file may weigh/,
  );
  const exact = join(dir, "exact.yml");
  writeFileSync(exact, "x".repeat(FILE_CAPS_BYTES["config file"]));
  assert.equal(readInputFile(exact, "config file").length, FILE_CAPS_BYTES["config file"]);
});

test(
  "a line-per-row kind is refused past its line cap while reading, before it is held",
  LOAD_TEST,
  () => {
    const cap = FILE_LINE_CAPS.trace ?? 0;
    assert.equal(cap, MAX_TRACE_ROWS + 1, "the trace's rows and a CSV header");
    const long = join(dir, "long.csv");
    writeFileSync(long, "\n".repeat(cap + 1));
    assert.throws(
      () => readInputFile(long, "trace"),
      /it has more than 2,000,001 lines, the most a trace may hold/,
    );
    writeFileSync(long, "\n".repeat(cap));
    assert.equal(readInputFile(long, "trace").length, cap);
    assert.equal(FILE_LINE_CAPS.dataset, undefined, "a dataset's JSON may be pretty-printed");
    // A line-capped kind over its size is refused by its size, before its lines are counted.
    const wide = join(dir, "wide.yml");
    writeFileSync(wide, "\n".repeat(FILE_CAPS_BYTES["quality suite"] + 1));
    assert.throws(
      () => readInputFile(wide, "quality suite"),
      /it is larger than the 16 MiB a quality suite may weigh/,
    );
  },
);

test(
  "through the CLI: a device as the config, a FIFO as the suite — exit 2, named, an error results file",
  LOAD_TEST,
  async () => {
    for (const [flags, message] of [
      [
        ["--config", "/dev/zero"],
        /config = "\/dev\/zero" cannot be read as YAML or JSON: it is a device; a config file must be a regular file/,
      ],
      [["--quality-suite", fifo], /quality-suite = ".*suite\.fifo" cannot be read: it is a FIFO/],
      [["--dataset", "/dev/urandom"], /dataset = "\/dev\/urandom" cannot be read: it is a device/],
    ] as const) {
      const resultsPath = join(dir, "results.json");
      let stderr = "";
      const written = new Map<string, string>();
      const code = await runCli(
        [
          "gate",
          "--baseline-url=http://127.0.0.1:9/v1",
          "--candidate-url=http://127.0.0.1:9/v1",
          "--model=m",
          "--rate=5",
          `--results-path=${resultsPath}`,
          ...flags,
        ],
        {
          stdout: () => {},
          stderr: (t) => {
            stderr += t;
          },
          env: {},
          readFile: readInputFile,
          writeFile: (p, t) => written.set(p, t),
          gate: {
            measureTrial: async () => {
              throw new Error("a bad file must stop the run before any request");
            },
          },
        },
      );
      assert.equal(code, 2, stderr);
      assert.match(stderr, message);
      assert.doesNotMatch(stderr, /\n\s+at /, "no stack");
      const results = JSON.parse(written.get(resultsPath) ?? "{}");
      assert.equal(results.verdict, "error");
      assert.match(results.headline, message);
    }
  },
);
