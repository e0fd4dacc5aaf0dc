// The comment's line on the rate limits the servers announced.

import assert from "node:assert/strict";
import { test } from "node:test";
import { rateLimitsLine } from "../../src/report/rate-limits.ts";
import { fakeGateResults } from "../helpers/gate.ts";

test("the announced limits per arm: the limit and the fewest left over its trials; nothing when none came", async () => {
  const r = await fakeGateResults([{ ttftMs: 100, itlMs: 10 }], [{ ttftMs: 100, itlMs: 10 }]);
  assert.equal(rateLimitsLine(r), "");
  const dim = (limit: number, left: number) => ({ limit, remaining_min: left, reset: "60s" });
  const none = { limit: null, remaining_min: null, reset: null };
  r.trials.forEach((t, i) => {
    if (t.arm === "candidate")
      t.report.rate_limits = {
        responses: 100,
        requests: none,
        tokens: dim(90_000, 5_000 + i),
        retry_after: 0,
      };
  });
  assert.equal(
    rateLimitsLine(r),
    `Rate limits the servers announced (x-ratelimit-*): candidate 90,000 tokens (resets 60s), as few as ${(5_000 + r.trials.findIndex((t) => t.arm === "candidate")).toLocaleString("en-US")} left.`,
  );
});
