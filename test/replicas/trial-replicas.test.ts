// The replica count beside a real trial against a fleet mock: sampled on the
// trial's clock into its timeline (one thread or workers), each replica's
// first answer from the replica header; a source that prints nonsense named
// in the report, the timeline without a count.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { RawSettings } from "../../src/config/settings.ts";
import { parseTrialOptions } from "../../src/config/trial.ts";
import { type MockServer, startMockServer } from "../../src/mock/server.ts";
import { measureTrial } from "../../src/trial/trial.ts";
import { LOAD_TEST, quickProfile } from "../helpers/mock.ts";

let mock: MockServer;
before(async () => {
  mock = await startMockServer({
    profile: quickProfile({ fleetReplicas: 2, fleetMaxReplicas: 2, decodeBaseMs: 5 }),
  });
});
after(async () => {
  await mock.close();
});

const options = (extra: RawSettings) =>
  parseTrialOptions({
    url: `${mock.url}/v1`,
    model: "mock-llm",
    rate: "20",
    duration: "3s",
    warmup: "0s",
    "input-len": "16",
    "output-len": "8",
    timeout: "5s",
    "replicas-source": "metric:replicas",
    "replica-header": "X-Replica",
    ...extra,
  });

for (const workers of ["1", "2"]) {
  test(
    `the count on the timeline, each replica's first answer (${workers} worker${workers === "1" ? "" : "s"})`,
    LOAD_TEST,
    async () => {
      const report = await measureTrial(options({ workers }), {});
      assert.deepEqual(report.replicas?.error, null);
      assert.equal(report.replicas?.source, "metric:replicas");
      const counts = report.timeline?.buckets.flatMap((b) =>
        b.replicas === undefined ? [] : [b.replicas],
      );
      assert.ok((counts?.length ?? 0) >= 2, JSON.stringify(report.timeline));
      assert.ok(counts?.every((c) => c === 2));
      const first = report.timeline?.first_served ?? [];
      assert.deepEqual(first.map((f) => f.replica).sort(), ["r0", "r1"]);
      assert.ok(first.every((f) => f.t_s >= 0 && f.t_s < 3 && f.ttft_ms > 0));
      assert.ok(report.timeline?.buckets.some((b) => b.serving === 2));
    },
  );
}

test(
  "a source that prints nonsense is named once in the report; the timeline has no count",
  LOAD_TEST,
  async () => {
    // The claim is that the source's failure does not invalidate the trial; a busy machine's
    // (or the command's own start's) late sends are the self-checks' business, not this test's.
    const report = await measureTrial(
      options({
        "replicas-source": "cmd:echo banana",
        "max-skew-effect": "100%",
        "max-late-sends": "100%",
        "max-offered-drift": "100%",
        "max-event-loop-delay-ms": "500",
      }),
      {},
    );
    assert.equal(report.replicas?.samples, 0);
    assert.equal(
      report.replicas?.error,
      'the replicas source cmd:echo … printed "banana", not an integer',
    );
    assert.ok(report.timeline?.buckets.every((b) => b.replicas === undefined));
    assert.equal(report.validity.valid, true, report.validity.reasons.join("; "));
  },
);
