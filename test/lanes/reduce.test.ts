// The lanes history reduced and judged, on a fixture of 3 days × 4 windows × 2
// lanes (test/fixtures/lanes-history.jsonl) whose answer is known: the free
// hosted lane fails its floor at 16:00 on two of the days and graduates; the
// own GPU passes everywhere with 1 % retries and is chosen; one change makes
// it hold, two days make it wait for a third.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { type HistoryRow, parseHistory, toCsv } from "../../src/lanes/history.ts";
import { DEFAULT_RULE, reduceHistory } from "../../src/lanes/reduce.ts";
import { renderLanesMarkdown } from "../../src/report/lanes-markdown.ts";
import { tableProblems } from "../helpers/gfm.ts";

const HISTORY = join(import.meta.dirname, "../fixtures/lanes-history.jsonl");
const rows = () => parseHistory(readFileSync(HISTORY, "utf8"), HISTORY);

test("each burst: pass rate against the floor, p90 of the ok latencies, retries, failures by class", () => {
  const r = reduceHistory(rows());
  assert.equal(r.bursts.length, 24, "2 lanes × 4 windows × 3 days");
  assert.equal(r.off_window_rows, 8, "the burst run by hand at 12:31 is kept, not judged");
  const b = r.bursts.find(
    (x) => x.lane === "free-hosted" && x.window === "16:00" && x.date === "2026-11-16",
  );
  assert.deepEqual(b && { ...b, started_at: undefined }, {
    lane: "free-hosted",
    window: "16:00",
    date: "2026-11-16",
    started_at: undefined,
    requests: 8,
    passed: 5,
    pass_rate: 5 / 8,
    // 7 ok requests: their p90 is the slowest, 31,006 ms (8 requests catch trouble, not a tail).
    p90_ms: 31006,
    retry_rate: 2 / 8,
    failures: { overloaded: 1 },
    failed_attempts: { overloaded: 3 },
  });
  const quota = r.bursts.find(
    (x) => x.lane === "free-hosted" && x.window === "16:00" && x.date === "2026-11-17",
  );
  assert.deepEqual(
    quota?.failures,
    { rate_limited_quota: 2 },
    "the quota's refusals, apart from a full lane",
  );
});

test("the rule: graduate the lane that fails its busy hour on 2 of 3 days, choose the one that never does", () => {
  const [free, own] = reduceHistory(rows()).lanes.sort((a, b) => a.lane.localeCompare(b.lane));
  assert.equal(free?.verdict, "graduate");
  assert.equal(
    free?.why,
    "its busiest burst passed under 80 % on 2 of 3 days (2026-11-16, 2026-11-17; busiest window 16:00, 79 %)",
  );
  assert.equal(free?.busiest_window, "16:00");
  assert.equal(free?.retry_rate, 4 / 96);
  assert.deepEqual(free?.worst_burst, { window: "16:00", date: "2026-11-16", pass_rate: 0.625 });
  assert.equal(own?.verdict, "choose");
  assert.equal(own?.busiest_window, "14:00", "every window passes: the slowest is the busiest");
  assert.equal(
    own?.why,
    "its busiest burst (14:00 on 2026-11-16) passed 100 %, at least 90 %, and retries were 1 % over 3 days, under 5 %",
  );
  assert.deepEqual(own?.days, ["2026-11-16", "2026-11-17", "2026-11-18"]);
});

test("one slow request makes the chosen lane hold; two days are not enough to choose", () => {
  const changed = rows().map(
    (r): HistoryRow =>
      r.lane === "own-gpu" && r.window === "09:00" && r.local_date === "2026-11-17" && r.index === 3
        ? { ...r, full_answer_ms: 26000, passed: false }
        : r,
  );
  const own = reduceHistory(changed).lanes.find((l) => l.lane === "own-gpu");
  assert.equal(own?.verdict, "hold");
  assert.equal(
    own?.why,
    "its busiest burst (09:00 on 2026-11-17) passed 88 %, under 90 %; not bad enough to graduate",
  );
  const twoDays = rows().filter((r) => r.local_date !== "2026-11-18");
  const lanes = reduceHistory(twoDays).lanes;
  const ownTwo = lanes.find((l) => l.lane === "own-gpu");
  assert.equal(ownTwo?.verdict, "hold");
  assert.equal(ownTwo?.enough_days, false);
  assert.match(ownTwo?.why ?? "", /^2 days of 3 measured: not enough days yet/);
  assert.equal(
    lanes.find((l) => l.lane === "free-hosted")?.verdict,
    "graduate",
    "2 bad days of 2 already decide",
  );
  // The rule's thresholds are the file's: a laxer graduation keeps the free lane on hold.
  const lax = reduceHistory(rows(), { ...DEFAULT_RULE, graduate_below_pass: 0.6 }).lanes;
  assert.equal(lax.find((l) => l.lane === "free-hosted")?.verdict, "hold");
});

test("the report: verdicts, a chart of pass rate by window per lane, every burst in a table; the CSV export", () => {
  const md = renderLanesMarkdown(reduceHistory(rows()));
  assert.deepEqual(tableProblems(md), []);
  assert.match(md, /\| ⬆️ free-hosted \| \*\*graduate\*\* \|/);
  assert.match(md, /\| ✅ own-gpu \| \*\*choose\*\* \|/);
  assert.match(md, /x-axis "window" \["09:00", "11:00", "14:00", "16:00"\]/);
  assert.match(md, /line \[100, 100, 100, 79\]/, "free-hosted: 19 of 24 at 16:00");
  assert.match(md, /line \[100, 100, 100, 100\]/);
  assert.match(
    md,
    /\| free-hosted \| 16:00 \| 2026-11-16 \| 5\/8 \(63 %\) \| 31006 \| 25 % \| overloaded 1 \| overloaded 3 \|/,
  );
  assert.match(md, /not a p99: with 8 requests the p90 is their slowest/);
  assert.match(md, /8 requests ran outside every window and are not judged/);
  const csv = toCsv(rows()).split("\n");
  assert.equal(
    csv[0],
    "lane,window,local_date,local_time,started_at,index,outcome,ttft_ms,full_answer_ms,floor_ms,passed,attempts,failed_attempts",
  );
  assert.equal(csv.length, 202, "a header, 200 rows, the final newline");
});

test("a history row of the wrong shape is named by line and field, not read as a pass", () => {
  const line = readFileSync(HISTORY, "utf8").split("\n")[0] ?? "";
  const row = JSON.parse(line);
  const bad: [Record<string, unknown>, RegExp][] = [
    [{ ...row, passed: "false" }, /line 2 is not a .* row: \/passed must be boolean/],
    [
      { ...row, outcome: "teapot" },
      /line 2 is not a .* row: \/outcome must be equal to one of the allowed values/,
    ],
    [{ ...row, ttft_ms: "slow" }, /line 2 is not a .* row: \/ttft_ms must be number,null/],
    [
      { ...row, floor: undefined },
      /line 2 is not a .* row: the row must have required property 'floor'/,
    ],
  ];
  for (const [r, message] of bad)
    assert.throws(() => parseHistory(`${line}\n${JSON.stringify(r)}\n`, "h.jsonl"), message);
});
