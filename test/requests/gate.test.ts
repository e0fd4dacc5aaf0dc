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

/** A real gate (the CLI's path: settings → results file and requests file) between two quick mocks. */
async function gateWithRequests(
  requestsName: string,
  settings: Record<string, string>,
  candidateKnobs: Record<string, unknown> = {},
) {
  const baseline = await startMockServer({ profile: quickProfile() });
  const candidate = await startMockServer({ profile: quickProfile(candidateKnobs) });
  try {
    const dir = mkdtempSync(join(tmpdir(), "lpg-requests-gate-"));
    const requestsPath = join(dir, requestsName);
    const read = (p: string) => readFileSync(p, "utf8");
    const all = {
      "baseline-url": `${baseline.url}/v1`,
      "candidate-url": `${candidate.url}/v1`,
      model: "mock-llm",
      warmup: "0.2s",
      trials: "2",
      "max-trials": "2",
      "quality-suite": "none",
      contract: "none",
      "results-path": join(dir, "results.json"),
      "requests-path": requestsPath,
      ...settings,
    };
    const results = await runGateCommand(planRun(all, read), {
      env: {},
      readFile: read,
      writeFile: (p, text) => writeFileSync(p, text),
      log: () => {},
    });
    return { results, requestsPath };
  } finally {
    await Promise.all([baseline.close(), candidate.close()]);
  }
}

test(
  "a gate writes a line per measured request of every trial; a trial's outcomes and p95 TTFT recomputed from them are the results'",
  LOAD_TEST,
  async () => {
    const { results, requestsPath } = await gateWithRequests("requests.jsonl.gz", {
      rate: "20",
      duration: "1s",
      accuracy: "none",
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
          if (l.ttft_ms !== null && Number(l.ttft_ms) <= timeoutMs) ttft.record(Number(l.ttft_ms));
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
  },
);

test(
  "accuracy requests are on record too: one line per item and run, each run numbered in the order the gate made it, labelled",
  LOAD_TEST,
  async () => {
    const read = (p: string) => readFileSync(p, "utf8");
    const { results, requestsPath } = await gateWithRequests(
      "requests.jsonl",
      {
        rate: "10",
        duration: "0.5s",
        "min-ok-requests": "2",
        "accuracy-items": "60",
        "accuracy-floor": "50%",
      },
      { accuracy: 0.7 },
    );
    assert.equal(results.accuracy?.overall.items, 60, results.headline);
    const lines = read(requestsPath)
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as RequestLine);
    const accuracy = lines.filter((l) => String(l.label).startsWith("accuracy"));
    for (const line of accuracy) assert.ok(validate(line), JSON.stringify(validate.errors));
    const runs = [...new Set(accuracy.map((l) => `${l.trial} ${l.label}`))];
    // fail-fast (the default): the suite runs before the pairs, which are numbered after it.
    const trials = lines.filter((l) => !accuracy.includes(l)).map((l) => Number(l.trial));
    assert.equal(Math.min(...trials), 5);
    // The candidate scored on the baseline's answers where they part: a run of its own.
    const scoring = "accuracy candidate scoring the baseline's answers";
    assert.deepEqual(runs, [
      "1 accuracy baseline",
      "2 accuracy candidate",
      `3 ${scoring}`,
      "4 accuracy baseline again",
    ]);
    const parted = results.accuracy?.scoring?.items ?? 0;
    assert.ok(parted >= 6, `${parted} answers parted (the candidate is 10 points less accurate)`);
    assert.deepEqual(
      ["accuracy baseline", "accuracy candidate", scoring, "accuracy baseline again"].map(
        (label) => accuracy.filter((l) => l.label === label).length,
      ),
      [60, 60, parted, 30],
    );
    // Each line's index is its item's place in the results' answers.
    const answers = results.accuracy?.answers ?? [];
    for (const l of accuracy.filter((x) => x.label === "accuracy candidate")) {
      assert.equal(l.outcome, "ok");
      assert.equal(l.finish_reason, "stop");
      assert.ok(Number(l.e2el_ms) >= 0 && Number(l.output_tokens) > 0);
      assert.ok(answers[Number(l.index)], `index ${l.index}`);
    }
    assert.equal(results.requests_file?.lines, lines.length);
  },
);
