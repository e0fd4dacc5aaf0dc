// Every setting is documented where users look — an action input in
// action.yml and a row of the README's input table — with the default the
// settings table gives it.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { ACTION_INPUTS, SETTINGS, settingsIn } from "../src/config/settings.ts";

const ROOT = join(import.meta.dirname, "..");

test("every action setting is an action.yml input, with the table's default, and is in the README", () => {
  const action = parse(readFileSync(join(ROOT, "action.yml"), "utf8")) as {
    inputs: Record<string, { description: string }>;
    runs: { using: string };
  };
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  assert.deepEqual(Object.keys(action.inputs).sort(), [...ACTION_INPUTS].sort());
  for (const s of SETTINGS.filter((x) => x.scope !== "endpoint")) {
    assert.ok(readme.includes(`\`${s.name}\``), `README lacks ${s.name}`);
    const input = action.inputs[s.name];
    if (input && "default" in s) {
      assert.ok(
        input.description.includes(`Default ${s.default}.`),
        `action.yml: ${s.name}'s description should say "Default ${s.default}."`,
      );
    }
  }
  assert.equal(action.runs.using, "node24");
});

test("the measure command's flags are documented in the README", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  for (const s of settingsIn("endpoint", "trial")) {
    assert.ok(readme.includes(`\`--${s.name}`), `README lacks --${s.name}`);
  }
});
