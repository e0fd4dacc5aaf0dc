// A sharded gate on this machine against the single run of the same plan:
// two mocks in processes of their own, the plan run once by one process and
// once by N shard processes at one start, then merged. Prints, per arm, the
// percentiles pooled over its trials for both runs (other requests measured
// at another time: they differ by the machine's noise), and checks the merge
// is exact: each merged trial's histogram against the union of its shards'.
// The second run meets servers warmed by the first: run it both ways round.
// Usage: node bench/shards.ts [shards=3] [rate=15] [duration=10s] [single-first|shards-first]

import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMockProcess } from "../src/commands/demo.ts";
import { LatencyHistogram } from "../src/metrics/histogram.ts";
import type { GateResults } from "../src/results/model.ts";
import { CLI, flagsOf, runCliProcess } from "../test/helpers/cli.ts";

const shardCount = Number(process.argv[2] ?? 3);
const rate = process.argv[3] ?? "15";
const duration = process.argv[4] ?? "10s";
const shardsFirst = process.argv[5] === "shards-first";

const PLAN = {
  model: "mock-llm",
  rate,
  duration,
  warmup: "1s",
  timeout: "3s",
  "input-len": "128",
  "output-len": "64",
  "ignore-eos": "true",
  slo: "ttft:1000 tpot:100",
  seed: "5",
  trials: "2",
  "max-trials": "2",
  "max-reruns": "0",
  cooldown: "0",
  "quality-suite": "none",
  accuracy: "none",
  contract: "none",
  comment: "never",
};

const read = (path: string) => JSON.parse(readFileSync(path, "utf8")) as GateResults;

function pooled(r: GateResults, arm: string, key: "ttft_us" | "itl_us", p: number): number {
  const h = new LatencyHistogram();
  for (const t of r.trials.filter((x) => x.arm === arm))
    h.add(LatencyHistogram.fromReport(t.report.histograms[key], t.report.metrics.ttft_ms, 0));
  return h.hdr.getValueAtPercentile(p) / 1000;
}

const baseline = await startMockProcess([process.execPath, CLI], []);
const candidate = await startMockProcess([process.execPath, CLI], ["decodeScale=1.3"]);
const dir = mkdtempSync(join(tmpdir(), "lpg-bench-shards-"));
const settings = {
  ...PLAN,
  "baseline-url": `${baseline.url}/v1`,
  "candidate-url": `${candidate.url}/v1`,
};
const gate = (extra: Record<string, string>) =>
  runCliProcess(["gate", ...flagsOf({ ...settings, ...extra })], 600_000);
try {
  const shardDir = join(dir, "shards");
  mkdirSync(shardDir);
  const runShards = () => {
    const startAt = new Date(Date.now() + 6_000).toISOString();
    return Promise.all(
      Array.from({ length: shardCount }, (_, i) =>
        gate({
          shard: `${i}/${shardCount}`,
          "start-at": startAt,
          "results-path": join(shardDir, `${i}.json`),
        }),
      ),
    );
  };
  const runSingle = () => gate({ "results-path": join(dir, "single.json") });
  if (shardsFirst) await runShards().then(runSingle);
  else await runSingle().then(runShards);
  await gate({ "merge-from": shardDir, "results-path": join(dir, "merged.json") });
  const [single, merged] = [read(join(dir, "single.json")), read(join(dir, "merged.json"))];
  const shards = Array.from({ length: shardCount }, (_, i) => read(join(shardDir, `${i}.json`)));
  console.log(
    `${shardCount} shards, ${rate} req/s, ${duration} windows, 2 pairs, ${shardsFirst ? "shards" : "single"} first; verdict single ${single.verdict}, merged ${merged.verdict}`,
  );
  console.log("arm        metric   p      single ms  merged ms");
  for (const arm of ["baseline", "candidate"])
    for (const key of ["ttft_us", "itl_us"] as const)
      for (const p of [50, 95, 99])
        console.log(
          `${arm.padEnd(10)} ${key.padEnd(8)} p${String(p).padEnd(5)} ${pooled(single, arm, key, p).toFixed(3).padStart(9)}  ${pooled(merged, arm, key, p).toFixed(3).padStart(9)}`,
        );
  let worst = 0;
  for (const [k, t] of merged.trials.entries())
    for (const key of ["ttft_us", "itl_us", "e2el_us", "tpot_us"] as const) {
      const union = new LatencyHistogram();
      for (const s of shards) {
        const part = s.trials[k]?.report.histograms[key];
        if (part) union.add(LatencyHistogram.fromReport(part, t.report.metrics.ttft_ms, 0));
      }
      const mine = LatencyHistogram.fromReport(
        t.report.histograms[key],
        t.report.metrics.ttft_ms,
        0,
      );
      for (const p of [50, 90, 95, 99, 99.9])
        worst = Math.max(
          worst,
          Math.abs(union.hdr.getValueAtPercentile(p) - mine.hdr.getValueAtPercentile(p)),
        );
    }
  console.log(
    `merged vs the union of the shards' histograms: largest percentile difference ${worst} µs`,
  );
  console.log(
    `scheduled per trial: single ${single.trials.map((t) => t.report.scheduled).join(" ")}, merged ${merged.trials.map((t) => t.report.scheduled).join(" ")}`,
  );
} finally {
  await Promise.all([baseline.stop(), candidate.stop()]);
}
