// A machine's clock against a server's Date header, and the merge's check of
// the shards' clocks: the bracket around the header's change, a skew beyond
// the limit a guard, one within it or within the brackets a note.

import assert from "node:assert/strict";
import { test } from "node:test";
import { offsetOf } from "../../src/shard/clock.ts";
import { clockCheck, MAX_CLOCK_SKEW_MS } from "../../src/shard/merge.ts";
import type { ShardSection } from "../../src/shard/section.ts";

const SECOND = Date.parse("2026-12-02T15:00:01Z");

test("the Date second's change brackets the server's clock: the offset is its middle, within half its width", () => {
  // This clock is 120 ms ahead: the server's second 15:00:01 began at local 15:00:01.120.
  const at = (sentMs: number, receivedMs: number) => ({
    sentMs: SECOND + sentMs,
    receivedMs: SECOND + receivedMs,
    dateMs: sentMs - 120 >= 0 ? SECOND : SECOND - 1000,
  });
  const reading = offsetOf([at(100, 101), at(110, 111), at(121, 122), at(130, 131)]);
  assert.equal(reading.offset_ms, -(110 + 122) / 2);
  assert.equal(reading.within_ms, 6);
  assert.ok(Math.abs((reading.offset_ms ?? 0) + 120) <= (reading.within_ms ?? 0));
  assert.equal(reading.note, null);
  assert.equal(offsetOf([at(0, 1), at(10, 11)]).offset_ms, null);
});

const section = (index: number, offsetMs: number | null, withinMs = 2): ShardSection => ({
  schema: "llm-perf-gate/shard@2",
  plan_hash: "x",
  index,
  count: 3,
  start_at: "2026-12-02T15:00:00.000Z",
  slot_s: 5,
  trials: [],
  skipped: [],
  stopped: null,
  clock: {
    offset_ms: offsetMs,
    within_ms: offsetMs === null ? null : withinMs,
    samples: 30,
    note: offsetMs === null ? "no change of the Date second was seen" : null,
  },
});

test("shards' clocks further apart than the limit (beyond their brackets) are a guard naming both", () => {
  const apart = clockCheck([section(0, 3), section(1, 3 + MAX_CLOCK_SKEW_MS + 10), section(2, 5)]);
  assert.equal(apart.guard?.code, "clock_skew");
  assert.match(
    apart.guard?.message ?? "",
    /shard 0\/3's clock is 60 ms \(± 4 ms\) ahead of shard 1\/3's/,
  );
  // Within the limit once the brackets are counted: no guard, the skew said.
  const close = clockCheck([section(0, 0, 6), section(1, MAX_CLOCK_SKEW_MS + 10, 6)]);
  assert.equal(close.guard, null);
  assert.match(close.note, /within 60 ms \(± 12 ms\)/);
  // The clocks read are compared; one not read is said.
  const unread = clockCheck([section(0, 0), section(1, null), section(2, 1)]);
  assert.equal(unread.guard, null);
  assert.match(
    unread.note,
    /within 1 ms \(± 4 ms\).*; not read on shard 1\/3 \(no change of the Date second was seen\)/,
  );
  assert.match(
    clockCheck([section(0, 0), section(1, null)]).note,
    /were not compared; not read on shard 1\/3/,
  );
});
