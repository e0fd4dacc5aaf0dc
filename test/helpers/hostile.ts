// One hostile input of each class for the real CLI: the files written to a
// fresh directory, the servers started on 127.0.0.1, and for each the command
// line, the exit code and what it must say. The test and bench/hostile.ts
// run them.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type MockServer, startMockServer } from "../../src/mock/server.ts";
import { quickProfile } from "./mock.ts";

/** A secret given in two cases: it must appear in no output and no file. */
export const MARK = "sk-hostilemarker0123456789";

/** One class: the command line, the exit code, what it must say and where. */
export interface HostileCase {
  what: string;
  args: string[];
  exit: number;
  says: RegExp;
  /** The results file the run was asked for: it must say `error` and why. */
  results?: string;
}

/** A metrics page that drips a byte every 0.5 s, or one that never ends. */
function startPage(kind: "drip" | "endless", pages: Server[]): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    if (kind === "drip") {
      const timer = setInterval(() => res.write("#"), 500);
      res.on("close", () => clearInterval(timer));
      return;
    }
    const block = Buffer.from("vllm:num_requests_running 1\n".repeat(4096));
    const pump = () => {
      while (!res.destroyed && res.write(block)) {}
    };
    res.on("drain", pump);
    pump();
  });
  pages.push(server);
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve(
        `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/metrics`,
      );
    }),
  );
}

/** A 10,000,000-row Azure trace, written a megabyte at a time (350 MB). */
function writeLongTrace(path: string): void {
  const fd = openSync(path, "w");
  writeSync(fd, "TIMESTAMP,ContextTokens,GeneratedTokens\n");
  const block = "2023-11-16 18:15:46.6805900,374,44\n".repeat(100_000);
  for (let i = 0; i < 100; i++) writeSync(fd, block);
  closeSync(fd);
}

function writeFiles(at: (name: string) => string): void {
  assert.equal(spawnSync("mkfifo", [at("suite.fifo")]).status, 0, "mkfifo is there");
  writeLongTrace(at("long.csv"));
  const ids = Array.from({ length: 300_000 }, (_, i) => i);
  writeFileSync(
    at("blocks.jsonl"),
    `${JSON.stringify({ timestamp: 0, input_length: 10, output_length: 5, hash_ids: ids })}\n`,
  );
  const tokenizer = JSON.parse(
    readFileSync(join(import.meta.dirname, "../fixtures/tokenizer/tokenizer.json"), "utf8"),
  );
  tokenizer.model = { ...tokenizer.model, vocab: {}, merges: [], unk_token: null };
  writeFileSync(at("tokenizer.json"), JSON.stringify(tokenizer));
  const suite = (check: string) =>
    `cases:\n  - id: hostile\n    max_tokens: 16\n    messages: [{role: user, content: hi}]\n    expect: [${check}]\n`;
  writeFileSync(at("backtrack.yml"), suite("{kind: regex, pattern: '^(\\w+)\\s\\1!$'}"));
  writeFileSync(at("schema.yml"), suite("{kind: json_schema, schema: {type: objekt}}"));
  writeFileSync(at("header.yml"), `header: {Authorization: "Bearer ${MARK}"}\n`);
  writeFileSync(
    at("history.jsonl"),
    `${JSON.stringify({ lane: "a", window: "w", passed: "false", outcome: "teapot" })}\n`,
  );
}

/** A gate on settings that refuse nothing, with these on top (undefined: left out). */
function gate(resultsPath: string, settings: Record<string, string | undefined>): string[] {
  const all: Record<string, string | undefined> = {
    "baseline-url": "http://127.0.0.1:9/v1",
    "candidate-url": "http://127.0.0.1:9/v1",
    model: "m",
    rate: "5",
    contract: "none",
    "quality-suite": "none",
    accuracy: "none",
    "results-path": resultsPath,
    ...settings,
  };
  return [
    "gate",
    ...Object.entries(all).flatMap(([k, v]) => (v === undefined ? [] : [`--${k}=${v}`])),
  ];
}

/** The classes that are files or settings: each refused before anything is sent. */
function refusals(at: (name: string) => string): HostileCase[] {
  const results = at("results.json");
  const refused = (what: string, settings: Record<string, string | undefined>, says: RegExp) => ({
    what,
    args: gate(results, settings),
    exit: 2,
    says,
    results,
  });
  return [
    refused(
      "a FIFO as the quality suite",
      { "quality-suite": at("suite.fifo") },
      /quality-suite = ".*suite\.fifo" cannot be read: it is a FIFO/,
    ),
    refused(
      "/dev/zero as the config file",
      { config: "/dev/zero" },
      /config = "\/dev\/zero" cannot be read as YAML or JSON: it is a device/,
    ),
    refused(
      "a 10,000,000-row trace",
      { rate: undefined, trace: at("long.csv") },
      /trace = ".*long\.csv" cannot be read: it has more than 2,000,001 lines, the most a trace may hold/,
    ),
    refused(
      "a Mooncake row of 300,000 hash_ids",
      { rate: undefined, trace: at("blocks.jsonl") },
      /blocks\.jsonl.*line 1.*hash_ids = \[0,1,2.* is not accepted; expected a list of at most 1,954 integers/,
    ),
    refused(
      "a tokenizer that counts no tokens",
      { tokenizer: at("tokenizer.json") },
      /tokenizer = ".*tokenizer\.json": .* is not a tokenizer this tool can read/,
    ),
    refused(
      "a backreference in a suite pattern (RE2, linear in time, has none)",
      { "quality-suite": at("backtrack.yml") },
      /case "hostile": check regex: pattern is not a valid regular expression/,
    ),
    refused(
      "a schema that cannot compile in a suite",
      { "quality-suite": at("schema.yml") },
      /schema\.yml: case "hostile": check json_schema: the schema cannot be compiled/,
    ),
    refused(
      "a secret header as a mapping in a config file",
      { config: at("header.yml") },
      /header is a mapping, not accepted/,
    ),
    refused(
      "a base URL with credentials",
      { "baseline-url": `http://user:${MARK}@127.0.0.1:9/v1` },
      /baseline-url: credentials in the URL are not accepted \(the URL is not shown\)/,
    ),
    {
      what: "a history row of wrong types",
      args: ["lanes-report", `--lanes-history=${at("history.jsonl")}`],
      exit: 2,
      says: /history\.jsonl.*line 1 is not a .* row/,
    },
  ];
}

/** The classes that are servers' pages: the scrape fails by name, the run goes on. */
async function metricsPages(mockUrl: string, pages: Server[]): Promise<HostileCase[]> {
  const measure = (metricsUrl: string) => [
    "measure",
    `--url=${mockUrl}/v1`,
    "--model=mock-llm",
    "--rate=5",
    "--duration=1s",
    "--warmup=0s",
    `--metrics-url=${metricsUrl}`,
    // About the scrape, not the schedule: five sends on a busy machine may be late.
    "--max-skew-effect=100%",
    "--max-event-loop-delay-ms=500",
  ];
  return [
    {
      what: "a metrics page that drips a byte every 0.5 s",
      args: measure(await startPage("drip", pages)),
      exit: 0,
      says: /server metrics: not read from .*: .*the body did not end within \d+ ms/,
    },
    {
      what: "a metrics page that never ends",
      args: measure(await startPage("endless", pages)),
      exit: 0,
      says: /server metrics: not read from .*: .*the body passed 8388608 bytes/,
    },
  ];
}

/** Writes the files and starts the servers; `close` stops them and removes the files. */
export async function prepareHostileCases(): Promise<{
  cases: HostileCase[];
  close: () => Promise<void>;
  rssFile: string;
}> {
  const dir = mkdtempSync(join(tmpdir(), "lpg-hostile-"));
  const at = (name: string) => join(dir, name);
  const pages: Server[] = [];
  let mock: MockServer | undefined;
  const close = async () => {
    try {
      for (const page of pages) {
        page.closeAllConnections();
        page.close();
      }
      await mock?.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    writeFiles(at);
    mock = await startMockServer({ profile: quickProfile() });
    const cases = [...refusals(at), ...(await metricsPages(mock.url, pages))];
    return { cases, close, rssFile: at("rss") };
  } catch (error) {
    await close();
    throw error;
  }
}
