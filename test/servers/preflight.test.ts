// A dead or misconfigured endpoint ends the gate in seconds, before any trial,
// with the cause and the likely fix in the headline — and the results file is
// still written. Everything runs against servers on 127.0.0.1.

import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Agent } from "undici";
import { planRun } from "../../src/commands/gate/plan.ts";
import { runGateCommand } from "../../src/commands/gate/run.ts";
import { parseTrialOptions } from "../../src/config/trial.ts";
import { DEFAULT_PROFILE } from "../../src/mock/profile.ts";
import { mergeProfile } from "../../src/mock/profile-merge.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { waitIdle } from "../../src/servers/preflight.ts";
import { probeCompletion } from "../../src/servers/probe.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function gateAgainst(candidateUrl: string, baselineUrl: string, extra = {}) {
  const dir = mkdtempSync(join(tmpdir(), "lpg-preflight-"));
  const resultsPath = join(dir, "results.json");
  const plan = planRun(
    {
      "baseline-url": baselineUrl,
      "candidate-url": candidateUrl,
      model: "mock-llm",
      rate: "5",
      duration: "30s",
      "quality-suite": "none",
      accuracy: "none",
      contract: "none",
      "results-path": resultsPath,
      ...extra,
    },
    (p) => readFileSync(p, "utf8"),
  );
  const started = performance.now();
  const results = await runGateCommand(plan, {
    env: {},
    readFile: (p) => readFileSync(p, "utf8"),
    writeFile: (p, text) => writeFileSync(p, text),
    log: () => {},
    measureTrial: async () => {
      throw new Error("no trial may run after a failed preflight");
    },
  });
  return { results, seconds: (performance.now() - started) / 1000, resultsPath };
}

test(
  "a wrong URL, a closed port, a 401, a wrong model and an HTML page each end in error within seconds, naming the cause",
  LOAD_TEST,
  async () => {
    const healthy = await startMockServer();
    const locked = await startMockServer({
      profile: mergeProfile(DEFAULT_PROFILE, { apiKey: "sk-right" }, "test"),
    });
    const html = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!doctype html><title>Welcome to nginx!</title>");
    });
    await new Promise<void>((resolve) => html.listen(0, "127.0.0.1", resolve));
    const htmlPort = (html.address() as { port: number }).port;
    try {
      const cases: [string, Record<string, string>, RegExp][] = [
        [
          healthy.url,
          {},
          /candidate: the first completion from http:\/\/127\.0\.0\.1:\d+ \(model mock-llm\) failed 3 times: http_4xx \(HTTP 404.*does the URL end in \/v1/,
        ],
        [
          `http://127.0.0.1:${await closedPort()}/v1`,
          {},
          /failed 3 times: connect_error .*ECONNREFUSED.*is the server running, and are the host and port right\?/,
        ],
        [
          `${locked.url}/v1`,
          {},
          /failed 3 times: http_4xx \(HTTP 401, type invalid_request_error, code invalid_api_key\) — is the API key set/,
        ],
        [
          `${healthy.url}/v1`,
          { "candidate-model": "qwen2.5-7b" },
          /model qwen2\.5-7b\) failed 3 times: http_4xx \(HTTP 404.*the server lists: mock-llm — set model \(or candidate-model\)/,
        ],
        [
          `http://127.0.0.1:${htmlPort}/v1`,
          {},
          /failed 3 times: protocol_error .*expected an SSE stream.*does the URL end in \/v1/,
        ],
      ];
      for (const [url, extra, cause] of cases) {
        const { results, seconds, resultsPath } = await gateAgainst(
          url,
          `${healthy.url}/v1`,
          extra,
        );
        assert.equal(results.verdict, "error", results.headline);
        assert.match(results.headline, cause);
        assert.match(results.headline, /^no performance verdict: candidate: /);
        assert.equal(results.trials.length, 0, "no trial ran, not even the baseline's");
        assert.ok(seconds < 15, `${seconds.toFixed(1)} s`);
        assert.ok(existsSync(resultsPath));
        assert.equal(JSON.parse(readFileSync(resultsPath, "utf8")).verdict, "error");
      }
    } finally {
      await Promise.all([healthy.close(), locked.close()]);
      html.close();
    }
  },
);

test(
  "a model the server does not list but answers (llama.cpp) is a warning, not an error",
  LOAD_TEST,
  async () => {
    const server = await startMockServer({
      profile: mergeProfile(DEFAULT_PROFILE, { anyModel: true }, "test"),
    });
    try {
      const { preflight } = await import("../../src/servers/preflight.ts");
      const target = parseTrialOptions({
        url: `${server.url}/v1`,
        model: "tiny",
        rate: "1",
      }).target;
      const report = await preflight("baseline", target, 10);
      assert.deepEqual(report.models, ["mock-llm"]);
      assert.match(
        report.warnings[0] ?? "",
        /does not list tiny \(it lists: mock-llm\), but the server answers it/,
      );
      assert.ok(report.idle_ttft_ms > 0 && report.idle_ttft_ms <= report.first_ttft_ms);
    } finally {
      await server.close();
    }
  },
);

/** Sends requests and leaves at once: a backlog for a server that keeps working on them. */
async function abandon(url: string, count: number): Promise<void> {
  const target = parseTrialOptions({ url: `${url}/v1`, model: "mock-llm", rate: "1" }).target;
  const agent = new Agent({ connections: count });
  await Promise.all(
    Array.from({ length: count }, () => probeCompletion({ ...target }, agent, 64, 50)),
  );
  await agent.close();
}

/**
 * A mock slow enough that 16 abandoned requests leave about three seconds of work: on a
 * loaded machine running two test files, abandoning them took the whole of one second.
 */
const BACKLOG_KNOBS = {
  maxBatch: 4,
  decodeBaseMs: 12,
  decodePerSeqMs: 0,
  jitter: 0,
  naturalMinTokens: 64,
  naturalMaxTokens: 64,
};

test(
  "the idle check waits out a backlog that outlived its clients, and passes at once on a server that dropped it",
  LOAD_TEST,
  async () => {
    const waited: Record<string, number> = {};
    for (const cancelOnDisconnect of [false, true]) {
      const server = await startMockServer({
        profile: mergeProfile(DEFAULT_PROFILE, { ...BACKLOG_KNOBS, cancelOnDisconnect }, "test"),
      });
      try {
        const target = parseTrialOptions({
          url: `${server.url}/v1`,
          model: "mock-llm",
          rate: "1",
        }).target;
        // 16 abandoned requests of 64 tokens, 4 at a time: about three seconds of work left behind.
        await abandon(server.url, 16);
        // Idle TTFT of this mock: a prefill step, ≈ 8 ms.
        const check = await waitIdle(target, 8, 60);
        assert.equal(check.busy, false, JSON.stringify(check));
        if (!cancelOnDisconnect) assert.ok(check.probes >= 2, JSON.stringify(check));
        waited[String(cancelOnDisconnect)] = check.waited_s;
      } finally {
        await server.close();
      }
    }
    assert.ok(
      (waited.false as number) > 0.3 && (waited.false as number) > 2 * (waited.true as number),
      `waited ${JSON.stringify(waited)}: the backlog is waited out, a dropped one is not there`,
    );
  },
);

test(
  "with the server's metrics the idle check waits until nothing runs or waits; without them it probes",
  LOAD_TEST,
  async () => {
    const knobs = { ...BACKLOG_KNOBS, cancelOnDisconnect: false };
    for (const metricsFormat of ["vllm", "llamacpp", "off"] as const) {
      const server = await startMockServer({
        profile: mergeProfile(DEFAULT_PROFILE, { ...knobs, metricsFormat }, "test"),
      });
      try {
        const options = parseTrialOptions({
          url: `${server.url}/v1`,
          model: "mock-llm",
          rate: "1",
        });
        assert.equal(
          options.serverMetrics?.url,
          `${server.url}/metrics`,
          "the default: origin + /metrics",
        );
        await abandon(server.url, 16);
        const check = await waitIdle(options.target, 8, 60, options.serverMetrics);
        assert.equal(check.busy, false, JSON.stringify(check));
        assert.equal(check.by, metricsFormat === "off" ? "probes" : "metrics", metricsFormat);
        if (check.by === "metrics") {
          assert.equal(check.queued, 0);
          assert.ok(check.probes >= 2, `the backlog was seen: ${JSON.stringify(check)}`);
          const { running, waiting } = server.stats().engine;
          assert.deepEqual({ running, waiting }, { running: 0, waiting: 0 });
        }
      } finally {
        await server.close();
      }
    }
  },
);
