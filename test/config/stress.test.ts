// The stress settings and the drain's pure parts: where the drain probe runs,
// what a surge is refused with, how an exit reads, how two stops compare.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parseConfig } from "../../src/config/config.ts";
import { compareDrain, type DrainProbe, exitOf } from "../../src/servers/drain.ts";

test("the drain probe runs only where the gate starts both servers once; asked for elsewhere, it says why not", () => {
  const base = {
    model: "m",
    rate: "5",
    "baseline-url": "http://127.0.0.1:1/v1",
    "candidate-url": "http://127.0.0.1:2/v1",
  };
  const starts = { "baseline-start": "serve a", "candidate-start": "serve b" };
  assert.deepEqual(parseConfig({ ...base, ...starts }).gate.drain, { streams: 8 });
  const perTrial = parseConfig({ ...base, ...starts, restart: "per-trial" }).gate;
  assert.equal(perTrial.drain, undefined);
  assert.match(
    perTrial.setupNotes?.join("; ") ?? "",
    /the drain probe is skipped: restart is per-trial/,
  );
  const unmanaged = parseConfig(base).gate;
  assert.equal(unmanaged.drain, undefined);
  assert.deepEqual(
    unmanaged.setupNotes?.filter((n) => n.includes("drain")),
    [],
    "not asked: nothing said",
  );
  const asked = parseConfig({ ...base, "drain-streams": "4" }).gate;
  assert.match(asked.setupNotes?.join("; ") ?? "", /the gate does not start both servers/);
});

test("a surge is refused where there is no steady rate to step up from", () => {
  const base = {
    model: "m",
    "baseline-url": "http://127.0.0.1:1/v1",
    "candidate-url": "http://127.0.0.1:2/v1",
    surge: "1.5x 30s",
  };
  assert.equal(parseConfig({ ...base, rate: "10" }).gate.surge?.factor, 1.5);
  assert.throws(
    () => parseConfig({ ...base, rate: "10 for 10s, 20 for 10s" }),
    /surge is set, but the arrivals are a shaped rate/,
  );
  assert.throws(
    () => parseConfig({ ...base, rate: "10", "max-concurrency": "4" }),
    /surge is set with max-concurrency = 4/,
  );
  assert.throws(() => parseConfig({ ...base, rate: "9000" }), /is 13500 req\/s, not accepted/);
  assert.throws(
    () => parseConfig({ ...base, rate: "10", surge: "0.5x 30s" }),
    /surge = "0.5x 30s" is not accepted/,
  );
});

test("an exit reads as the server's: 143 is an end by SIGTERM (clean), 134 an abort", () => {
  assert.deepEqual(exitOf(143, null), { exit: "ended by SIGTERM (exit code 143)", clean: true });
  assert.deepEqual(exitOf(134, null), { exit: "exit code 134", clean: false });
  assert.deepEqual(exitOf(0, null), { exit: "exit code 0", clean: true });
  assert.deepEqual(exitOf(null, "SIGKILL"), { exit: "killed by SIGKILL", clean: false });
});

const probe = (cut: number, of: number, exit = "exit code 0", clean = true): DrainProbe => ({
  exit,
  clean,
  seconds: 0.1,
  streams: Array.from({ length: of }, (_, i) => ({
    outcome: i < cut ? "truncated" : "ok",
    in_flight: true,
    output_chunks: 10,
    finish_reason: i < cut ? null : "length",
    detail: null,
  })),
});

test("two stops compared: more streams cut fails, the same passes, none in flight is undecided, a timeout is no cut", () => {
  assert.equal(compareDrain(probe(0, 8), probe(2, 8)).verdict, "fail");
  assert.equal(compareDrain(probe(8, 8), probe(8, 8)).verdict, "pass");
  assert.equal(compareDrain(probe(0, 8), probe(0, 8, "exit code 134", false)).verdict, "fail");
  assert.equal(compareDrain(probe(0, 0), probe(0, 8)).verdict, "inconclusive");
  const timedOut = probe(0, 8);
  for (const s of timedOut.streams) s.outcome = "censored";
  assert.equal(compareDrain(probe(0, 8), timedOut).verdict, "pass");
});

test("the truncation replay is refused where an idle answer cannot tell a cut from a natural end", () => {
  const base = {
    model: "m",
    rate: "5",
    "baseline-url": "http://127.0.0.1:1/v1",
    "candidate-url": "http://127.0.0.1:2/v1",
    "truncation-replay": "40",
  };
  assert.deepEqual(parseConfig(base).gate.truncation, { replay: 40, maxIncrease: 0.05 });
  assert.equal(parseConfig({ ...base, "truncation-replay": "0" }).gate.truncation, undefined);
  assert.throws(
    () => parseConfig({ ...base, temperature: "0.7" }),
    /truncation-replay = 40 is not accepted with temperature = 0.7/,
  );
  assert.throws(
    () => parseConfig({ ...base, "ignore-eos": "true" }),
    /with ignore-eos is set: no answer ends stop/,
  );
  assert.throws(() => parseConfig({ ...base, turns: "3" }), /sessions of more than one turn/);
});

test("the truncation replay compares the server's usage counts: refused with no-usage", () => {
  assert.throws(
    () =>
      parseConfig({
        model: "m",
        rate: "5",
        "baseline-url": "http://127.0.0.1:1/v1",
        "candidate-url": "http://127.0.0.1:2/v1",
        "truncation-replay": "40",
        "no-usage": "true",
      }),
    /truncation-replay = 40 is not accepted with no-usage/,
  );
});
