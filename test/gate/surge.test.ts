// The surge suite end to end against the mock: a candidate that sheds the
// surge (a short queue) and then serves every step five times slower for ten
// seconds never recovers within the window and fails the gate on both rules
// (the A/A is surge-aa.test.ts).

import assert from "node:assert/strict";
import { test } from "node:test";
import { gatePage } from "../../src/page/gate-page.ts";
import { headlineFor } from "../../src/report/headline.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { trustResults } from "../../src/results/trust.ts";
import { LOAD_TEST } from "../helpers/mock.ts";
import { surgeGate } from "../helpers/surge.ts";

test(
  "a candidate that sheds a surge and recovers slowly fails on both rules, named in the comment",
  LOAD_TEST,
  async () => {
    const { run, results } = await surgeGate(
      { maxBatch: 2, maxQueue: 1, recoveryLagS: 10, recoveryScale: 5 },
      3,
    );
    const s = run.surge;
    assert.ok(s, run.surge_skipped ?? "no surge report");
    assert.equal(s.surge_per_s, 15);
    assert.equal(s.pairs.length, 3, s.notes.join("; "));
    const [recovery, failures] = s.comparison.checks;
    assert.equal(failures?.verdict, "fail", failures?.reason);
    assert.ok(s.pairs.every((p) => p.candidate.shed > 0 && p.baseline.failed === 0));
    assert.ok(
      s.pairs.every((p) => p.candidate.recovery_censored),
      JSON.stringify(s.pairs.map((p) => p.candidate)),
    );
    assert.equal(recovery?.verdict, "fail", recovery?.reason);
    assert.equal(run.verdict, "fail");
    assert.match(
      results.headline,
      /after a surge to 15 req\/s the candidate takes ≥ 3 s to recover \(the baseline [\d.]+ s/,
    );
    const comment = renderMarkdown(results, "k");
    assert.match(comment, /### Surge/);
    assert.match(comment, /\| time to recover \| [\d.]+ s \| ≥ 3 s \|/);
    assert.match(comment, /candidate failed \d+ of \d+: \d+ shed at once/);
    // Read back from the file: the same readings and verdicts from the timelines alone.
    const again = trustResults(JSON.parse(JSON.stringify(results)), "r.json", headlineFor);
    assert.equal(again.surge?.verdict, "fail");
    assert.deepEqual(again.surge?.comparison, s.comparison);
    // The page draws the worst pair through the surge, the surge between dashed lines.
    const page = await gatePage(again, null);
    assert.match(page, /<figure id="surge-timeline" class="chart">/);
    assert.match(
      page,
      /Surge, pair \d \(where the candidate recovered worst\): [\d.]+ → 15 req\/s/,
    );
  },
);
