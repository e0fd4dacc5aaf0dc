// Quality end to end against two mock servers on 127.0.0.1: the built-in
// suite, real requests, the gate's verdict. Latency trials are stubbed here
// (they have their own end-to-end tests) to keep this about quality.

import assert from "node:assert/strict";
import { test } from "node:test";
import { headlineFor } from "../../src/report/headline.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { mockPairGate } from "../helpers/gate.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

async function qualityGate(
  candidate: Record<string, unknown>,
  baseline: Record<string, unknown> = {},
) {
  const { run, results } = await mockPairGate(
    { baseline, candidate },
    { contract: "none", accuracy: "none" },
  );
  return { outcome: run, markdown: renderMarkdown(results, "default") };
}

test("identical variants pass the built-in suite", LOAD_TEST, async () => {
  const { outcome } = await qualityGate({});
  assert.equal(
    outcome.quality?.verdict,
    "pass",
    outcome.quality?.reasons.map((r) => r.message).join("\n"),
  );
  assert.equal(outcome.verdict, "pass");
  assert.equal(outcome.quality?.cases, 33);
  assert.deepEqual(outcome.quality?.strict, []);
  assert.ok((outcome.quality?.kinds.length ?? 0) >= 8);
});

test(
  "a candidate that breaks JSON output fails the gate, naming the check and the cases",
  LOAD_TEST,
  async () => {
    // breakJson 0.1: about one JSON request in ten is cut in half (3 of the 11 JSON cases here).
    const { outcome, markdown } = await qualityGate({ breakJson: 0.1 });
    const q = outcome.quality;
    assert.equal(
      q?.verdict,
      "fail",
      JSON.stringify({ strict: q?.strict, pre: q?.pre_existing, guards: outcome.guards }),
    );
    assert.equal(outcome.verdict, "fail");
    const broken = q?.strict.filter((c) => c.confirmed) ?? [];
    assert.ok(broken.length >= 1, "confirmed strict failures");
    for (const c of broken) {
      assert.ok(
        c.codes.some((code) => code === "json.invalid" || code.startsWith("json.schema")),
        c.codes.join(),
      );
      assert.equal(c.candidate_failures, 3, "failed again in both re-runs");
    }
    assert.deepEqual(
      broken.map((c) => c.id),
      ["json-object-nested", "schema-enum", "schema-numbers"],
    );
    assert.match(
      q?.reasons[0]?.message ?? "",
      /^strict checks: 3 cases the baseline passes fail on the candidate, confirmed by re-runs: json-object-nested \[json\.invalid\]/,
    );
    // In words, each case once, with what the candidate returned.
    assert.match(
      headlineFor(outcome),
      /^the candidate breaks JSON output: 3 cases that pass on the baseline fail on it \(of 33 compared\), e\.g\. json-object-nested: invalid JSON — it returned "/,
    );
    assert.match(markdown, /\*\*Quality\*\* ❌ the candidate breaks JSON output: 3 cases/);
  },
);

test(
  "tool-call regressions: wrong names and stop instead of tool_calls are caught by code",
  LOAD_TEST,
  async () => {
    const { outcome } = await qualityGate({ breakToolName: 0.5, stopInsteadOfToolCalls: 0.5 });
    const codes = outcome.quality?.strict.flatMap((c) => c.codes) ?? [];
    assert.equal(outcome.quality?.verdict, "fail");
    assert.ok(
      codes.includes("tool.unknown_name") || codes.includes("tool.finish_reason"),
      codes.join(),
    );
    assert.ok(
      (outcome.quality?.tool_codes.candidate["tool.unknown_name"] ?? 0) +
        (outcome.quality?.tool_codes.candidate["tool.finish_reason"] ?? 0) >
        0,
    );
  },
);

test(
  "a server without tool support fails tool cases on both arms: pre-existing, and the gate passes",
  LOAD_TEST,
  async () => {
    const { outcome } = await qualityGate({ supportsTools: false }, { supportsTools: false });
    assert.equal(outcome.quality?.verdict, "pass");
    const pre = outcome.quality?.pre_existing ?? [];
    assert.ok(pre.length >= 10, `${pre.length} pre-existing`);
    assert.ok(pre.every((p) => p.id.startsWith("tool-") && p.codes.includes("transport.http_400")));
  },
);
