// The requests file: one line per measured request, written as the trials
// run — the line itself, and the file (formats, gzip, a slow disk, an
// unwritable path). gate.test.ts checks a real gate's file.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { test } from "node:test";
import { gunzipSync } from "node:zlib";
import { Ajv2020 } from "ajv/dist/2020.js";
import schema from "../../schemas/requests.schema.json" with { type: "json" };
import { newRecord } from "../../src/load/record.ts";
import {
  CSV_HEADER,
  csvRow,
  MAX_BUFFERED_BYTES,
  RequestsFile,
  requestsFormat,
} from "../../src/requests/file.ts";
import {
  ERROR_EXCERPT_CHARS,
  REQUEST_COLUMNS,
  type RequestLine,
  requestLine,
  type TrialContext,
  type TrialTag,
} from "../../src/requests/line.ts";

const TAG: TrialTag = { trial: 3, label: "pair 2", arm: "candidate", pair: 2, attempt: 0 };
const AT: TrialContext = {
  startMs: 1000,
  startUnixMs: 1_700_000_000_000,
  slo: { ttftMs: 100 },
  session: 7,
  turn: 0,
  requestedOutputTokens: 16,
  intendedPromptTokens: 32,
};

/** A request due 50 ms into the trial that streamed 4 chunks. */
function okRecord() {
  const r = newRecord(7, false, 1050, 61_050, undefined);
  Object.assign(r, {
    dispatchMs: 1050.5,
    headersMs: 1060,
    firstByteMs: 1061,
    firstOutputMs: 1120.0004,
    lastOutputMs: 1150,
    endMs: 1151,
    status: 200,
    outputChunks: 4,
    gapsMs: [10, 5, 15],
    usageCompletionTokens: 4,
    usagePromptTokens: 33,
    finishReason: "length",
    sawDone: true,
    outcome: "ok",
  });
  return r;
}

const validate = new Ajv2020({ allErrors: true }).compile(schema);

test("a line: times from the trial's start, latencies from the due time, what did not happen null", () => {
  const line = requestLine(TAG, okRecord(), AT);
  assert.deepEqual(Object.keys(line), [...REQUEST_COLUMNS], "the columns, in order");
  assert.ok(validate(line), JSON.stringify(validate.errors));
  assert.equal(line.scheduled_ms, 50);
  assert.equal(line.sent_ms, 50.5);
  assert.equal(line.send_lag_ms, 0.5);
  assert.equal(line.ttft_ms, 70, "µs precision");
  assert.equal(line.e2el_ms, 101);
  assert.equal(line.tpot_ms, 10.333);
  assert.deepEqual(
    [line.itl_count, line.itl_mean_ms, line.itl_p50_ms, line.itl_max_ms],
    [3, 10, 10, 15],
  );
  assert.equal(line.good, true, "TTFT 70 ms within ttft:100");
  assert.equal(line.error, null);

  const unsent = newRecord(8, false, 1100, 1200, undefined);
  unsent.outcome = "unsent";
  const never = requestLine(TAG, unsent, { ...AT, turn: 1, intendedPromptTokens: null });
  assert.ok(validate(never), JSON.stringify(validate.errors));
  for (const k of ["sent_ms", "first_token_ms", "end_ms", "ttft_ms", "e2el_ms", "tpot_ms"] as const)
    assert.equal(never[k], null, k);
  assert.equal(never.good, null, "only an ok request can be good");
});

test("a line's error is a bounded excerpt; a slow ok request is not good", () => {
  const r = okRecord();
  Object.assign(r, { outcome: "http_5xx", status: 503, body: "x".repeat(5000) });
  const failed = requestLine(TAG, r, AT);
  assert.equal(String(failed.error).length, ERROR_EXCERPT_CHARS);
  assert.equal(failed.tpot_ms, null, "TPOT is an ok request's");
  const slow = requestLine(TAG, { ...okRecord(), firstOutputMs: 1200 }, AT);
  assert.equal(slow.good, false, "TTFT 150 ms misses ttft:100");
  // itl: the request's mean gap between output chunks (10 ms here).
  assert.equal(requestLine(TAG, okRecord(), { ...AT, slo: { itlMs: 10 } }).good, true);
  assert.equal(requestLine(TAG, okRecord(), { ...AT, slo: { itlMs: 9.9 } }).good, false);
});

test("CSV: the header is the columns; quotes, commas and newlines quoted; a formula defused", () => {
  assert.equal(CSV_HEADER, REQUEST_COLUMNS.join(","));
  const line = requestLine(TAG, okRecord(), AT);
  const hostile: RequestLine = { ...line, error: '=HYPERLINK("http://x","y"),\nz', label: "-1" };
  const row = csvRow(hostile);
  assert.match(row, /,"'=HYPERLINK\(""http:\/\/x"",""y""\),\nz"$/);
  assert.match(row, /^3,'-1,candidate,2,0,7,/);
  assert.match(csvRow(line), /,,/, "null is an empty field");
});

test("the name says the format; anything else is refused by name", () => {
  assert.deepEqual(requestsFormat("requests-path", "a/r.jsonl"), { format: "jsonl", gzip: false });
  assert.deepEqual(requestsFormat("requests-path", "r.csv.gz"), { format: "csv", gzip: true });
  assert.throws(
    () => requestsFormat("requests-path", "r.json"),
    /requests-path = "r\.json": the name must end in \.jsonl, \.jsonl\.gz, \.csv or \.csv\.gz/,
  );
  assert.throws(
    () => RequestsFile.open("requests-path", "/nonexistent-dir/r.jsonl", (t) => t),
    /requests-path = "\/nonexistent-dir\/r\.jsonl" cannot be written: ENOENT/,
  );
});

test("the file: gzip and CSV as named, secrets redacted, every line flushed at close", async () => {
  const dir = mkdtempSync(join(tmpdir(), "lpg-requests-"));
  const redact = (t: string) => t.replaceAll("sk-secret", "***");
  const r = okRecord();
  Object.assign(r, { outcome: "http_4xx", status: 401, body: "bad key sk-secret" });
  for (const name of ["r.jsonl", "r.csv.gz"]) {
    const path = join(dir, name);
    const file = RequestsFile.open("requests-path", path, redact);
    for (let i = 0; i < 1000; i++) file.write(requestLine(TAG, r, AT));
    const summary = await file.close();
    assert.deepEqual(
      { lines: summary.lines, dropped: summary.dropped, error: summary.error },
      { lines: 1000, dropped: 0, error: null },
    );
    const bytes = readFileSync(path);
    const text = (name.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
    const rows = text.trimEnd().split("\n");
    assert.equal(rows.length, name.endsWith(".csv.gz") ? 1001 : 1000);
    assert.doesNotMatch(text, /sk-secret/);
    assert.match(text, /bad key \*\*\*/);
  }
});

test("a secret across the excerpt's cut, or with a quote in it, is redacted whole", async () => {
  const secret = 'sk-"quoted"-0123456789abcdef';
  const redact = (t: string) => t.replaceAll(secret, "***");
  const lines: string[] = [];
  const disk = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const file = RequestsFile.open("requests-path", "r.jsonl", redact, () => disk);
  const r = okRecord();
  Object.assign(r, { outcome: "http_4xx", status: 401, body: `${"x".repeat(190)}${secret}` });
  file.add(TAG, r, AT);
  await file.close();
  const text = lines.join("");
  assert.doesNotMatch(text, /sk-|0123456789/);
  assert.match(text, /x{190}\*\*\*/);
});

test("a disk that does not keep up: lines are dropped and counted, memory stays bounded", async () => {
  let stalled: (() => void) | undefined;
  let flowing = false;
  const disk = new Writable({
    write(_chunk, _encoding, done) {
      if (flowing) done();
      else stalled = done;
    },
  });
  const file = RequestsFile.open(
    "requests-path",
    "r.jsonl",
    (t) => t,
    () => disk,
  );
  const line = requestLine(TAG, okRecord(), AT);
  const lineBytes = JSON.stringify(line).length + 1;
  const fits = Math.ceil(MAX_BUFFERED_BYTES / lineBytes);
  for (let i = 0; i < fits + 500; i++) file.write(line);
  assert.ok(disk.writableLength <= MAX_BUFFERED_BYTES + lineBytes, "never more than the cap held");
  // The disk catches up: what was kept is written, the rest counted.
  flowing = true;
  stalled?.();
  const summary = await file.close();
  assert.equal(summary.lines + summary.dropped, fits + 500);
  assert.ok(summary.dropped >= 499, `dropped ${summary.dropped}`);
});
