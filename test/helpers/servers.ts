// Servers the gate starts, for tests: the mock through a shell command as a
// user would start it, a free port, whether a process group still runs, and a
// gate run with them.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig } from "../../src/config/config.ts";
import { runGate } from "../../src/gate/gate.ts";
import { lifecycleFor } from "../../src/servers/lifecycle.ts";

export const CLI = join(import.meta.dirname, "../../src/cli.ts");
export const NODE = process.execPath;

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Whether any process of the group still runs. Zombies do not count: they are
 * dead, waiting to be reaped, and a sandbox's PID 1 may never reap the
 * orphans of a process that exited at once after SIGKILLing its children.
 */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
  } catch {
    return false;
  }
  const rows = execFileSync("ps", ["-eo", "pgid=,stat="], { encoding: "utf8" });
  return rows
    .split("\n")
    .map((row) => row.trim().split(/\s+/))
    .some(([pgid, stat]) => Number(pgid) === pid && !stat?.startsWith("Z"));
}

export const mockCommand = (port: number, sets: string[] = []) =>
  `"${NODE}" "${CLI}" mock --port ${port}${sets.map((s) => ` --set ${s}`).join("")}`;

export async function gateWithServers(settings: Record<string, string>) {
  const logDir = mkdtempSync(join(tmpdir(), "lpg-servers-"));
  const config = parseConfig({
    model: "mock-llm",
    rate: "10",
    duration: "1s",
    warmup: "0.2s",
    "output-len": "16",
    "input-len": "32",
    trials: "1",
    "quality-suite": "none",
    accuracy: "none",
    contract: "none",
    // These tests are about the servers; the self-checks have their own.
    "max-skew-effect": "50%",
    "max-late-sends": "50%",
    "max-offered-drift": "50%",
    "max-event-loop-delay-ms": "100",
    "server-log-dir": logDir,
    ...settings,
    // The pairs asked for, no more: these tests are about the servers, not the design.
    "max-trials": settings.trials ?? "1",
  });
  const lines: string[] = [];
  const g = config.gate;
  const targets = { baseline: g.baseline.target, candidate: g.candidate.target };
  const servers = lifecycleFor(config.servers, targets, (l) => lines.push(l));
  assert.ok(servers);
  const outcome = await runGate(g, { servers, log: (l) => lines.push(l) });
  return { outcome, lines, logDir, config };
}
