// One hostile input of each class, given to the real CLI in a process of its
// own: each ends in a named error (or, for a server's page, a named failed
// scrape while the run goes on) with no stack trace, no secret echoed, a
// readable results file where one was asked for, and a bounded footprint.
// The memory bound is asserted here; the wall time only against a hang (30 s,
// for a loaded machine): bench/hostile.ts measures it.

import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { test } from "node:test";
import { runCliMeasured } from "./helpers/cli.ts";
import { MARK, prepareHostileCases } from "./helpers/hostile.ts";
import { SLOW_LOAD_TEST } from "./helpers/mock.ts";

test(
  "each class of hostile input ends named, in bounded memory, with an error results file where asked",
  SLOW_LOAD_TEST,
  async (t) => {
    const { cases, close, rssFile } = await prepareHostileCases();
    t.after(close);
    assert.equal(cases.length, 12);
    for (const c of cases) {
      if (c.results) rmSync(c.results, { force: true });
      const r = await runCliMeasured(c.args, 30_000, rssFile);
      const said = r.stdout + r.stderr;
      t.diagnostic(
        `${c.what}: exit ${r.code}, ${r.seconds.toFixed(1)} s, ${r.peakRssMb.toFixed(0)} MB`,
      );
      assert.equal(r.code, c.exit, `${c.what}: ${said.slice(-400)}`);
      assert.match(said, c.says, c.what);
      assert.doesNotMatch(said, /\n\s+at /, `${c.what}: no stack trace`);
      assert.ok(r.peakRssMb < 300, `${c.what}: ${r.peakRssMb.toFixed(0)} MB at its peak`);
      if (c.results) {
        const results = JSON.parse(readFileSync(c.results, "utf8"));
        assert.equal(results.verdict, "error", c.what);
        assert.match(results.headline, c.says, c.what);
      }
      const kept = c.results ? readFileSync(c.results, "utf8") : "";
      for (const text of [said, kept]) assert.ok(!text.includes(MARK), `${c.what}: no secret`);
    }
  },
);
