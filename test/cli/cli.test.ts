import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { startMockServer } from "../../src/mock/server.ts";
import { openInChromium } from "../helpers/chromium.ts";
import { chatBody, send } from "../helpers/client.ts";
import { LOAD_TEST, SLOW_LOAD_TEST } from "../helpers/mock.ts";

const CLI = join(import.meta.dirname, "../../src/cli.ts");

/** Runs the CLI in a scratch folder, so that the results files it writes land there. */
function runCli(args: string[]) {
  const cwd = mkdtempSync(join(tmpdir(), "lpg-cli-run-"));
  return spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", timeout: 30_000, cwd });
}

test("mock prints its URL, serves, and stops cleanly on SIGTERM", LOAD_TEST, async () => {
  const dir = mkdtempSync(join(tmpdir(), "lpg-cli-"));
  const profile = join(dir, "profile.json");
  writeFileSync(profile, JSON.stringify({ models: ["candidate-llm"], decodeBaseMs: 1 }));
  const child = spawn(
    process.execPath,
    [CLI, "mock", "--port", "0", "--profile", profile, "--set", "decodeScale=1.15"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        const m = out.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
        if (m) resolve(m[1] as string);
      });
      child.once("exit", (code) => reject(new Error(`exited early with ${code}: ${out}`)));
    });
    const r = await send(
      url,
      chatBody({ model: "candidate-llm", max_tokens: 3, ignore_eos: true }),
    );
    assert.equal(r.status, 200);
    assert.equal(r.done, true);
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    assert.equal(await exited, 0);
  } finally {
    child.kill("SIGKILL");
  }
});

/** A measure command that would run but for the flag a case adds. */
const MEASURE = ["measure", "--url", "http://127.0.0.1:9/v1", "--model", "m", "--rate", "5"];

test("bad flags and settings fail with exit code 2 and a message naming them", LOAD_TEST, () => {
  const cases: [string[], RegExp][] = [
    [
      ["mock", "--set", "faults.empty=7"],
      /--set: faults\.empty = 7 is not accepted; expected a number in \[0, 1\]/,
    ],
    [
      ["mock", "--port", "http"],
      /port = "http" is not accepted; expected an integer ≥ 0 and ≤ 65535/,
    ],
    [["mock", "--speed", "2"], /mock: unknown flag --speed \(see mock --help\)/],
    [
      ["mock", "--profile", "/nonexistent/profile.json"],
      /--profile \/nonexistent\/profile\.json: cannot read/,
    ],
    [
      ["fly"],
      /unknown command "fly"; accepted: demo, gate, measure, sweep, burst, lanes-report, report, mock, help/,
    ],
    [["measure", "--model", "m", "--rate", "5"], /url is required/],
    [
      ["measure", "--url", "http://127.0.0.1:9/v1", "--model", "m", "--rate", "x"],
      /rate = "x" is not accepted; expected requests per second \(> 0/,
    ],
    [
      [...MEASURE, "--slo", "ttft:800 ttfb:5"],
      /slo: unknown SLO key "ttfb" in "ttft:800 ttfb:5"; accepted keys: ttft, tpot, itl, e2el/,
    ],
    [["measure", "--bogus"], /measure: unknown flag --bogus/],
    // Checked whether used or not: without prefix-groups it shapes nothing (exit 0 before).
    [
      [...MEASURE, "--prefix-pick", "banana"],
      /prefix-pick = banana is not used without prefix-groups/,
    ],
    [["gate", "--model", "m", "--rate", "5"], /baseline-url is required/],
    [
      [
        "gate",
        "--baseline-url",
        "http://127.0.0.1:9/v1",
        "--candidate-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "m",
        "--rate",
        "5",
        "--order",
        "zig",
      ],
      /order = "zig" is not accepted; expected one of abba, abab, random/,
    ],
    [["gate", "--config", "/nonexistent.yml"], /config = "\/nonexistent\.yml" cannot be read/],
  ];
  for (const [args, message] of cases) {
    const r = runCli(args);
    assert.equal(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
  }
});

test(
  "measure exits 4 when the endpoint fails: no ok request, or too many failures",
  LOAD_TEST,
  async () => {
    const probe = await startMockServer();
    const port = probe.port;
    await probe.close();
    const r = runCli([
      "measure",
      "--url",
      `http://127.0.0.1:${port}/v1`,
      "--model",
      "m",
      "--rate",
      "20",
      "--duration",
      "0.3s",
      "--warmup",
      "0s",
      "--quiet",
    ]);
    assert.equal(r.status, 4, r.stderr);
    assert.match(
      r.stderr,
      /the endpoint failed \d+ of \d+ requests \(limit max-error-rate 1\.0 %\); none was ok/,
    );
    assert.match(r.stdout, /connect_error/);
  },
);

test(
  "demo gates a candidate mock with 30 % slower decoding and names p95 ITL; its page opens in Chromium",
  SLOW_LOAD_TEST,
  async () => {
    const demo = () =>
      spawnSync(process.execPath, [CLI, "demo"], { encoding: "utf8", timeout: 190_000 });
    // A starved machine (two busy loops beside the suite) may leave a pair invalid after
    // its re-runs: the demo then rightly says error, naming the busy machine. The claim
    // here is about a run the machine let measure: such a run is made once more.
    let r = demo();
    if (/\*\*error\*\* — no performance verdict: .*the machine was busy/.test(r.stdout)) r = demo();
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout,
      /^<!-- llm-perf-gate:default -->\n### ❌ llm-perf-gate: \*\*fail\*\* — regressed: .*p95 ITL \+\d+\.\d % \(limit \+10\.0 %\)/,
    );
    assert.match(r.stdout, /\| ❌ \| p95 ITL \(ms\) \|/);
    assert.match(r.stderr, /pair 4\/4 \(≤ 6\) (baseline|candidate)/);
    assert.match(r.stderr, /results written to .*llm-perf-gate-demo-results\.json/);
    // The built-in accuracy suite ran on both arms: the slower decoder answers the same,
    // decided at the first look.
    assert.match(r.stdout, /\*\*Accuracy\*\* ✅ no drop beyond the tolerance: 0\.0 points/);
    assert.match(r.stderr, /accuracy: 300 items on the candidate, 64 at a time/);
    assert.match(r.stdout, /decided at look 1 of 5 \(up to 4,800 items\)/);
    const html = r.stderr.match(/HTML report written to (.*\.html)/)?.[1];
    assert.ok(html, r.stderr);
    const page = await openInChromium(html);
    assert.deepEqual(page.problems, [], "no console error");
    assert.deepEqual(page.requests, [`file://${html}`], "nothing loaded but the page");
    const want = ["forest-goodput", "forest-ttft", "forest-itl", "latency-ttft", "latency-itl"];
    assert.deepEqual(
      page.figures.map((f) => f.id),
      [...want, "latency-e2el", "timeline", "scatter"],
    );
    for (const f of page.figures) {
      assert.equal(f.svgs, 1, f.id);
      assert.ok(f.svgText.length > 20 && f.tableText.length > 20, `${f.id}: axes and numbers`);
    }
    assert.match(page.text, /llm-perf-gate: fail — regressed: .*p95 ITL \+\d+\.\d %/);
  },
);

test(
  "measure writes the documented JSON report and never shows the API key",
  LOAD_TEST,
  async () => {
    const server = await startMockServer();
    try {
      const dir = mkdtempSync(join(tmpdir(), "lpg-measure-"));
      const out = join(dir, "report.json");
      const child = spawn(
        process.execPath,
        [
          CLI,
          "measure",
          "--url",
          `${server.url}/v1`,
          "--model",
          "mock-llm",
          "--rate",
          "20",
          "--duration",
          "1s",
          "--warmup",
          "0.2s",
          "--input-len",
          "32",
          "--output-len",
          "16",
          "--slo",
          "ttft:500 tpot:100",
          "--out",
          out,
          "--html",
          join(dir, "report.html"),
          "--requests-path",
          join(dir, "requests.jsonl"),
        ],
        {
          stdio: ["ignore", "pipe", "pipe"],
          env: { ...process.env, OPENAI_API_KEY: "sk-test-secret-123" },
        },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => {
        stdout += d;
      });
      child.stderr.on("data", (d: Buffer) => {
        stderr += d;
      });
      const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
      // 0, or 3 when a busy machine made the client late (the self-checks say so):
      // the report is written either way, which is what this test is about.
      assert.ok(code === 0 || code === 3, `exit ${code}: ${stderr}`);
      assert.match(stdout, /scheduled \d+ = ok \d+/);
      assert.match(stdout, /TTFT \(service\)/);
      assert.match(stderr, /sent \d+\/\d+/, "progress goes to stderr");
      const text = readFileSync(out, "utf8");
      const page = readFileSync(join(dir, "report.html"), "utf8");
      assert.doesNotMatch(stdout + stderr + text + page, /sk-test-secret-123/);
      assert.match(stderr, /HTML report written to .*report\.html/);
      for (const id of ["latency-ttft", "timeline", "scatter"])
        assert.match(page, new RegExp(`<figure id="${id}" class="chart">`), id);
      const report = JSON.parse(text);
      assert.equal(report.schema, "llm-perf-gate/measure@2");
      for (const key of [
        "scheduled",
        "window_s",
        "outcomes",
        "metrics",
        "throughput",
        "goodput",
        "validity",
        "histograms",
      ]) {
        assert.ok(key in report, key);
      }
      for (const m of [
        "ttft_ms",
        "ttft_service_ms",
        "e2el_ms",
        "e2el_service_ms",
        "tpot_ms",
        "itl_ms",
      ]) {
        for (const f of [
          "mean",
          "p50",
          "p90",
          "p95",
          "p99",
          "p999",
          "max",
          "count",
          "lower_bounds",
        ]) {
          assert.ok(f in report.metrics[m], `${m}.${f}`);
        }
      }
      assert.deepEqual(Object.keys(report.goodput).sort(), [
        "attainment",
        "good",
        "good_on_time",
        "requests_per_s",
        "slo",
      ]);
      for (const f of [
        "valid",
        "reasons",
        "send_skew_ms",
        "unsent",
        "event_loop_delay_ms",
        "gc",
        "client_cpu",
      ]) {
        assert.ok(f in report.validity, f);
      }
      const sum = Object.values(report.outcomes as Record<string, number>).reduce(
        (a, b) => a + b,
        0,
      );
      assert.equal(sum, report.scheduled);
      assert.equal(typeof report.histograms.ttft_us, "string");
    } finally {
      await server.close();
    }
  },
);

test(
  "on a Node older than 22.19 the bundled CLI says what it needs, before anything can crash",
  LOAD_TEST,
  async () => {
    const { NODE_VERSION_GUARD } = await import("../../src/common/node-version.ts");
    const { runInNewContext } = await import("node:vm");
    const run = (node: string) => {
      const out = { stderr: "", code: undefined as number | undefined };
      const fakeProcess = {
        versions: { node },
        version: `v${node}`,
        stderr: { write: (t: string) => (out.stderr += t) },
        exit: (code: number) => {
          out.code = code;
          throw new Error("exit");
        },
      };
      try {
        runInNewContext(NODE_VERSION_GUARD, { process: fakeProcess });
      } catch {
        // exit
      }
      return out;
    };
    assert.deepEqual(run("20.11.1"), {
      stderr: "llm-perf-gate needs Node >= 22.19 (found v20.11.1)\n",
      code: 2,
    });
    assert.equal(run("22.18.0").code, 2);
    assert.equal(run("22.19.0").code, undefined);
    assert.equal(run("24.21.0").code, undefined);
    const bundle = readFileSync(join(import.meta.dirname, "../../dist/cli.js"), "utf8");
    assert.ok(
      bundle.startsWith(`#!/usr/bin/env node\n${NODE_VERSION_GUARD}\n`),
      "the guard is the bundle's first statement",
    );
  },
);
