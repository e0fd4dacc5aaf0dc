// Every setting is documented where users look: an action input in action.yml
// and a row of the README's input table.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { GATE_KEYS, MEASURE_KEYS } from "../src/config/gate.ts";

const ROOT = join(import.meta.dirname, "..");

test("every setting is an action.yml input and is in the README", () => {
  const action = parse(readFileSync(join(ROOT, "action.yml"), "utf8")) as {
    inputs: Record<string, unknown>;
    runs: { using: string };
  };
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const inputs = Object.keys(action.inputs);
  for (const key of [...GATE_KEYS, ...MEASURE_KEYS]) {
    assert.ok(inputs.includes(key), `action.yml lacks input ${key}`);
    assert.ok(readme.includes(`\`${key}\``), `README lacks ${key}`);
  }
  assert.deepEqual(
    inputs.filter(
      (k) =>
        !(GATE_KEYS as readonly string[]).includes(k) &&
        !(MEASURE_KEYS as readonly string[]).includes(k),
    ),
    [],
  );
  assert.equal(action.runs.using, "node24");
});
