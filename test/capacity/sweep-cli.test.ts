// `sweep` against the built-in mock, in a process of its own: the command's
// wiring — a capacity near the knee the mock's engine model predicts, both
// MLPerf-style labels, the chart, and the JSON report with every point. How
// close to the knee a sweep lands (±10 %) is the capacity gate's test, which
// runs the same search on both arms, and bench/capacity.ts's measurement:
// here short windows and a coarse resolution keep it under half a minute.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { SweepReport } from "../../src/capacity/run.ts";
import { KNEE_MOCK_SETS, KNEE_WORKLOAD, startMockProcess } from "../../src/commands/demo.ts";
import { saturationRatePerS } from "../../src/mock/engine.ts";
import { DEFAULT_PROFILE } from "../../src/mock/profile.ts";
import { mergeProfile, parseOverrides } from "../../src/mock/profile-merge.ts";
import { CLI, flagsOf, runCliProcess } from "../helpers/cli.ts";
import { LOAD_TEST, SLOW_LOAD_TEST } from "../helpers/mock.ts";

// A bound on a sweep that never ends: far beyond the ≈20 s it takes.
const run = (args: string[]) => runCliProcess(args, 300_000);

test(
  "sweep finds the mock's knee within ±20 % of its model and prints both MLPerf labels",
  SLOW_LOAD_TEST,
  async () => {
    const mock = await startMockProcess([process.execPath, CLI], [...KNEE_MOCK_SETS]);
    const out = join(mkdtempSync(join(tmpdir(), "lpg-sweep-")), "sweep.json");
    try {
      const flags = flagsOf({
        ...KNEE_WORKLOAD,
        url: `${mock.url}/v1`,
        model: "mock-llm",
        duration: "2s",
        warmup: "0.5s",
        seed: "2",
        "sweep-points": "3",
        "capacity-resolution": "10%",
        "sync-requests": "4",
        "offline-requests": "64",
        // Not what this test is about: a busy machine must not make the points invalid.
        "max-late-sends": "50%",
        "max-skew-effect": "50%",
        "max-event-loop-delay-ms": "100",
      });
      const html = out.replace(/json$/, "html");
      const r = await run(["sweep", ...flags, "--out", out, "--html", html]);
      assert.equal(r.code, 0, r.stderr);
      const report = JSON.parse(readFileSync(out, "utf8")) as SweepReport;
      const profile = mergeProfile(DEFAULT_PROFILE, parseOverrides([...KNEE_MOCK_SETS]), "test");
      const predicted = saturationRatePerS(profile, 32, 16);
      const found = report.capacity.capacity_per_s as number;
      assert.ok(
        Math.abs(found / predicted - 1) <= 0.2,
        `capacity ${found} req/s, predicted ${predicted.toFixed(1)} req/s\n${r.stdout}`,
      );
      assert.equal(report.schema, "llm-perf-gate/sweep@1");
      assert.deepEqual(
        report.points.slice(0, 2).map((p) => p.phase),
        ["synchronous", "offline"],
      );
      assert.ok(report.points.every((p) => p.report.schema === "llm-perf-gate/measure@2"));
      assert.ok(report.capacity.fail_per_s !== null, "a failing rate bounds the capacity");
      assert.match(r.stdout, /Server \(Poisson, SLO ttft:300\): \d+(\.\d)? req\/s/);
      assert.match(r.stdout, /Offline: \d+(\.\d)? req\/s, \d+ tok\/s/);
      assert.match(r.stdout, /xychart-beta/);
      assert.match(r.stderr, /trials planned/);
      // Its page: the capacity curve with its points, the markdown's tables without its Mermaid.
      const page = readFileSync(html, "utf8");
      assert.match(page, /<figure id="capacity" class="chart"><div class="svg"><svg/);
      assert.match(page, /offered rate \(req\/s\)/);
      assert.doesNotMatch(page, /xychart-beta|<script/);
    } finally {
      await mock.stop();
    }
  },
);

test(
  "sweep refuses a rate and a millisecond window, and needs an SLO",
  SLOW_LOAD_TEST,
  async () => {
    const base = ["sweep", "--url", "http://127.0.0.1:9/v1", "--model", "m"];
    const noSlo = await run(base);
    assert.equal(noSlo.code, 2);
    assert.match(
      noSlo.stderr,
      /slo is required by sweep: capacity is the highest rate that meets it/,
    );
    const rate = await run([...base, "--slo", "ttft:800", "--rate", "5"]);
    assert.equal(rate.code, 2);
    assert.match(rate.stderr, /rate = 5 is not used by sweep: the sweep chooses the rates itself/);
    const blink = await run([...base, "--slo", "ttft:800", "--duration", "1ms"]);
    assert.equal(blink.code, 2);
    assert.match(blink.stderr, /duration = 1ms is not accepted by sweep: .*expected at least 1s/);
    const burst = await run([...base, "--slo", "ttft:800", "--arrival", "burst"]);
    assert.equal(burst.code, 2);
    assert.match(
      burst.stderr,
      /arrival = "burst" is not accepted; expected one of poisson, constant/,
    );
  },
);

test(
  "sweep against an endpoint that refuses every request names the endpoint's failure (exit 4), not the client",
  LOAD_TEST,
  async () => {
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(401, { "content-type": "application/json" });
      res.end('{"error":{"message":"Incorrect API key provided"}}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const out = join(mkdtempSync(join(tmpdir(), "lpg-sweep-401-")), "sweep.json");
    try {
      const r = await runCliProcess(
        [
          "sweep",
          `--url=http://127.0.0.1:${port}/v1`,
          "--model=m",
          "--slo=ttft:800",
          "--duration=1s",
          `--out=${out}`,
        ],
        120_000,
      );
      assert.equal(r.code, 4, r.stderr);
      assert.match(
        r.stderr,
        /the endpoint failed every synchronous request \(16 of 16: 16 http_4xx\) — the endpoint's failure, not the client's/,
      );
      assert.doesNotMatch(`${r.stdout}${r.stderr}`, /may be the bottleneck/);
      const report = JSON.parse(readFileSync(out, "utf8")) as SweepReport;
      // The synchronous phase and its two re-runs (a server still starting): nothing after them.
      assert.equal(report.points.length, 3);
      assert.ok(report.points.every((p) => p.phase === "synchronous"));
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  },
);
