// A secret put where it does not belong — any action input — is in no
// output: not the failure message, the logs, the outputs, the job summary or
// the results file. A refused value that looks like a credential is
// described; an accepted one is masked wherever it is written.

import assert from "node:assert/strict";
import { test } from "node:test";
import { ACTION_SETTINGS } from "../src/config/settings.ts";
import { type ActionDeps, runAction } from "../src/main.ts";
import { missingFile } from "./helpers/cli.ts";
import { LOAD_TEST } from "./helpers/mock.ts";
import { fakeReport } from "./helpers/reports.ts";

const MARKER = "sk-lpgmarker0123456789";
/** Paths the action writes and names in its outputs: a path is not a secret. */
const WRITTEN_PATHS = new Set(["results-path", "requests-path", "report-html", "server-log-dir"]);

const BASE: Record<string, string> = {
  "baseline-url": "http://127.0.0.1:9/v1",
  "candidate-url": "http://127.0.0.1:9/v1",
  model: "m",
  rate: "5",
  "quality-suite": "none",
  accuracy: "none",
  contract: "none",
  "results-path": "/out/results.json",
};

async function everythingSaid(inputs: Record<string, string>): Promise<string> {
  const said: string[] = [];
  const written = new Map<string, string>();
  const deps: ActionDeps = {
    env: {},
    readFile: (path: string) => {
      throw missingFile(path);
    },
    writeFile: (path: string, text: string) => {
      written.set(path, text);
    },
    input: (n) => inputs[n] ?? "",
    multilineInput: (n) => (inputs[n] ? [inputs[n]] : []),
    measureTrial: async () => fakeReport({ ttftMs: 100, itlMs: 10 }),
    githubApi: () => {
      throw new Error("no GitHub API without a repository");
    },
    io: {
      setOutput: (n, v) => said.push(`output ${n}=${v}`),
      info: (m) => said.push(m),
      warning: (m) => said.push(m),
      error: (m) => said.push(m),
      setFailed: (m) => said.push(m),
      setSecret: () => {},
      writeSummary: async (m) => {
        said.push(m);
      },
    },
  };
  try {
    await runAction(deps);
  } catch (error) {
    // Only a setting that reaches GitHub (a token) gets here: no GitHub in this test.
    said.push(String(error));
  }
  for (const text of written.values()) said.push(text);
  return said.join("\n");
}

test(
  "a marker secret in any action input appears in no output, log, summary or file",
  LOAD_TEST,
  async () => {
    const leaked: string[] = [];
    for (const s of ACTION_SETTINGS) {
      if (WRITTEN_PATHS.has(s.name)) continue;
      const said = await everythingSaid({ ...BASE, [s.name]: MARKER });
      if (said.includes(MARKER)) {
        const at = said.indexOf(MARKER);
        leaked.push(`${s.name}: …${said.slice(Math.max(0, at - 80), at + 30)}`);
      }
    }
    assert.deepEqual(leaked, []);
  },
);
