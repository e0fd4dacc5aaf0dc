// The CLI reads its flags like the action reads its inputs, and --help lists
// every flag of a command from the settings table.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parseFlags } from "../../src/commands/flags.ts";
import { commandHelp, programHelp } from "../../src/commands/help.ts";
import { COMMANDS } from "../../src/commands/registry.ts";
import { commandSettings } from "../../src/config/settings.ts";

const gateFlags = commandSettings("gate");

test("a switch takes --x, --x=true|false and --x true|false, as the action writes it", () => {
  for (const [args, expected] of [
    [["--capacity"], "true"],
    [["--capacity=false"], "false"],
    [["--capacity", "true"], "true"],
    [["--capacity", "false"], "false"],
    [["--capacity", "--trials", "4"], "true"],
  ] as const) {
    const { raw } = parseFlags("gate", args, gateFlags);
    assert.equal(raw.capacity, expected, args.join(" "));
  }
  // A word that is not a boolean is the next argument's business, not the switch's value.
  assert.throws(
    () => parseFlags("gate", ["--capacity", "yes-please"], gateFlags),
    /unexpected argument "yes-please"/,
  );
});

test("a value that starts with '-' is a value: negative numbers reach the setting's own check", () => {
  const { raw } = parseFlags("gate", ["--rate", "-1", "--think-time=-1s"], gateFlags);
  assert.equal(raw.rate, "-1");
  assert.equal(raw["think-time"], "-1s");
  assert.throws(() => parseFlags("gate", ["--rate"], gateFlags), /gate: --rate needs a value/);
  assert.throws(
    () => parseFlags("gate", ["--rate", "--trials", "3"], gateFlags),
    /gate: --rate needs a value/,
  );
});

test("repeatable flags collect their values; aliases name the same setting", () => {
  const { raw } = parseFlags("gate", ["--header", "A: 1", "--header=B: 2"], gateFlags);
  assert.deepEqual(raw.header, ["A: 1", "B: 2"]);
  const lanes = parseFlags("burst", ["--history", "h.jsonl"], commandSettings("burst"));
  assert.equal(lanes.raw["lanes-history"], "h.jsonl");
});

test("unknown flags and stray arguments are named", () => {
  assert.throws(
    () => parseFlags("measure", ["--bogus"], commandSettings("measure")),
    /measure: unknown flag --bogus/,
  );
  assert.throws(
    () => parseFlags("measure", ["oops"], commandSettings("measure")),
    /unexpected argument "oops"/,
  );
  // A gate flag is not a flag of measure.
  assert.throws(
    () => parseFlags("measure", ["--baseline-url", "x"], commandSettings("measure")),
    /unknown flag --baseline-url/,
  );
});

test("--help lists every flag of the command with its default, what it accepts and one line", () => {
  for (const c of COMMANDS) {
    const flags = commandSettings(c.name);
    const { help } = parseFlags(c.name, ["--help"], flags);
    assert.ok(help);
    const text = commandHelp(c, flags);
    const flat = text.replace(/\s+/g, " ");
    for (const s of flags) {
      assert.match(
        text,
        new RegExp(`^  --${s.name}\\b`, "m"),
        `${c.name} --help lacks --${s.name}`,
      );
      if (s.default !== undefined)
        assert.ok(flat.includes(`Default ${s.default}.`), `${c.name}: ${s.name}'s default`);
    }
  }
  const gateCommand = COMMANDS.find((c) => c.name === "gate");
  assert.ok(gateCommand);
  const gate = commandHelp(gateCommand, gateFlags).replace(/\s+/g, " ");
  assert.match(
    gate,
    /--rate VALUE Requests per second \(poisson, gamma, constant\), or a shape .* Accepts requests per second \(> 0, ≤ 10,000\), or a shape of steps and ramps/,
  );
  assert.match(gate, /--trials VALUE [^-]*Accepts an integer ≥ 1, ≤ 100\. Default 4\./);
  assert.match(
    gate,
    /--duration VALUE Measurement window per trial\. Accepts a duration \(30s, 500ms, 2m\) > 0, ≤ 24h\. Default 30s\./,
  );
  const all = programHelp(COMMANDS);
  for (const c of COMMANDS) assert.match(all, new RegExp(`^  ${c.name} `, "m"));
});
