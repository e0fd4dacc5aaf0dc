import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { chatBody, send } from "../helpers/client.ts";

const CLI = join(import.meta.dirname, "../../src/cli.ts");

function runCli(args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", timeout: 30_000 });
}

test("mock prints its URL, serves, and stops cleanly on SIGTERM", async () => {
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

test("bad flags and settings fail with exit code 2 and a message naming them", () => {
  const cases: [string[], RegExp][] = [
    [
      ["mock", "--set", "faults.empty=7"],
      /--set: faults\.empty = 7 is not accepted; expected a number in \[0, 1\]/,
    ],
    [
      ["mock", "--port", "http"],
      /--port http is not accepted; expected an integer in \[0, 65535\]/,
    ],
    [["mock", "--speed", "2"], /mock: Unknown option '--speed'/],
    [
      ["mock", "--profile", "/nonexistent/profile.json"],
      /--profile \/nonexistent\/profile\.json: cannot read/,
    ],
    [["fly"], /unknown command "fly"; accepted: demo, mock, help/],
  ];
  for (const [args, message] of cases) {
    const r = runCli(args);
    assert.equal(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
  }
});

test("demo runs the mock and one streaming request", () => {
  const r = runCli(["demo"]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /first token\s+\d+\.\d ms {2}\(TTFT\)/);
  assert.match(
    r.stdout,
    /48 tokens \(usage\) in 48 content chunks, finish_reason=length, \[DONE\]=true/,
  );
});

test("the bundled action runs and writes its job summary", () => {
  const dir = mkdtempSync(join(tmpdir(), "lpg-action-"));
  const summary = join(dir, "summary.md");
  writeFileSync(summary, "");
  const r = spawnSync(process.execPath, [join(import.meta.dirname, "../../dist/index.js")], {
    encoding: "utf8",
    timeout: 30_000,
    env: { PATH: process.env.PATH, GITHUB_STEP_SUMMARY: summary },
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(readFileSync(summary, "utf8"), /<h2>llm-perf-gate demo<\/h2>/);
});
