// The servers' stops and starts as probes, against mocks the gate starts: a
// candidate that cuts the streams in flight at its stop (and aborts) where
// the baseline drains them fails; cut on both is pre-existing and passes; a
// candidate whose /health says ready while its completions still fail is
// named with the gap, the baseline not.

import assert from "node:assert/strict";
import { test } from "node:test";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { resultsOf } from "../helpers/gate.ts";
import { LOAD_TEST } from "../helpers/mock.ts";
import { freePort, gateWithServers, mockCommand } from "../helpers/servers.ts";

// 1 ms decode steps: a 1024-token stream takes about 1.5 s, well inside a 5 s drain.
const QUICK = ["decodeBaseMs=1", "decodePerSeqMs=0", "prefillBaseMs=1"];

async function stopsGate(baseline: string[], candidate: string[]) {
  const [b, c] = [await freePort(), await freePort()];
  return gateWithServers({
    "baseline-url": `http://127.0.0.1:${b}/v1`,
    "candidate-url": `http://127.0.0.1:${c}/v1`,
    "baseline-start": mockCommand(b, [...QUICK, ...baseline]),
    "candidate-start": mockCommand(c, [...QUICK, ...candidate]),
    "drain-streams": "4",
  });
}

test(
  "a candidate that cuts its streams at the stop and aborts, where the baseline drains: fail",
  LOAD_TEST,
  async () => {
    const { outcome, config } = await stopsGate(["drainS=5"], ["stopExitCode=134"]);
    const d = outcome.drain;
    assert.ok(d, outcome.drain_skipped ?? "no drain report");
    assert.equal(d.baseline.streams.filter((s) => s.in_flight && s.outcome === "ok").length, 4);
    assert.equal(d.baseline.exit, "exit code 0");
    assert.ok(
      d.candidate.streams.every((s) => s.in_flight && s.outcome !== "ok"),
      JSON.stringify(d.candidate.streams),
    );
    assert.equal(d.candidate.exit, "exit code 134");
    assert.equal(d.verdict, "fail");
    assert.deepEqual(d.findings, [
      "drain.streams_cut: 0 of 4 → 4 of 4",
      "the candidate's process ended exit code 134 (the baseline's exit code 0)",
    ]);
    assert.equal(outcome.verdict, "fail");
    const comment = renderMarkdown(resultsOf(config, outcome), "k");
    assert.match(comment, /stopping the candidate's server: drain\.streams_cut: 0 of 4 → 4 of 4/);
    assert.match(
      comment,
      /\| candidate \| 4 \| 0 \| 4 \(truncated 4\) \| exit code 134 after [\d.]+ s — not a clean stop \|/,
    );
  },
);

test(
  "streams cut on both stops is pre-existing: the drain passes and says so",
  LOAD_TEST,
  async () => {
    const { outcome } = await stopsGate([], ["seed=7"]);
    const d = outcome.drain;
    assert.ok(d, outcome.drain_skipped ?? "no drain report");
    assert.equal(d.verdict, "pass", d.findings.join("; "));
    assert.deepEqual(d.findings, ["streams cut on both (4 of 4 → 4 of 4): pre-existing"]);
  },
);

test(
  "a /health that says ready before completions work is named with the gap; an honest one is not",
  LOAD_TEST,
  async () => {
    const { outcome } = await stopsGate([], ["loadingS=1.5"]);
    const [base, cand] = outcome.servers;
    assert.equal(base?.warnings.length, 0, base?.warnings.join("; "));
    assert.ok(cand?.health_ready_s !== null && cand?.health_ready_s !== undefined);
    assert.ok((cand?.time_to_ready_s ?? 0) - cand.health_ready_s >= 1, JSON.stringify(cand));
    assert.ok(
      cand.readiness_attempts?.some(
        (a) => a.what === "completion" && a.outcome === "HTTP 503 model_loading",
      ),
    );
    assert.match(
      cand.warnings.join("; "),
      /a readiness that lies: \/health answered 200 at [\d.]+ s, but the first completion succeeded [\d.]+ s later \(\d+ attempts? failed in between: completion HTTP 503 model_loading/,
    );
  },
);
