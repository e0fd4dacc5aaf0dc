import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_PROFILE } from "../../src/mock/profile.ts";
import { MockProfileError, mergeProfile, parseOverrides } from "../../src/mock/profile-merge.ts";

test("overrides parse into a partial profile and merge", () => {
  const partial = parseOverrides([
    "decodeScale=1.15",
    "faults.empty=0.1",
    "models=a,b",
    "maxBatch=8",
  ]);
  assert.deepEqual(partial, {
    decodeScale: 1.15,
    faults: { empty: 0.1 },
    models: ["a", "b"],
    maxBatch: 8,
  });
  const profile = mergeProfile(DEFAULT_PROFILE, partial, "--set");
  assert.equal(profile.decodeScale, 1.15);
  assert.equal(profile.faults.empty, 0.1);
  assert.equal(profile.faults.http500, 0);
  assert.deepEqual(profile.models, ["a", "b"]);
  assert.equal(DEFAULT_PROFILE.faults.empty, 0, "the default is not mutated");
});

test("bad settings name the key, the value and what is accepted", () => {
  const cases: [unknown, RegExp][] = [
    [{ decodeScale: -1 }, /decodeScale = -1 is not accepted; expected a number ≥ 0/],
    [{ maxBatch: 1.5 }, /maxBatch = 1\.5 .*an integer ≥ 1/],
    [{ maxBatch: "many" }, /maxBatch = "many"/],
    [{ faults: { empty: 2 } }, /faults\.empty = 2 .*\[0, 1\]/],
    [{ faults: { gibberish: 0.1 } }, /unknown fault "gibberish"; accepted: quota429, .*hang/],
    [
      { speed: 2 },
      /unknown setting "speed"; accepted: models, honorIgnoreEos, supportsTools, supportsResponseFormat, .*faults\.<kind>, seed/,
    ],
    [{ faults: { http500: 0.6, http503: 0.6 } }, /add up to 1\.2; their sum must be at most 1/],
    [{ naturalMinTokens: 10, naturalMaxTokens: 5 }, /naturalMinTokens \(10\) must not exceed/],
    [{ models: [] }, /models = \[\] is not accepted/],
    [[1, 2], /must be a JSON object/],
  ];
  for (const [partial, message] of cases) {
    assert.throws(
      () => mergeProfile(DEFAULT_PROFILE, partial, "profile.json"),
      (error: unknown) => {
        assert.ok(error instanceof MockProfileError);
        assert.match(error.message, /^profile\.json: /);
        assert.match(error.message, message);
        return true;
      },
    );
  }
  assert.throws(
    () => parseOverrides(["decodeScale"]),
    /--set "decodeScale" is not accepted; expected key=value/,
  );
});
