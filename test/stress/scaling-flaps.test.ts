// The scaling scenario's flaps against two fleet mocks (helpers/scaling.ts):
// a candidate that scales in without a stabilisation window turns its
// replica count up and down while the load hovers around its threshold, where
// the baseline (a 5 s window) holds its count; it fails on flaps and on
// nothing else.

import assert from "node:assert/strict";
import { test } from "node:test";
import { SLOW_LOAD_TEST } from "../helpers/mock.ts";
import { scalingGate } from "../helpers/scaling.ts";

test(
  "a candidate that scales in without a stabilisation window flaps while the load hovers and fails on flaps",
  SLOW_LOAD_TEST,
  async () => {
    // Replicas ready within half a second of a scaler that looks four times a second: each of
    // the hover's 2 s half-periods holds its count long enough for the 1 s samples to see it.
    const quick = { fleetScaleUpDelayS: 0.5, fleetIntervalS: 0.25 };
    const { run } = await scalingGate(
      { ...quick, fleetStabilizationS: 0 },
      // Six pairs: a count of turns varies by a third to a half from trial to trial on a busy
      // machine, and the t-interval at a rule's share of α on fewer (three degrees of freedom
      // with four) is wider than that; bench/scaling-oc.ts has the tables.
      {
        scaling: "4x 3s",
        "scaling-after": "3s",
        "scaling-hover": "1.76x 16s",
        "scaling-pairs": "6",
      },
      quick,
    );
    const s = run.scaling;
    assert.ok(s, run.scaling_skipped ?? "no scaling report");
    const flaps = s.comparison.checks.find((c) => c.id === "flaps");
    assert.equal(
      flaps?.verdict,
      "fail",
      `${flaps?.reason} ${JSON.stringify(s.pairs.map((p) => [p.baseline.flaps, p.candidate.flaps]))}`,
    );
    assert.ok(s.comparison.checks.every((c) => c.id === "flaps" || c.verdict !== "fail"));
  },
);
