// Numbers that are not finite (YAML's .inf and .nan, JSON's 1e999) parse
// without complaint and become null when written back: refused wherever a
// parsed file's numbers are read, naming where — a lanes file, a history
// line, a quality suite, a results file.

import assert from "node:assert/strict";
import { test } from "node:test";
import { nonFiniteIn } from "../../src/common/finite.ts";
import { parseHistory } from "../../src/lanes/history.ts";
import { parseLanes } from "../../src/lanes/spec.ts";
import { parseSuite } from "../../src/quality/suite.ts";
import { trustResults } from "../../src/results/trust.ts";

const LANES = [
  "lanes:",
  "  - { name: a, url: http://127.0.0.1:1/v1, model: m }",
  "task: { messages: [{ role: user, content: hi }], max_tokens: 8, timeout_s: 10 }",
  "windows: { times: ['09:00'], time_zone: UTC }",
].join("\n");

test("a lanes file's floor.ms: .inf is refused by name, not run into a history its reports refuse", () => {
  assert.throws(
    () => parseLanes(`${LANES}\nfloor: { ms: .inf }`, "lanes.yaml"),
    /lanes lanes\.yaml: floor\.ms = Infinity is not a finite number; expected a finite number/,
  );
  assert.throws(
    () => parseLanes(`${LANES}\nfloor: { ms: 100 }\nburst: { size: 3, spacing_s: .nan }`, "l.yaml"),
    /burst\.spacing_s = NaN is not a finite number/,
  );
  assert.equal(parseLanes(`${LANES}\nfloor: { ms: 100 }`, "lanes.yaml").floor.ms, 100);
});

test("a history line, a quality suite and a results file with 1e999 or .nan are refused, naming where", () => {
  assert.throws(
    () => parseHistory('{"ttft_ms": 1e999}\n', "h.jsonl"),
    /history h\.jsonl: line 1: ttft_ms = Infinity is not a finite number/,
  );
  assert.throws(
    () =>
      parseSuite(
        "cases:\n  - id: a\n    max_tokens: .nan\n    messages: [{ role: user, content: hi }]\n",
        "s.yaml",
      ),
    /quality-suite s\.yaml: cases\[0\]\.max_tokens = NaN is not a finite number/,
  );
  assert.throws(
    () =>
      trustResults(
        JSON.parse('{"schema": "x", "trials": [{"report": {"scheduled": -1e999}}]}'),
        'results-path = "r.json"',
        () => "",
      ),
    /results-path = "r\.json" is not a valid results file: trials\[0\]\.report\.scheduled = -Infinity is not a finite number/,
  );
});

test("the search goes as deep as a hostile file nests, without the call stack", () => {
  let deep: unknown = Number.NaN;
  for (let i = 0; i < 200_000; i++) deep = [deep];
  assert.equal(nonFiniteIn(deep)?.value, Number.NaN);
  assert.equal(nonFiniteIn({ a: [1, 2, { b: 3 }], c: "x" }), null);
  // A YAML alias can make a list its own member: walked once, then the schema refuses the file.
  assert.throws(
    () => parseLanes("lanes: &x [ *x ]\nfloor: { ms: 1 }", "cyclic.yaml"),
    /lanes cyclic\.yaml/,
  );
});
