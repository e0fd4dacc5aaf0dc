import assert from "node:assert/strict";
import { test } from "node:test";
import { newRecord, type RequestRecord } from "../../src/load/record.ts";
import { StopSampler } from "../../src/stress/stop-sample.ts";

function ended(index: number, finish = "stop", usage: number | undefined = 50): RequestRecord {
  const r = newRecord(index, false, 0, 1000, undefined);
  r.outcome = "ok";
  r.finishReason = finish;
  r.usageCompletionTokens = usage;
  return r;
}

test("the sample: the same requests whatever order they ended in, only stops with usage", () => {
  const records = Array.from({ length: 200 }, (_, i) => ended(i));
  const take = (order: RequestRecord[]) => {
    const s = new StopSampler(20, 7);
    for (const r of order) s.add("candidate", 3, r);
    s.add("candidate", 3, ended(500, "length"));
    s.add("candidate", 3, ended(501, "stop", undefined));
    s.commit();
    return s.samples().candidate.map((x) => x.index);
  };
  const forward = take(records);
  assert.equal(forward.length, 20);
  assert.deepEqual(take([...records].reverse()), forward);
  assert.ok(
    forward.every((i) => i < 200),
    "no length ending, no answer without usage",
  );
});

test("a discarded attempt samples nothing; a kept one joins", () => {
  const s = new StopSampler(5, 1);
  s.add("baseline", 0, ended(1));
  s.discard();
  assert.deepEqual(s.samples().baseline, []);
  s.add("baseline", 1, ended(2));
  s.commit();
  assert.deepEqual(s.samples().baseline, [{ promptRound: 1, index: 2, tokens: 50 }]);
});
