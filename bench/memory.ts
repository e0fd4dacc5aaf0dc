// The CLI at the documented maxima of the settings that size its memory, each
// in a process of its own against bench/fast-server.ts (its own process too):
// the peak resident memory (Node 24 running the TypeScript sources takes
// about 160 MB before it reads anything) and the wall time. The budget
// (bench/README.md): 640 MB with one trial thread; each further worker thread
// adds at most 160 MB.
//
//   node_modules/.bin/node bench/memory.ts [case name substring]

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setting } from "../src/config/settings.ts";
import { runCliMeasured } from "../test/helpers/cli.ts";
import { startFastServer } from "./fast-server-process.ts";

const BUDGET_MB = 640;
const only = process.argv[2] ?? "";

/** A setting's documented maximum, from the settings table. */
function maxOf(name: string): number {
  const accepts = setting(name)?.accepts;
  if (!accepts || !("max" in accepts) || typeof accepts.max !== "number")
    throw new Error(`${name} has no maximum`);
  return accepts.max;
}

const dir = mkdtempSync(join(tmpdir(), "lpg-memory-"));
const server = await startFastServer(16, 18);
const url = `${server.url}/v1`;
const measure = (...args: string[]) => [
  "measure",
  "--url",
  url,
  "--model",
  "bench",
  "--output-len",
  "16",
  "--warmup",
  "0s",
  "--max-late-sends",
  "100%",
  "--max-skew-effect",
  "100%",
  ...args,
];

/** A lanes history of `mb` MB: the test fixture's rows, repeated. */
function history(mb: number): string {
  const rows = readFileSync(join(import.meta.dirname, "../test/fixtures/lanes-history.jsonl"));
  const path = join(dir, "history.jsonl");
  const copies = Math.floor((mb * 2 ** 20) / rows.length);
  writeFileSync(path, Buffer.concat(Array.from({ length: copies }, () => rows)));
  return path;
}

const historyMb = 64;
const cases: { what: string; args: () => string[] }[] = [
  {
    what: `prefix-groups ${maxOf("prefix-groups")} × prefix-len ${maxOf("prefix-len")}, 2 req/s for 5 s`,
    args: () =>
      measure(
        "--prefix-groups",
        String(maxOf("prefix-groups")),
        "--prefix-len",
        String(maxOf("prefix-len")),
        "--rate",
        "2",
        "--duration",
        "5s",
      ),
  },
  {
    what: `all-at-once, requests ${maxOf("requests")}`,
    args: () =>
      measure(
        "--arrival",
        "all-at-once",
        "--requests",
        String(maxOf("requests")),
        "--timeout",
        "120s",
      ),
  },
  {
    what: `rate ${maxOf("rate")} req/s for 35 s, one thread (beyond its ceiling: the open limit holds)`,
    args: () => measure("--rate", String(maxOf("rate")), "--duration", "35s", "--workers", "1"),
  },
  {
    what: `rate ${maxOf("rate")} req/s for 35 s, 2 worker threads (budget + 160 MB)`,
    args: () => measure("--rate", String(maxOf("rate")), "--duration", "35s", "--workers", "2"),
  },
  {
    what: `lanes-report of a ${historyMb} MiB history (the reader's limit)`,
    args: () => [
      "lanes-report",
      `--lanes-history=${history(historyMb)}`,
      "--out",
      join(dir, "r.md"),
    ],
  },
];

try {
  console.log(`| case | exit | s | peak MB | within budget (${BUDGET_MB} MB) |`);
  console.log("| --- | ---: | ---: | ---: | --- |");
  for (const c of cases.filter((x) => x.what.includes(only))) {
    const r = await runCliMeasured(c.args(), 600_000, join(dir, "rss"));
    const budget = BUDGET_MB + (c.what.includes("2 worker threads") ? 160 : 0);
    const within = r.peakRssMb <= budget ? "yes" : "**no**";
    console.log(
      `| ${c.what} | ${r.code} | ${r.seconds.toFixed(1)} | ${r.peakRssMb.toFixed(0)} | ${within} |`,
    );
    if (r.code !== 0) console.log(`  ${(r.stderr || r.stdout).trim().split("\n").at(-1)}`);
  }
} finally {
  server.stop();
  rmSync(dir, { recursive: true, force: true });
}
