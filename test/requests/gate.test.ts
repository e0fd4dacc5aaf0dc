// The requests file of a real gate: a line per measured request of every
// trial, from which each trial's results are recomputed exactly.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { gunzipSync } from "node:zlib";
import { Ajv2020 } from "ajv/dist/2020.js";
import schema from "../../schemas/requests.schema.json" with { type: "json" };
import { planRun } from "../../src/commands/gate/plan.ts";
import { runGateCommand } from "../../src/commands/gate/run.ts";
import { OUTCOMES, zeroOutcomes } from "../../src/common/outcomes.ts";
import { LatencyHistogram } from "../../src/metrics/histogram.ts";
import { startMockServer } from "../../src/mock/server.ts";
import type { RequestLine } from "../../src/requests/line.ts";
import { LOAD_TEST, quickProfile } from "../helpers/mock.ts";

const validate = new Ajv2020({ allErrors: true }).compile(schema);

test(
  "a gate writes a line per measured request of every trial; a trial's outcomes and p95 TTFT recomputed from them are the results'",
  LOAD_TEST,
  async () => {
    const baseline = await startMockServer({ profile: quickProfile() });
    const candidate = await startMockServer({ profile: quickProfile() });
    try {
      const dir = mkdtempSync(join(tmpdir(), "lpg-requests-gate-"));
      const requestsPath = join(dir, "requests.jsonl.gz");
      const settings = {
        "baseline-url": `${baseline.url}/v1`,
        "candidate-url": `${candidate.url}/v1`,
        model: "mock-llm",
        rate: "20",
        duration: "1s",
        warmup: "0.2s",
        trials: "2",
        "max-trials": "2",
        "quality-suite": "none",
        contract: "none",
        "results-path": join(dir, "results.json"),
        "requests-path": requestsPath,
      };
      const read = (p: string) => readFileSync(p, "utf8");
      const results = await runGateCommand(planRun(settings, read), {
        env: {},
        readFile: read,
        writeFile: (p, text) => writeFileSync(p, text),
        log: () => {},
      });
      assert.ok(results.trials.length >= 4, results.headline);
      const lines = gunzipSync(readFileSync(requestsPath))
        .toString("utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l) as RequestLine);
      assert.equal(results.requests_file?.lines, lines.length);
      assert.equal(results.requests_file?.dropped, 0);
      for (const line of lines.slice(0, 50))
        assert.ok(validate(line), JSON.stringify(validate.errors));
      const timeoutMs = Number(results.trials[0]?.report.workload.timeout_s) * 1000;
      const trialNumbers = new Set(lines.map((l) => l.trial));
      // Every trial that ran is on record, re-runs included; the results keep each pair's last.
      assert.equal(trialNumbers.size, results.trials.length + 2 * results.reruns.length);
      for (const entry of results.trials) {
        const mine = lines.filter((l) => l.pair === entry.pair + 1 && l.arm === entry.arm);
        const last = Math.max(...mine.map((l) => Number(l.attempt)));
        const trial = mine.filter((l) => l.attempt === last);
        assert.equal(trial.length, entry.report.scheduled, "one line per measured request");
        const outcomes = zeroOutcomes();
        const ttft = new LatencyHistogram();
        for (const l of trial) {
          const outcome = OUTCOMES.find((o) => o === l.outcome);
          assert.ok(outcome, String(l.outcome));
          outcomes[outcome]++;
          if (outcome === "ok") ttft.record(Number(l.ttft_ms));
          else if (outcome === "censored" || outcome === "unsent") {
            if (l.ttft_ms !== null && Number(l.ttft_ms) <= timeoutMs)
              ttft.record(Number(l.ttft_ms));
            else ttft.recordCensored(timeoutMs);
          }
        }
        assert.deepEqual(outcomes, entry.report.outcomes);
        assert.equal(ttft.summary().p95, entry.report.metrics.ttft_ms.p95);
        assert.equal(trial.filter((l) => l.good).length, entry.report.goodput.good);
        // The trial's timeline accounts for the same requests: each offered once, each ended once.
        const buckets = entry.report.timeline?.buckets ?? [];
        const sum = (f: (b: (typeof buckets)[number]) => number) =>
          buckets.reduce((s, b) => s + f(b), 0);
        assert.equal(
          sum((b) => b.offered),
          entry.report.scheduled,
        );
        assert.equal(
          sum((b) => b.completed),
          trial.filter((l) => l.end_ms !== null).length,
        );
      }
    } finally {
      await baseline.close();
      await candidate.close();
    }
  },
);
