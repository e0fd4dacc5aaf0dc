// Bursts against mocks on 127.0.0.1: retries counted across attempts with the
// server's retry-after waited out; a lane that fails its floor at its busy
// hour (16:00) and passes at 09:00; and a key that never reaches the history
// or the report, even when the server quotes it back.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "../../src/cli.ts";
import { writeOutputFile } from "../../src/common/outputs.ts";
import { burstLanes } from "../../src/lanes/burst.ts";
import { reduceHistory } from "../../src/lanes/reduce.ts";
import { type LanesSpec, parseLanes } from "../../src/lanes/spec.ts";
import { startMockServer } from "../../src/mock/server.ts";
import { missingFile } from "../helpers/cli.ts";
import { LOAD_TEST, quickProfile } from "../helpers/mock.ts";

function lanesFile(lanes: { name: string; url: string; key?: string }[], extra = ""): string {
  return [
    "lanes:",
    ...lanes.flatMap((l) => [
      `  - name: ${l.name}`,
      `    url: ${l.url}/v1`,
      "    model: mock-llm",
      ...(l.key ? [`    api_key_env: ${l.key}`] : []),
    ]),
    "task:",
    "  messages: [{ role: user, content: 'Write one line of Python that reverses a list.' }]",
    "  max_tokens: 16",
    "  timeout_s: 10",
    "windows: { times: ['09:00', '16:00'], time_zone: UTC }",
    extra,
  ].join("\n");
}

test(
  "retries: a 429's retry-after is waited out, and the latency counts from the scheduled time across attempts",
  LOAD_TEST,
  async () => {
    const server = await startMockServer({
      profile: quickProfile({ faults: { quota429: 0.5 } }),
    });
    try {
      const spec = parseLanes(
        lanesFile(
          [{ name: "throttled", url: server.url }],
          "floor: { ms: 10000 }\nretry: { on: [rate_limited_quota], max_attempts: 4, backoff_s: 0.05 }",
        ),
        "test",
      );
      const rows = await burstLanes(spec, { date: () => new Date("2026-11-17T09:01:00Z") });
      assert.equal(rows.length, 8);
      const retried = rows.filter((r) => r.failed_attempts.length > 0 && r.outcome === "ok");
      assert.ok(retried.length > 0, JSON.stringify(rows.map((r) => r.failed_attempts)));
      for (const r of rows) {
        assert.equal(r.attempts, r.failed_attempts.length + (r.outcome === "ok" ? 1 : 0));
        assert.ok(r.failed_attempts.every((c) => c === "rate_limited_quota"));
      }
      for (const r of retried) {
        // Each retry waited the server's retry-after (1 s), not the 0.05 s backoff.
        assert.ok(
          (r.full_answer_ms as number) >= 1000 * r.failed_attempts.length,
          JSON.stringify(r),
        );
      }
      const burst = reduceHistory(rows).bursts[0];
      assert.equal(
        burst?.failed_attempts.rate_limited_quota,
        rows.reduce((a, r) => a + r.failed_attempts.length, 0),
      );
      assert.equal(burst?.retry_rate, rows.reduce((a, r) => a + r.attempts - 1, 0) / 8);
    } finally {
      await server.close();
    }
  },
);

test(
  "the busy hour: the same lane fails its floor at 16:00 and passes at 09:00",
  LOAD_TEST,
  async () => {
    let now = new Date("2026-11-17T16:05:00Z");
    const server = await startMockServer({
      profile: quickProfile({ busyHours: "16:00-17:00", busyDelayMs: 600 }),
      clock: () => now,
    });
    try {
      const spec: LanesSpec = parseLanes(
        lanesFile([{ name: "shared", url: server.url }], "floor: { latency: ttft, ms: 400 }"),
        "test",
      );
      const busy = await burstLanes(spec, { date: () => now });
      now = new Date("2026-11-17T09:05:00Z");
      const quiet = await burstLanes(spec, { date: () => now });
      assert.ok(
        busy.every((r) => r.window === "16:00" && !r.passed && (r.ttft_ms as number) >= 600),
      );
      assert.ok(
        quiet.every((r) => r.window === "09:00" && r.passed),
        JSON.stringify(quiet.map((r) => r.ttft_ms)),
      );
      const bursts = reduceHistory([...busy, ...quiet]).bursts;
      assert.deepEqual(
        bursts.map((b) => [b.window, b.pass_rate]),
        [
          ["09:00", 1],
          ["16:00", 0],
        ],
      );
    } finally {
      await server.close();
    }
  },
);

test(
  "a lane's key never reaches the history or the report, though the server quotes a wrong one back",
  LOAD_TEST,
  async () => {
    const server = await startMockServer({
      profile: quickProfile({ apiKey: "right-key-8841" }),
    });
    const files = new Map<string, string>([
      [
        "lanes.yaml",
        lanesFile(
          [
            { name: "wrong-key", url: server.url, key: "LANE_WRONG_KEY" },
            { name: "right-key", url: server.url, key: "LANE_RIGHT_KEY" },
          ],
          "floor: { ms: 5000 }",
        ),
      ],
    ]);
    const out: string[] = [];
    try {
      const code = await runCli(
        ["burst", "--lanes", "lanes.yaml", "--history", "h.jsonl", "--csv", "h.csv"],
        {
          stdout: (t) => out.push(t),
          stderr: (t) => out.push(t),
          env: { LANE_WRONG_KEY: "sk-wrong-SECRET-5150", LANE_RIGHT_KEY: "right-key-8841" },
          readFile: (p) => {
            const text = files.get(p);
            if (text === undefined) throw missingFile(p);
            return text;
          },
          writeFile: (p, t) => files.set(p, t),
        },
      );
      assert.equal(code, 0, out.join(""));
      const history = files.get("h.jsonl") ?? "";
      assert.equal(history.trim().split("\n").length, 16);
      assert.match(history, /"lane":"wrong-key".*"outcome":"http_4xx"/);
      assert.match(history, /"lane":"right-key".*"outcome":"ok"/);
      const everything = [history, files.get("h.csv") ?? "", ...out].join("\n");
      assert.doesNotMatch(everything, /sk-wrong-SECRET-5150/);
      assert.doesNotMatch(everything, /right-key-8841/);
      assert.match(out.join(""), /### Lanes at the busy hour/);
      // A second run appends; lanes-report reads it back and writes its JSON.
      assert.equal(
        await runCli(["lanes-report", "--history", "h.jsonl", "--out", "r.json"], {
          stdout: () => {},
          stderr: (t) => out.push(t),
          env: {},
          readFile: (p) => files.get(p) ?? "",
          writeFile: (p, t) => files.set(p, t),
        }),
        0,
      );
      assert.equal(JSON.parse(files.get("r.json") ?? "{}").schema, "llm-perf-gate/lanes-report@1");
    } finally {
      await server.close();
    }
  },
);

test(
  "a lanes file: defaults filled in; a key pasted where its variable's name goes is refused, not echoed; an unset key variable is refused before any request",
  LOAD_TEST,
  async () => {
    const spec = parseLanes(
      lanesFile([{ name: "a", url: "http://127.0.0.1:1" }], "floor: { ms: 25000 }"),
      "lanes.yaml",
    );
    assert.deepEqual(spec.burst, { size: 8, spacing_s: 0 });
    assert.deepEqual(spec.retry, {
      on: ["rate_limited", "overloaded", "http_5xx", "connect_error"],
      max_attempts: 3,
      backoff_s: 1,
      max_wait_s: 60,
    });
    assert.equal(spec.floor.latency, "full_answer");
    assert.equal(spec.rule.days, 3);
    const bad = (text: string, message: RegExp) =>
      assert.throws(
        () => parseLanes(text, "lanes.yaml"),
        (e: Error) => message.test(e.message) && !/sk-live-77/.test(e.message),
      );
    bad(
      lanesFile(
        [{ name: "a", url: "http://127.0.0.1:1", key: "sk-live-77abc" }],
        "floor: { ms: 1 }",
      ),
      /^lanes lanes\.yaml: \/lanes\/0\/api_key_env must match pattern/,
    );
    bad(
      lanesFile([{ name: "a", url: "ftp://x" }], "floor: { ms: 1 }"),
      /lane "a": url = "ftp:\/\/x\/v1" is not an http\(s\) URL/,
    );
    bad(
      lanesFile([{ name: "a", url: "https://u:sk-live-77abc@api.example" }], "floor: { ms: 1 }"),
      /lane "a": its url carries credentials \(the URL is not shown\)/,
    );
    bad(
      lanesFile([{ name: "a", url: "sk-live-77abcdef" }], "floor: { ms: 1 }"),
      /lane "a": url = \(a value that looks like a credential, \d+ characters, not shown\) is not an http/,
    );
    const keyed = parseLanes(
      lanesFile([{ name: "a", url: "http://127.0.0.1:1", key: "LANE_A_KEY" }], "floor: { ms: 1 }"),
      "lanes.yaml",
    );
    await assert.rejects(
      burstLanes(keyed, { env: {} }),
      /lane "a": api_key_env names "LANE_A_KEY", which is not set \(or empty\) in the environment/,
    );
    // A key pasted where its variable's name belongs (the schema's name pattern admits it):
    // refused as the file is read, described, never quoted — nor a key used as a lane's name.
    const pasted = "hf_PASTEDSECRETabcdef123456";
    const described = (e: Error) => !e.message.includes(pasted) && !e.message.includes("PASTED");
    assert.throws(
      () =>
        parseLanes(
          lanesFile([{ name: "a", url: "http://127.0.0.1:1", key: pasted }], "floor: { ms: 1 }"),
          "lanes.yaml",
        ),
      (e: Error) =>
        described(e) &&
        /lane "a": api_key_env = \(a value that looks like a credential, 27 characters, not shown\): it holds what looks like a key itself/.test(
          e.message,
        ),
    );
    assert.throws(
      () =>
        parseLanes(
          lanesFile([{ name: pasted, url: "http://127.0.0.1:1" }], "floor: { ms: 1 }"),
          "lanes.yaml",
        ),
      (e: Error) =>
        described(e) && /a lane's name = \(a value that looks like a credential/.test(e.message),
    );
    bad(
      lanesFile([{ name: "a", url: "http://127.0.0.1:1" }], "floor: { ms: 1 }").replace(
        "time_zone: UTC",
        "time_zone: Mars/Olympus",
      ),
      /windows\.time_zone = "Mars\/Olympus" is not a time zone/,
    );
    bad(
      lanesFile([{ name: "a", url: "http://127.0.0.1:1" }], "floor: { ms: 1 }\nspeed: 3"),
      /the file must NOT have additional properties \(speed\)/,
    );
  },
);

test(
  "a history in a folder that does not exist is refused before the burst is sent, naming the input",
  LOAD_TEST,
  async () => {
    let requests = 0;
    const server = createServer((req, res) => {
      requests++;
      req.resume();
      res.writeHead(500);
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const history = join(mkdtempSync(join(tmpdir(), "lpg-lanes-")), "no-such-folder", "h.jsonl");
    const err: string[] = [];
    try {
      const code = await runCli(["burst", "--lanes", "lanes.yaml", "--history", history], {
        stdout: () => {},
        stderr: (t) => err.push(t),
        env: {},
        readFile: (p) => {
          if (p === "lanes.yaml")
            return lanesFile(
              [{ name: "a", url: `http://127.0.0.1:${port}` }],
              "floor: { ms: 1000 }",
            );
          throw missingFile(p);
        },
        writeFile: writeOutputFile,
      });
      assert.equal(code, 2, err.join(""));
      assert.match(
        err.join(""),
        /--lanes-history ".*no-such-folder\/h\.jsonl" cannot be written: ENOENT/,
      );
      assert.equal(requests, 0, "nothing was sent");
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  },
);
