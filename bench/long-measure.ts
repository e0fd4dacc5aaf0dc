// A long measurement with the requests file on, against bench/fast-server.ts
// (a process of its own). The trial runs in this process so that its live
// heap can be read: every 250 ms the heap in use is sampled, and the lowest
// sample of each minute — right after a collection — is the live memory.
// Per-request state lives only while a request is in flight; the requests
// file streams; the timeline keeps a bounded sample per bucket: the live heap
// must stay flat. RSS is shown too (it also holds what V8 has not returned).
//
//   node_modules/.bin/node bench/long-measure.ts [minutes, default 30] [rate, default 50]

import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseTrialOptions } from "../src/config/trial.ts";
import { RequestsFile } from "../src/requests/file.ts";
import { measureTrial } from "../src/trial/trial.ts";
import { startFastServer } from "./fast-server-process.ts";

const MINUTES = Number(process.argv[2] ?? 30);
const RATE = Number(process.argv[3] ?? 50);

const server = await startFastServer(64, 1);
const dir = mkdtempSync(join(tmpdir(), "lpg-long-"));
const path = join(dir, "requests.jsonl.gz");
const file = RequestsFile.open("requests-path", path, (t) => t);
const tag = { trial: 1, label: "measure", arm: null, pair: null, attempt: null };
const options = parseTrialOptions({
  url: `${server.url}/v1`,
  model: "fast",
  rate: String(RATE),
  duration: `${MINUTES}m`,
  warmup: "5s",
  "input-len": "64",
  "output-len": "64",
  "metrics-url": "none",
});

const minutes: { heapMinMb: number; rssMb: number }[] = [];
const started = performance.now();
const sampler = setInterval(() => {
  const minute = Math.floor((performance.now() - started) / 60_000);
  const { heapUsed, rss } = process.memoryUsage();
  const m = minutes[minute] ?? { heapMinMb: Infinity, rssMb: 0 };
  minutes[minute] = m;
  m.heapMinMb = Math.min(m.heapMinMb, heapUsed / 2 ** 20);
  m.rssMb = rss / 2 ** 20;
}, 250);

const report = await measureTrial(options, {
  onRequestLine: (r, at) => file.add(tag, r, at),
});
clearInterval(sampler);
const written = await file.close();
server.stop();

console.log(`# measure, ${MINUTES} min at ${RATE} req/s, requests file and timeline on\n`);
console.log(
  `scheduled ${report.scheduled}, ok ${report.outcomes.ok}, valid ${report.validity.valid}; ${written.lines} lines (${written.dropped} dropped), ${(statSync(path).size / 1e6).toFixed(1)} MB gzipped; timeline ${report.timeline?.buckets.length} buckets of ${report.timeline?.bucket_s} s\n`,
);
console.log("| minute | live heap MB (lowest sample) | RSS MB (end of minute) |\n|--:|--:|--:|");
const marks = new Set([1, 2, 5, 10, 15, 20, 25, MINUTES - 1]);
for (const [i, m] of minutes.entries())
  if (m && marks.has(i))
    console.log(`| ${i} | ${m.heapMinMb.toFixed(1)} | ${m.rssMb.toFixed(1)} |`);
const after = minutes.slice(2).filter(Boolean);
const heaps = after.map((m) => m.heapMinMb);
console.log(
  `\nfrom minute 2 on: live heap ${Math.min(...heaps).toFixed(1)}–${Math.max(...heaps).toFixed(1)} MB`,
);
