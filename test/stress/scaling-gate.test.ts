// The scaling scenario end to end against two fleet mocks (helpers/scaling.ts):
// a candidate whose replicas take four times as long to start and whose
// scale-in cuts streams fails on reaction and on cut streams (flaps:
// scaling-flaps.test.ts; an A/A: scaling-aa.test.ts). That twice as slow
// fails at the rule's default is shown on readings in scaling-rules.test.ts:
// at the mock's seconds, one bucket of resolution is half a one-second
// reaction.

import assert from "node:assert/strict";
import { test } from "node:test";
import { gatePage } from "../../src/page/gate-page.ts";
import { headlineFor } from "../../src/report/headline.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { trustResults } from "../../src/results/trust.ts";
import { LOAD_TEST } from "../helpers/mock.ts";
import { scalingGate } from "../helpers/scaling.ts";

/** Streams of 1.6 s (8 in flight at 5 req/s: a replica's target is 10), so a scale-in from 3 has streams to cut. */
const LONG_STREAMS = {
  "output-len": "160",
  scaling: "4x 6s",
  "scaling-after": "6s",
  "scaling-hover": "1x 4s",
};

test(
  "a candidate whose replicas start four times slower and whose scale-in cuts streams fails on both, named in the comment and the page",
  LOAD_TEST,
  async () => {
    const { run, results } = await scalingGate(
      { fleetScaleUpDelayS: 4, fleetScaleIn: "cut", fleetTarget: 10 },
      LONG_STREAMS,
      { fleetTarget: 10 },
    );
    const s = run.scaling;
    assert.ok(s, run.scaling_skipped ?? "no scaling report");
    assert.equal(s.pairs.length, 3, s.notes.join("; "));
    const check = (id: string) => s.comparison.checks.find((c) => c.id === id);
    assert.equal(check("reaction")?.verdict, "fail", check("reaction")?.reason);
    assert.equal(check("cut")?.verdict, "fail", check("cut")?.reason);
    assert.ok(s.pairs.every((p) => p.baseline.cut === 0 && (p.candidate.scale_ins ?? 0) > 0));
    // The header's replicas: a new one's first answer after the step.
    assert.ok(
      s.pairs.every((p) => (p.candidate.served_s ?? 0) >= 3),
      JSON.stringify(s.pairs),
    );
    assert.equal(run.verdict, "fail");
    assert.match(results.headline, /time to the first added replica/);
    const comment = renderMarkdown(results, "k");
    assert.match(comment, /### Scaling/);
    assert.match(comment, /\| time to the first added replica \| [\d.]+ s \| [\d.]+ s \|/);
    assert.match(comment, /xychart-beta\n {2}title "Scaling pair \d: replicas"/);
    // Read back from the file: the same readings and verdicts from the timelines alone.
    const again = trustResults(JSON.parse(JSON.stringify(results)), "r.json", headlineFor);
    assert.deepEqual(again.scaling?.comparison, s.comparison);
    const page = await gatePage(again, null);
    assert.match(page, /<figure id="scaling-timeline" class="chart">/);
  },
);
