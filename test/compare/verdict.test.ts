// The overall verdict from the decision's parts: which guard blocks what, and
// that a regression found apart from a broken measurement still fails.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Guard } from "../../src/common/guard.ts";
import type { MetricComparison } from "../../src/compare/metric.ts";
import type { ReliabilityComparison } from "../../src/compare/reliability.ts";
import { type Decision, NOTHING_APART, overallVerdict } from "../../src/compare/verdict.ts";

const metric = (verdict: MetricComparison["verdict"]) => ({ verdict }) as MetricComparison;
const reliability = (verdict: ReliabilityComparison["verdict"]) =>
  ({ verdict }) as ReliabilityComparison;
const measurement: Guard = { code: "baseline_failures", message: "the baseline itself failed" };
const candidateOnly: Guard = { code: "no_samples", message: "no ITL", scope: "candidate" };

const QUALITY_FAILED = { failed: ["quality"], open: [] };

const decision = (parts: Partial<Decision>): Decision => ({
  guards: [],
  comparisons: [metric("pass")],
  reliability: reliability("pass"),
  budgets: [],
  ...parts,
});

test("error, fail, inconclusive, pass — in that order of precedence, with the stated exceptions", () => {
  assert.equal(overallVerdict(decision({}), NOTHING_APART), "pass");
  assert.equal(
    overallVerdict(decision({ comparisons: [metric("inconclusive")] }), NOTHING_APART),
    "inconclusive",
  );
  assert.equal(
    overallVerdict(decision({ reliability: reliability("inconclusive") }), NOTHING_APART),
    "inconclusive",
  );
  assert.equal(
    overallVerdict(decision({ comparisons: [metric("regressed")] }), NOTHING_APART),
    "fail",
  );
  assert.equal(
    overallVerdict(decision({ reliability: reliability("regressed") }), NOTHING_APART),
    "fail",
  );
  assert.equal(overallVerdict(decision({}), QUALITY_FAILED), "fail", "a quality regression");
  assert.equal(
    overallVerdict(decision({ comparisons: [metric("improved")] }), NOTHING_APART),
    "pass",
  );
  // A broken measurement decides nothing about performance…
  const broken = decision({ guards: [measurement], comparisons: [metric("regressed")] });
  assert.equal(overallVerdict(broken, NOTHING_APART), "error");
  // …but a quality regression, measured apart, still fails.
  assert.equal(overallVerdict(broken, QUALITY_FAILED), "fail");
  // The candidate's own unusable numbers: a reliability regression explains them.
  const sick = decision({ guards: [candidateOnly], reliability: reliability("regressed") });
  assert.equal(overallVerdict(sick, NOTHING_APART), "fail");
  assert.equal(overallVerdict(decision({ guards: [candidateOnly] }), NOTHING_APART), "error");
});

test("a side-suite left open makes the run inconclusive, never a pass; a failed one still fails", () => {
  const open = { failed: [], open: ["accuracy"] };
  assert.equal(overallVerdict(decision({}), open), "inconclusive");
  assert.equal(overallVerdict(decision({ comparisons: [metric("regressed")] }), open), "fail");
  assert.equal(overallVerdict(decision({}), { failed: ["contract"], open: ["accuracy"] }), "fail");
  assert.equal(overallVerdict(decision({ guards: [measurement] }), open), "error");
});
