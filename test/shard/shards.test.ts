// A sharded gate end to end, in processes of their own: two mocks (the
// candidate decoding 3 times slower), three shard processes running the plan's
// slices at one start, the merge deciding — the same verdict and counts as
// one process running the same plan, the merged histograms exactly the union
// of the shards' (and close to the single run's: they are other requests
// measured at another time). A missing, doubled or foreign shard is an
// `error` naming it.

import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { deflateSync } from "node:zlib";
import { startMockProcess } from "../../src/commands/demo.ts";
import { LatencyHistogram } from "../../src/metrics/histogram.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import type { GateResults } from "../../src/results/model.ts";
import type { ShardSection } from "../../src/shard/section.ts";
import { CLI, flagsOf, runCliProcess } from "../helpers/cli.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

const PLAN = {
  model: "mock-llm",
  rate: "24",
  duration: "1s",
  warmup: "0.5s",
  // Every request must end in time in both runs (their outcomes are compared exactly): one
  // loaded CI run, five processes and another test file on two cores, censored 14 of 24 at 1 s.
  timeout: "3s",
  "input-len": "64",
  "output-len": "16",
  "ignore-eos": "true",
  slo: "ttft:1000 tpot:100",
  seed: "3",
  trials: "4",
  "max-trials": "4",
  "max-reruns": "0",
  cooldown: "0",
  "quality-suite": "none",
  accuracy: "none",
  contract: "none",
  comment: "never",
  // No scrapes: a shorter slot between trials (docs/sharding.md).
  "baseline-metrics-url": "none",
  "candidate-metrics-url": "none",
  // Lateness is not what this is about: five processes share two cores (and on a busy
  // machine, two more): a late trial measures no worse than it is, so it is kept.
  "max-late-sends": "100%",
  "max-skew-effect": "100%",
  "max-event-loop-delay-ms": "200",
  "max-client-cpu": "1",
} as const;

/** An HDR encoding of our histograms' header whose counts are one run of 2^40 empty slots. */
const ZERO_RUN = (() => {
  const inner = Buffer.alloc(48);
  inner.writeInt32BE(0x1c849313, 0);
  inner.writeInt32BE(6, 4);
  inner.writeInt32BE(3, 12);
  inner.writeBigInt64BE(1n, 16);
  inner.writeBigInt64BE(3_600_000_000n, 24);
  let v = 2 ** 41 - 1;
  let at = 40;
  for (; v >= 128; v = Math.floor(v / 128)) inner[at++] = (v % 128) | 0x80;
  inner[at] = v;
  const body = deflateSync(inner);
  const head = Buffer.alloc(8);
  head.writeInt32BE(0x1c849314, 0);
  head.writeInt32BE(body.length, 4);
  return Buffer.concat([head, body]).toString("base64");
})();

const read = (path: string) => JSON.parse(readFileSync(path, "utf8")) as GateResults;

/** The p-th percentile (µs) of the union of encoded histograms. */
function unionPercentile(encoded: string[], p: number): number {
  const h = new LatencyHistogram();
  for (const e of encoded) h.hdr.add(LatencyHistogram.fromReport(e, emptySummary, 0).hdr);
  return h.hdr.getValueAtPercentile(p);
}
const emptySummary = {
  count: 0,
  censored: 0,
  mean: null,
  p50: null,
  p90: null,
  p95: null,
  p99: null,
  p999: null,
  max: null,
  lower_bounds: [],
};

test(
  "three shards merged decide as one process with the same plan; a missing, doubled or foreign shard is an error naming it",
  LOAD_TEST,
  async () => {
    const baseline = await startMockProcess([process.execPath, CLI], []);
    const candidate = await startMockProcess([process.execPath, CLI], ["decodeScale=3"]);
    const dir = mkdtempSync(join(tmpdir(), "lpg-shards-"));
    const settings = {
      ...PLAN,
      "baseline-url": `${baseline.url}/v1`,
      "candidate-url": `${candidate.url}/v1`,
    };
    const gate = (extra: Record<string, string>) =>
      runCliProcess(["gate", ...flagsOf({ ...settings, ...extra })], 150_000);
    try {
      // Time to start three processes and their preflights on a busy machine: a loaded run
      // (two busy loops and another test file) once took 13.7 s, past an 8 s start.
      const startAt = new Date(Date.now() + 25_000).toISOString();
      const shardDir = join(dir, "shards");
      const runs = await Promise.all(
        [0, 1, 2].map((i) => {
          mkdirSync(join(shardDir, `shard-${i}`), { recursive: true });
          return gate({
            shard: `${i}/3`,
            "start-at": startAt,
            "results-path": join(shardDir, `shard-${i}`, "results.json"),
          });
        }),
      );
      for (const r of runs) assert.equal(r.code, 0, r.stderr);
      // Each shard writes its own requests' lines (a field finding: 0 lines on every shard).
      for (const i of [0, 1, 2]) {
        const own = read(join(shardDir, `shard-${i}`, "results.json"));
        const scheduled = own.trials.reduce((n, t) => n + t.report.scheduled, 0);
        assert.ok(
          scheduled > 0 && own.requests_file?.lines === scheduled,
          `shard ${i}: ${own.requests_file?.lines} lines, ${scheduled} scheduled`,
        );
      }
      // Each shard's own file says what it is: a part of a run, decided by the merge.
      assert.match(
        read(join(shardDir, "shard-1", "results.json")).headline,
        /^shard 1\/3 of a sharded run: its trials are a slice of the plan — the merge \(merge-from\) decides/,
      );
      const merged = await gate({
        "merge-from": shardDir,
        "results-path": join(dir, "merged.json"),
      });
      const m = read(join(dir, "merged.json"));
      // The merge names every shard's requests file, in its results and its comment.
      assert.deepEqual(
        m.shard_requests_files?.map((f) => f.lines > 0),
        [true, true, true],
      );
      assert.match(
        renderMarkdown(m, "default"),
        /\*\*Every request:\*\* in each shard's requests file: `results\.requests\.jsonl\.gz` \(\d+ lines\), /,
      );
      const single = await gate({ "results-path": join(dir, "single.json") });
      const s = read(join(dir, "single.json"));
      assert.equal(m.verdict, "fail", merged.stdout + merged.stderr);
      assert.equal(merged.code, 1);
      assert.equal(s.verdict, m.verdict, single.stdout);
      // ITL, the metric the slower decoding moves most: failed by both.
      const itl = (r: GateResults) => r.comparisons.find((c) => c.label === "p95 ITL")?.verdict;
      assert.equal(itl(m), "regressed");
      assert.equal(itl(s), "regressed");
      const shards = [0, 1, 2].map((i) => read(join(shardDir, `shard-${i}`, "results.json")));
      // Each shard read its clock against the baseline mock's Date header; one machine: no skew.
      for (const x of shards)
        assert.notEqual(x.shard?.clock?.offset_ms ?? null, null, x.shard?.clock?.note ?? "");
      assert.match(
        m.warnings.join("\n"),
        /merged from 3 shards .*the shards' clocks are within [\d.]+ ms/,
      );
      assert.equal(m.trials.length, 8);
      for (const [k, t] of m.trials.entries()) {
        const other = s.trials.find((x) => x.pair === t.pair && x.arm === t.arm);
        assert.ok(other);
        assert.equal(t.report.scheduled, other.report.scheduled, `pair ${t.pair} ${t.arm}`);
        assert.deepEqual(t.report.outcomes, other.report.outcomes);
        assert.ok(t.report.validity.valid, t.report.validity.reasons.join("; "));
        // Exact: the merged ITL histogram is the union of the three shards' slices.
        const slices = shards.map((x) => x.trials[k]?.report.histograms.itl_us ?? "");
        for (const p of [50, 95, 99])
          assert.equal(
            Math.min(unionPercentile(slices, p) / 1000, t.report.metrics.itl_ms.max ?? 0),
            t.report.metrics.itl_ms[p === 50 ? "p50" : p === 95 ? "p95" : "p99"],
          );
        // Of the size of the single run's: the same plan measured again, on a machine whose
        // load (and the servers' warmth) moves it by a third (bench/README.md); a merge that
        // lost or doubled gaps would not be.
        const [a, b] = [t.report.metrics.itl_ms.p50 ?? 0, other.report.metrics.itl_ms.p50 ?? 0];
        assert.ok(a / b > 0.5 && a / b < 2, `p50 ITL merged ${a} ms, single ${b} ms`);
        const gaps = shards.reduce(
          (n, x) => n + (x.trials[k]?.report.metrics.itl_ms.count ?? 0),
          0,
        );
        assert.equal(t.report.metrics.itl_ms.count, gaps, "every gap of the slices");
        assert.equal(t.report.metrics.itl_ms.count, other.report.metrics.itl_ms.count);
      }

      // Missing: shard 2's directory left out.
      const partial = join(dir, "partial");
      for (const i of [0, 1]) {
        mkdirSync(join(partial, `shard-${i}`), { recursive: true });
        copyFileSync(
          join(shardDir, `shard-${i}`, "results.json"),
          join(partial, `shard-${i}`, "results.json"),
        );
      }
      /** A merge of partial/ refused as a bad setting (exit 2, an error results file), saying why. */
      const refused = async (name: string, why: RegExp) => {
        const r = await gate({ "merge-from": partial, "results-path": join(dir, `${name}.json`) });
        assert.equal(r.code, 2);
        assert.equal(read(join(dir, `${name}.json`)).verdict, "error");
        assert.match(r.stderr, why);
      };
      await refused("missing", /shard 2\/3 is missing from .*partial \(found 0, 1\)/);
      // Doubled: shard 1's file twice.
      copyFileSync(join(shardDir, "shard-1", "results.json"), join(partial, "again.json"));
      await refused(
        "doubled",
        /shard 1\/3 is given twice: .*again\.json and .*shard-1\/results\.json/,
      );
      // Foreign: shard 2 of another plan.
      const foreign = shards[2] as GateResults & { shard: { plan_hash: string } };
      foreign.shard.plan_hash = "0".repeat(64);
      writeFileSync(join(partial, "again.json"), JSON.stringify(foreign));
      await refused(
        "foreign",
        /again\.json is shard 2\/3 of another plan: its plan hash 000000000000/,
      );
      // Hostile: shard 2's first histogram a zero run of 2^40 slots (days to decode), then a
      // count out of range; each named by the file, within the test's time.
      const crafted = read(join(shardDir, "shard-2", "results.json")) as GateResults & {
        shard: ShardSection;
      };
      const part = crafted.shard.trials[0]?.part;
      assert.ok(part);
      part.recorder.histograms.ttft.encoded = ZERO_RUN;
      writeFileSync(join(partial, "again.json"), JSON.stringify(crafted));
      await refused(
        "hostile",
        /again\.json: pair 1 \w+ cannot be read: a histogram cannot be read: its counts run past/,
      );
      // A shard that skipped its last trial (late) and then stopped: that trial invalid, naming
      // it, and the run a guard (verdict error), as a single run that stopped is.
      const late = read(join(shardDir, "shard-2", "results.json")) as GateResults & {
        shard: ShardSection;
      };
      const last = late.shard.trials.pop();
      assert.ok(last);
      late.shard.skipped.push({
        pair: last.pair,
        arm: last.arm,
        reason: "shard 2/3 was ready 3.0 s after the trial's plan time",
      });
      late.shard.stopped = "the job was cancelled";
      writeFileSync(join(partial, "again.json"), JSON.stringify(late));
      await gate({ "merge-from": partial, "results-path": join(dir, "late.json") });
      const stopped = read(join(dir, "late.json"));
      assert.equal(stopped.verdict, "error");
      assert.match(
        stopped.guards.map((g) => g.message).join("\n"),
        /shard 2\/3 stopped before the end of the plan: the job was cancelled/,
      );
      const lastTrial = stopped.trials.find((t) => t.pair === last.pair && t.arm === last.arm);
      assert.deepEqual(lastTrial?.report.validity.reasons, [
        "shard 2/3: not measured (shard 2/3 was ready 3.0 s after the trial's plan time)",
      ]);
      // Every shard late for the last trial: a run guard, not a trial quietly left out.
      for (const f of [
        join(partial, "shard-0", "results.json"),
        join(partial, "shard-1", "results.json"),
      ]) {
        const x = read(f) as GateResults & { shard: ShardSection };
        const t = x.shard.trials.pop();
        assert.ok(t);
        x.shard.skipped.push({ pair: t.pair, arm: t.arm, reason: "late" });
        writeFileSync(f, JSON.stringify(x));
      }
      late.shard.stopped = null;
      writeFileSync(join(partial, "again.json"), JSON.stringify(late));
      await gate({ "merge-from": partial, "results-path": join(dir, "none.json") });
      const none = read(join(dir, "none.json"));
      assert.equal(none.verdict, "error");
      assert.match(
        none.guards[0]?.message ?? "",
        /^pair 4 \w+ was measured by no shard: shard 0\/3: not measured \(late\)/,
      );
      crafted.shard.count = 1e9;
      writeFileSync(join(partial, "again.json"), JSON.stringify(crafted));
      await refused("huge", /again\.json is not a shard's results file: \/count must be <= 64/);
    } finally {
      await Promise.all([baseline.stop(), candidate.stop()]);
    }
  },
);
