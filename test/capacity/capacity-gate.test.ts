// The capacity gate end to end, in processes of their own: the knee mock as
// the baseline, the same mock with 30 % slower decoding as the candidate (a
// capacity ≈ 23 % lower: far beyond the 5 % resolution and tolerance, so that
// the brackets separate on a busy machine too — how small a drop the gate
// resolves is bench/capacity.ts's question). The gate must find both
// capacities near the mock model's knees, fail on the capacity drop, and — at
// the baseline's knee — on the goodput drop too.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { KNEE_GATE_SETTINGS, KNEE_MOCK_SETS, startMockProcess } from "../../src/commands/demo.ts";
import { saturationRatePerS } from "../../src/mock/engine.ts";
import { DEFAULT_PROFILE } from "../../src/mock/profile.ts";
import { mergeProfile, parseOverrides } from "../../src/mock/profile-merge.ts";
import { headlineFor } from "../../src/report/headline.ts";
import type { GateResults } from "../../src/results/model.ts";
import { trustResults } from "../../src/results/trust.ts";
import { CLI, flagsOf, runCliProcess } from "../helpers/cli.ts";
import { SLOW_LOAD_TEST } from "../helpers/mock.ts";

const SLOWER = "decodeScale=1.3";

// A bound on a gate that never ends: far beyond the ≈1.5 min it takes.
const run = (args: string[]) => runCliProcess(args, 420_000);

function predicted(sets: string[]): number {
  return saturationRatePerS(mergeProfile(DEFAULT_PROFILE, parseOverrides(sets), "test"), 32, 16);
}

test(
  "a capacity gate fails a candidate with 30 % slower decoding on its capacity; its pairs run below the baseline's knee",
  SLOW_LOAD_TEST,
  async () => {
    const baseline = await startMockProcess([process.execPath, CLI], [...KNEE_MOCK_SETS]);
    const candidate = await startMockProcess([process.execPath, CLI], [...KNEE_MOCK_SETS, SLOWER]);
    const resultsPath = join(mkdtempSync(join(tmpdir(), "lpg-capacity-")), "results.json");
    try {
      const flags = flagsOf({
        ...KNEE_GATE_SETTINGS,
        "baseline-url": `${baseline.url}/v1`,
        "candidate-url": `${candidate.url}/v1`,
        comment: "never",
        "results-path": resultsPath,
      });
      const r = await run(["gate", ...flags]);
      const results = JSON.parse(readFileSync(resultsPath, "utf8")) as GateResults;
      const capacity = results.capacity;
      assert.ok(capacity, "the results hold the capacity run");
      // The mocks share this machine: starved (a test run beside two busy loops), their knees
      // are the machine's — 15 % lower than their model. The gate must then say so, and never pass.
      if (
        capacity.comparison.verdict === "inconclusive" &&
        capacity.comparison.reason.startsWith("the knee may be the client's")
      ) {
        assert.notEqual(results.verdict, "pass", results.headline);
        return;
      }
      assert.equal(results.verdict, "fail", `${r.stdout}\n${r.stderr}`);
      assert.equal(r.code, 1);
      assert.equal(capacity.comparison.verdict, "regressed", capacity.comparison.reason);
      const b = capacity.comparison.baseline_per_s as number;
      const c = capacity.comparison.candidate_per_s as number;
      assert.ok(Math.abs(b / predicted([...KNEE_MOCK_SETS]) - 1) <= 0.1, `baseline ${b} req/s`);
      assert.ok(
        Math.abs(c / predicted([...KNEE_MOCK_SETS, SLOWER]) - 1) <= 0.1,
        `candidate ${c} req/s`,
      );
      // The paired trials ran at gate-rate-fraction 0.8 of the baseline's capacity, below its
      // knee; the capacity regressed, so the gate fails without adding pairs to them.
      const gateRate = capacity.gate_rate_per_s as number;
      assert.ok(Math.abs(gateRate / (0.8 * b) - 1) < 0.01, `gate rate ${gateRate} of ${b}`);
      assert.ok(results.trials.every((t) => t.report.workload.arrival.includes(String(gateRate))));
      assert.equal(results.pairs, 2);
      assert.match(results.headline, /capacity/i);
      assert.ok(r.stdout.includes(`2 pairs (order abba) · poisson ${gateRate} req/s`), r.stdout);
      assert.match(results.config?.workload.arrival ?? "", /rates chosen by the capacity sweep/);
      assert.match(r.stdout, /Server \(Poisson, SLO ttft:300\)/);
      assert.match(r.stderr, /trials planned/);

      // A results file another job wrote is re-decided from its points' reports, not read.
      const forged = structuredClone(results);
      const forgedCapacity = forged.capacity;
      assert.ok(forgedCapacity);
      forged.verdict = "pass";
      forgedCapacity.comparison.verdict = "pass";
      for (const p of forgedCapacity.arms.candidate.points) {
        if (p.rate_per_s !== null) p.judgement = "pass";
      }
      forgedCapacity.arms.candidate.capacity.capacity_per_s = 1000;
      const trusted = trustResults(JSON.parse(JSON.stringify(forged)), "forged.json", headlineFor);
      assert.equal(trusted.capacity?.comparison.verdict, "regressed");
      assert.equal(trusted.capacity?.arms.candidate.capacity.capacity_per_s, c);
      assert.equal(trusted.verdict, "fail");
    } finally {
      await Promise.all([baseline.stop(), candidate.stop()]);
    }
  },
);
