// A shard file from another version is refused by what it is, not by the
// first field the schema trips on.

import assert from "node:assert/strict";
import { test } from "node:test";
import { sectionProblem } from "../../src/shard/schema.ts";

test("a shard section of another version is named, with the one this merge reads", () => {
  assert.match(
    sectionProblem({ schema: "llm-perf-gate/shard@1", trials: [] }) ?? "",
    /its shard section is "llm-perf-gate\/shard@1", and this merge reads llm-perf-gate\/shard@2: run the shards and the merge with the same version/,
  );
  assert.match(sectionProblem({ schema: "llm-perf-gate/shard@2" }) ?? "", /the shard section/);
});
