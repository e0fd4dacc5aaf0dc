// The overall verdict from the decision's parts: which guard blocks what, and
// that a regression found apart from a broken measurement still fails.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Guard } from "../../src/common/guard.ts";
import type { MetricComparison } from "../../src/compare/decide.ts";
import type { ReliabilityComparison } from "../../src/compare/reliability.ts";
import { type Decision, overallVerdict } from "../../src/compare/verdict.ts";

const metric = (verdict: MetricComparison["verdict"]) => ({ verdict }) as MetricComparison;
const reliability = (verdict: ReliabilityComparison["verdict"]) =>
  ({ verdict }) as ReliabilityComparison;
const measurement: Guard = { code: "baseline_failures", message: "the baseline itself failed" };
const candidateOnly: Guard = { code: "no_samples", message: "no ITL", scope: "candidate" };

const decision = (parts: Partial<Decision>): Decision => ({
  guards: [],
  comparisons: [metric("pass")],
  reliability: reliability("pass"),
  budgets: [],
  ...parts,
});

test("error, fail, inconclusive, pass — in that order of precedence, with the stated exceptions", () => {
  assert.equal(overallVerdict(decision({}), false), "pass");
  assert.equal(
    overallVerdict(decision({ comparisons: [metric("inconclusive")] }), false),
    "inconclusive",
  );
  assert.equal(
    overallVerdict(decision({ reliability: reliability("inconclusive") }), false),
    "inconclusive",
  );
  assert.equal(overallVerdict(decision({ comparisons: [metric("regressed")] }), false), "fail");
  assert.equal(overallVerdict(decision({ reliability: reliability("regressed") }), false), "fail");
  assert.equal(overallVerdict(decision({}), true), "fail", "a quality regression");
  assert.equal(overallVerdict(decision({ comparisons: [metric("improved")] }), false), "pass");
  // A broken measurement decides nothing about performance…
  const broken = decision({ guards: [measurement], comparisons: [metric("regressed")] });
  assert.equal(overallVerdict(broken, false), "error");
  // …but a quality regression, measured apart, still fails.
  assert.equal(overallVerdict(broken, true), "fail");
  // The candidate's own unusable numbers: a reliability regression explains them.
  const sick = decision({ guards: [candidateOnly], reliability: reliability("regressed") });
  assert.equal(overallVerdict(sick, false), "fail");
  assert.equal(overallVerdict(decision({ guards: [candidateOnly] }), false), "error");
});
