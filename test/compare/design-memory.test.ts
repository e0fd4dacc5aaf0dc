// The sequential design's calibration (100,000 simulated sequences per set of
// looks) in bounded memory (issue 50, item 10): its sort of boxed numbers per
// look and boundary once held a gate that stopped at preflight at ~390 MB,
// more than a whole gate. In a process of its own, so its peak is its own.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { LOAD_TEST } from "../helpers/mock.ts";

const SEQUENTIAL = join(import.meta.dirname, "../../src/compare/sequential.ts");

test(
  "the default design (4 to 30 pairs, three boundaries) is calibrated within 200 MB of peak memory",
  LOAD_TEST,
  () => {
    const script = `import(${JSON.stringify(SEQUENTIAL)}).then((m) => {
    const before = process.resourceUsage().maxRSS;
    m.sequentialDesign(4, 30, 2, 0.05, 2, 2);
    console.log(JSON.stringify({ before, after: process.resourceUsage().maxRSS }));
  });`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 120_000,
    });
    assert.equal(r.status, 0, r.stderr);
    const { before, after } = JSON.parse(r.stdout) as { before: number; after: number };
    // maxRSS in KiB: Node and the module alone take ~60 MB; the old calibration peaked near 300 MB.
    assert.ok(
      after < 200 * 1024,
      `peak ${Math.round(after / 1024)} MB (from ${Math.round(before / 1024)} MB)`,
    );
  },
);
