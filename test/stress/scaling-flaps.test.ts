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
    // Replicas ready within half a second: a turn fits in the hover's 1.5 s half-periods.
    const quick = { fleetScaleUpDelayS: 0.5 };
    const { run } = await scalingGate(
      { ...quick, fleetStabilizationS: 0 },
      // Four pairs: the t-interval on three (two degrees of freedom, at a rule's share of α) is
      // too wide for flap counts that vary by two from pair to pair.
      {
        scaling: "4x 3s",
        "scaling-after": "3s",
        "scaling-hover": "1.76x 12s",
        "scaling-pairs": "4",
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
