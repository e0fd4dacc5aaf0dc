// Trace replay: the three public formats from small files written to their
// documented columns, replayed offsets equal to the trace's (scaled), and bad
// rows named by file, line and field.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { InputError } from "../../src/common/errors.ts";
import { parseTrialOptions } from "../../src/config/trial.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { measureTrial } from "../../src/trial/trial.ts";
import { describeArrivals } from "../../src/workload/arrivals.ts";
import { buildWorkload } from "../../src/workload/plan.ts";
import { messagesFor } from "../../src/workload/prompts.ts";
import { parseTrace } from "../../src/workload/trace.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

const FIXTURES = join(import.meta.dirname, "../fixtures");
const read = (name: string) => readFileSync(join(FIXTURES, name), "utf8");

test(
  "the three formats: times from the first row, lengths, and Mooncake's blocks",
  LOAD_TEST,
  () => {
    const azure = parseTrace(read("azure-llm-trace.csv"), "azure.csv", "auto");
    assert.equal(azure.format, "azure");
    assert.deepEqual(
      azure.rows.map((r) => [Math.round(r.offsetMs * 1000) / 1000, r.inputTokens, r.outputTokens]),
      [
        [0, 374, 44],
        [4314.579, 396, 109],
        [4320.41, 879, 17],
        [6569.41, 91, 33],
        [11319.415, 1203, 8],
      ],
    );
    const mooncake = parseTrace(read("mooncake-trace.jsonl"), "m.jsonl", "auto");
    assert.equal(mooncake.format, "mooncake");
    assert.deepEqual(
      mooncake.rows.map((r) => [r.offsetMs, r.inputTokens, r.outputTokens, r.hashIds]),
      [
        [0, 1100, 52, [0, 1, 2]],
        [0, 1300, 20, [0, 1, 3]],
        [3052, 600, 31, [0, 4]],
        [4150, 300, 12, [5]],
      ],
    );
    const burst = parseTrace(read("burstgpt-trace.csv"), "b.csv", "auto");
    assert.equal(burst.format, "burstgpt");
    assert.deepEqual(
      burst.rows.map((r) => [r.offsetMs, r.inputTokens, r.outputTokens]),
      [
        [0, 472, 18],
        [40_000, 1087, 247],
        [113_000, 417, 0],
        [115_000, 1005, 281],
      ],
    );
  },
);

test("bad rows name the file, the line and the field", LOAD_TEST, () => {
  const bad = (
    content: string,
    format: "auto" | "azure" | "mooncake" | "burstgpt",
    message: RegExp,
  ) =>
    assert.throws(
      () => parseTrace(content, "t", format),
      (e: unknown) => e instanceof InputError && message.test(e.message),
    );
  bad(
    "TIMESTAMP,ContextTokens,GeneratedTokens\nyesterday,1,2\n",
    "auto",
    /^trace t: line 2: TIMESTAMP = "yesterday" is not accepted/,
  );
  bad(
    "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.1,x,2\n",
    "auto",
    /line 2: ContextTokens = "x" is not accepted; expected a whole number/,
  );
  bad(
    '{"timestamp": 0, "input_length": 5, "output_length": 1}\n{"timestamp": -3, "input_length": 5, "output_length": 1}\n',
    "auto",
    /line 2: timestamp = -3 is not accepted/,
  );
  bad(
    '{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": ["a"]}\n',
    "mooncake",
    /line 1: hash_ids = \["a"\] is not accepted/,
  );
  bad("Timestamp,Model,Request tokens\n1,x,5\n", "burstgpt", /line 2: no Response tokens column/);
  // Out of time order, or a time no trace has: refused, not sorted or replayed for centuries.
  bad(
    "Timestamp,Model,Request tokens,Response tokens\n1.5,x,5,1\n0.2,x,5,1\n1.0,x,5,1\n",
    "burstgpt",
    /^trace t: line 3: Timestamp is 1.3 s before line 2's: a trace is replayed in its time order/,
  );
  bad(
    '{"timestamp": 0, "input_length": 5, "output_length": 1}\n{"timestamp": 1e300, "input_length": 5, "output_length": 1}\n',
    "mooncake",
    /line 2: timestamp is 1e\+300 ms from zero, not accepted; expected at most 10000000000000 ms/,
  );
  bad(
    "a,b\n1,2\n",
    "auto",
    /its format is not recognised from its first line; set trace-format to one of azure, mooncake, burstgpt/,
  );
});

test(
  "a replay: the trace's offsets from trace-start, scaled; lengths from the rows; shared blocks shared",
  LOAD_TEST,
  () => {
    const files: Record<string, string> = { "m.jsonl": read("mooncake-trace.jsonl") };
    const options = (extra: Record<string, string>) =>
      parseTrialOptions(
        {
          url: "http://127.0.0.1:1/v1",
          model: "m",
          trace: "m.jsonl",
          warmup: "0s",
          duration: "10s",
          ...extra,
        },
        {},
        (p) => files[p] as string,
      );
    const w = buildWorkload(options({}).workload);
    assert.deepEqual([...w.offsetsMs], [0, 0, 3052, 4150]);
    assert.deepEqual([...w.inputTokens], [1100, 1300, 600, 300]);
    assert.deepEqual([...w.maxTokens], [52, 20, 31, 12]);
    // Twice as fast (time × 0.5), from 3 s into the trace.
    const fast = buildWorkload(options({ "time-scale": "0.5", "trace-start": "3s" }).workload);
    assert.deepEqual([...fast.offsetsMs], [26, 575]);
    const text = (i: number) => messagesFor(w, i)[0]?.content as string;
    assert.equal(text(0).length, 4 * 1100);
    // Blocks 0 and 1 (1,024 tokens) are shared by the first two requests; block 0 by the third.
    assert.equal(text(0).slice(0, 4096), text(1).slice(0, 4096));
    assert.notEqual(text(0).slice(4096), text(1).slice(4096, 4400));
    assert.equal(text(2).slice(0, 2048), text(0).slice(0, 2048));
    assert.notEqual(text(3).slice(0, 2048), text(0).slice(0, 2048));
    assert.match(
      describeArrivals(options({}).workload.arrival),
      /^trace m\.jsonl, time × 1 \(≈ 0\.4 req\/s\)$/,
    );
    // A cap, and a window the trace does not reach.
    assert.equal(buildWorkload(options({ "max-requests": "2" }).workload).offsetsMs.length, 2);
    assert.throws(
      () => options({ "trace-start": "60s" }),
      /no row between trace-start 60 s and the trial's end/,
    );
    assert.throws(
      () => options({ rate: "5" }),
      /rate = 5 is not used with a trace: its rows give the arrivals/,
    );
    assert.throws(
      () =>
        parseTrialOptions({
          url: "http://127.0.0.1:1/v1",
          model: "m",
          rate: "1",
          "time-scale": "2",
        }),
      /time-scale = 2 is used only with a trace/,
    );
  },
);

test(
  "a Mooncake trace replayed against the mock: every row sent on time, its shared blocks hit the cache",
  LOAD_TEST,
  async () => {
    const server = await startMockServer();
    try {
      const options = parseTrialOptions(
        {
          url: `${server.url}/v1`,
          model: "mock-llm",
          trace: "m.jsonl",
          "time-scale": "0.1",
          warmup: "0s",
          duration: "1s",
          "max-skew-effect": "50%",
          "max-late-sends": "50%",
        },
        {},
        () => read("mooncake-trace.jsonl"),
      );
      const report = await measureTrial(options);
      assert.equal(report.scheduled, 4);
      assert.equal(report.outcomes.ok, 4);
      assert.match(report.workload.arrival, /^trace m\.jsonl, time × 0\.1/);
      assert.equal(report.workload.input_len, "trace");
      // Requests 2 and 3 share blocks 0–1 and 0 with request 1: 1,024 + 512 tokens cached at least.
      assert.ok(
        server.stats().engine.cachedTokens >= 1536,
        `${server.stats().engine.cachedTokens}`,
      );
    } finally {
      await server.close();
    }
  },
);
