// What a burst may cost before it starts: the worst case, retries included.

import assert from "node:assert/strict";
import { test } from "node:test";
import { burstPlanWords, burstWorstCaseS } from "../../src/lanes/plan.ts";
import { parseLanes } from "../../src/lanes/spec.ts";

test("a burst's worst case: the last start, every attempt at its timeout, every wait at its cap", () => {
  const spec = parseLanes(
    [
      'lanes: [{ name: a, url: "http://127.0.0.1:9/v1", model: m }]',
      "task: { messages: [{ role: user, content: 'Say OK.' }], max_tokens: 4, timeout_s: 30 }",
      "floor: { ms: 2000 }",
      "windows: { times: ['09:00'] }",
      "burst: { size: 5, spacing_s: 2 }",
      "retry: { on: [http_5xx], max_attempts: 4, backoff_s: 1, max_wait_s: 60 }",
    ].join("\n"),
    "lanes.yaml",
  );
  // 4 × 2 s to the last start, 4 attempts × 30 s, 3 waits × 60 s.
  assert.equal(burstWorstCaseS(spec), 8 + 120 + 180);
  assert.match(
    burstPlanWords(spec),
    /1 lane × 5 requests 2 s apart; at most 5\.1 min if every attempt fails \(4 attempts of up to 30 s, waits up to 60 s\)/,
  );
});
