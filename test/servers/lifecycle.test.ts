// The gate starts the mock server through shell commands, as a user would with
// `npx llm-perf-gate mock …`, and must not use it before it really serves,
// report a server that never gets ready or dies mid-trial, and leave nothing
// running — checked by PID.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { resultsOf } from "../helpers/gate.ts";
import { LOAD_TEST } from "../helpers/mock.ts";
import {
  CLI,
  freePort,
  gateWithServers,
  groupAlive,
  mockCommand,
  NODE,
} from "../helpers/servers.ts";

test(
  "a server that lists its model while still loading is not used until completions work",
  LOAD_TEST,
  async () => {
    const [b, c] = [await freePort(), await freePort()];
    const { outcome } = await gateWithServers({
      "baseline-url": `http://127.0.0.1:${b}/v1`,
      "candidate-url": `http://127.0.0.1:${c}/v1`,
      "baseline-start": mockCommand(b),
      "candidate-start": mockCommand(c, ["loadingS=1.5"]),
    });
    assert.deepEqual(outcome.guards, []);
    for (const t of outcome.trials)
      assert.equal(t.report.outcomes.ok, t.report.scheduled, `${t.arm}: every request ok, no 503`);
    const [base, cand] = outcome.servers;
    assert.equal(base?.arm, "baseline");
    assert.ok(
      (cand?.time_to_ready_s as number) >= 1.5,
      `candidate ready after ${cand?.time_to_ready_s} s`,
    );
    assert.ok((cand?.cold_ttft_ms as number) > 0);
    assert.match(readFileSync(cand?.log as string, "utf8"), /mock LLM server listening on/);
    for (const s of outcome.servers)
      assert.equal(groupAlive(s.pid as number), false, `${s.arm} stopped`);
  },
);

test(
  "a server that never gets ready times out with its log tail, and is stopped",
  LOAD_TEST,
  async () => {
    const [b, c] = [await freePort(), await freePort()];
    const { outcome, config } = await gateWithServers({
      "baseline-url": `http://127.0.0.1:${b}/v1`,
      "candidate-url": `http://127.0.0.1:${c}/v1`,
      "baseline-start": `"${NODE}" -e "console.log('booting the engine'); setInterval(() => {}, 1000)"`,
      "ready-timeout": "1.5s",
    });
    assert.equal(outcome.verdict, "error");
    assert.match(
      outcome.guards[0]?.message ?? "",
      /^baseline server was not ready after 1\.5 s \(nothing answers at its URL\); log .*baseline-1\.log$/,
    );
    assert.match(outcome.guards[0]?.detail ?? "", /^booting the engine/, "the log's last lines");
    const comment = renderMarkdown(resultsOf(config, outcome), "default");
    assert.match(comment, /\n```text\nbooting the engine\n```/, "the comment shows them, fenced");
    assert.equal(outcome.trials.length, 0);
    assert.equal(groupAlive(outcome.servers[0]?.pid as number), false);
  },
);

test("a server that dies in the middle of a trial ends the run with error", LOAD_TEST, async () => {
  const [b, c] = [await freePort(), await freePort()];
  // It dies at its 10th completion request: after readiness (1), the preflight (3) and
  // the idle check (1), inside the first trial (≈ 12 requests), however slowly a busy
  // machine starts it.
  const { outcome } = await gateWithServers({
    "baseline-url": `http://127.0.0.1:${b}/v1`,
    "candidate-url": `http://127.0.0.1:${c}/v1`,
    "baseline-start": mockCommand(b, ["crashAfterRequests=10"]),
    "candidate-start": mockCommand(c),
    "max-error-rate": "100%",
  });
  assert.equal(outcome.verdict, "error");
  assert.match(
    outcome.guards[0]?.message ?? "",
    /^baseline server exited during pair 1 \(exit code 3\); log .*baseline-1\.log$/,
  );
  assert.match(outcome.guards[0]?.detail ?? "", /crashed at completion request 10/);
  assert.equal(groupAlive(outcome.servers[0]?.pid as number), false);
});

test(
  "per-trial restart starts and stops each arm around each of its trials",
  LOAD_TEST,
  async () => {
    const [b, c] = [await freePort(), await freePort()];
    const { outcome, lines } = await gateWithServers({
      "baseline-url": `http://127.0.0.1:${b}/v1`,
      "candidate-url": `http://127.0.0.1:${c}/v1`,
      "baseline-start": mockCommand(b),
      "candidate-start": mockCommand(c),
      restart: "per-trial",
      trials: "2",
    });
    assert.deepEqual(outcome.guards, []);
    // Pair 1 runs baseline then candidate, pair 2 the reverse (abba); a pair re-run after
    // a failed self-check (a busy machine) starts its two arms again in the same order.
    const orders: ("baseline" | "candidate")[][] = [
      ["baseline", "candidate"],
      ["candidate", "baseline"],
    ];
    const starts = { baseline: 0, candidate: 0 };
    const expected = orders.flatMap((order, pair) =>
      Array.from(
        { length: 1 + outcome.reruns.filter((r) => r.pair === pair).length },
        () => order,
      ).flatMap((o) => o.map((arm) => `${arm}-${++starts[arm]}`)),
    );
    assert.deepEqual(
      outcome.servers.map((s) => `${s.arm}-${s.start}`),
      expected,
    );
    assert.deepEqual(expected.slice(0, 2), ["baseline-1", "candidate-1"]);
    assert.ok(lines.some((l) => /candidate: ready after/.test(l)));
    for (const s of outcome.servers) assert.equal(groupAlive(s.pid as number), false);
  },
);

/** Starts `gate` with two managed servers; resolves once both are up, with their pids. */
async function gateWithManagedServers(baselineStart: (port: number) => string) {
  const [b, c] = [await freePort(), await freePort()];
  const resultsPath = join(mkdtempSync(join(tmpdir(), "lpg-cancel-r-")), "r.json");
  const child = spawn(
    NODE,
    [
      CLI,
      "gate",
      `--baseline-url=http://127.0.0.1:${b}/v1`,
      `--candidate-url=http://127.0.0.1:${c}/v1`,
      "--model=mock-llm",
      "--rate=5",
      "--duration=30s",
      "--quality-suite=none",
      "--accuracy=none",
      "--contract=none",
      `--baseline-start=${baselineStart(b)}`,
      `--candidate-start=${mockCommand(c)}`,
      `--server-log-dir=${mkdtempSync(join(tmpdir(), "lpg-cancel-"))}`,
      `--results-path=${resultsPath}`,
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  const pids: number[] = [];
  await new Promise<void>((resolve, reject) => {
    child.stderr.on("data", (d: Buffer) => {
      stderr += d;
      for (const m of stderr.matchAll(/started \(pid (\d+)\)/g))
        if (!pids.includes(Number(m[1]))) pids.push(Number(m[1]));
      if (/pair 1\/\d+( \(≤ \d+\))? baseline: measuring/.test(stderr)) resolve();
    });
    child.once("exit", () => reject(new Error(`exited early: ${stderr}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { child, pids, exited, resultsPath, stderr: () => stderr };
}

test(
  "cancelling the gate (SIGTERM): no new trial, servers stopped, results written as cancelled",
  LOAD_TEST,
  async () => {
    const gate = await gateWithManagedServers((port) => mockCommand(port));
    assert.equal(gate.pids.length, 2);
    assert.ok(gate.pids.every(groupAlive), "both servers up");
    gate.child.kill("SIGTERM");
    assert.equal(await gate.exited, 143);
    assert.match(
      gate.stderr(),
      /SIGTERM: cancelling: no new trial; stopping the servers the gate started/,
    );
    for (const pid of gate.pids)
      assert.equal(groupAlive(pid), false, `process group ${pid} is gone`);
    const results = JSON.parse(readFileSync(gate.resultsPath, "utf8"));
    assert.equal(results.verdict, "cancelled");
    assert.equal(results.cancelled_by, "SIGTERM");
    assert.match(
      results.headline,
      /^the job was cancelled \(SIGTERM\) after 0 pairs of trials: no verdict/,
    );
    assert.equal(results.servers.length, 2);
  },
);

test("a second signal kills a server that ignores SIGTERM, at once", LOAD_TEST, async () => {
  // The shell and its sleep ignore SIGTERM; only SIGKILL ends this group.
  const stubborn = (port: number) =>
    `${mockCommand(port)} & trap '' TERM; while true; do sleep 1; done`;
  const gate = await gateWithManagedServers(stubborn);
  gate.child.kill("SIGINT");
  await new Promise((resolve) => setTimeout(resolve, 500));
  const started = performance.now();
  gate.child.kill("SIGTERM");
  assert.equal(await gate.exited, 143);
  assert.ok(performance.now() - started < 2500, "no grace period waited out");
  assert.match(gate.stderr(), /SIGTERM again: killing the servers the gate started/);
  for (const pid of gate.pids) {
    const gone = performance.now() + 5000;
    while (groupAlive(pid) && performance.now() < gone)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(groupAlive(pid), false, `process group ${pid} is gone`);
  }
});

test(
  "a port that answers before the start command ran is warned about (a stale server)",
  LOAD_TEST,
  async () => {
    const [b, c] = [await freePort(), await freePort()];
    const stale = spawn(NODE, [CLI, "mock", "--port", String(b)], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    await new Promise<void>((resolve) => stale.stdout.once("data", () => resolve()));
    try {
      const { outcome, lines } = await gateWithServers({
        "baseline-url": `http://127.0.0.1:${b}/v1`,
        "candidate-url": `http://127.0.0.1:${c}/v1`,
        // This start fails at once (the port is taken), while the stale server answers.
        "baseline-start": mockCommand(b),
        "candidate-start": mockCommand(c),
      });
      assert.match(
        outcome.servers[0]?.warnings[0] ?? "",
        /already answered before the start command ran: a stale server may be the one that answers/,
      );
      assert.ok(lines.some((l) => /baseline: warning: .*stale server/.test(l)));
    } finally {
      stale.kill("SIGTERM");
    }
  },
);
