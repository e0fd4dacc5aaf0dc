// The action's path — inputs → config → gate → results file → outputs,
// summary, comment, step failure — run through runAction with stand-ins for
// @actions/core, the file system, GitHub and the measurement. The bundle
// itself is exercised by test/e2e.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { IssueComment } from "../../src/github/comment.ts";
import { type ActionDeps, runAction } from "../../src/main.ts";
import { startMockServer } from "../../src/mock/server.ts";
import type { TrialOptions } from "../../src/trial/measure.ts";
import { missingFile } from "../helpers/cli.ts";
import { NO_CHECKS } from "../helpers/gate.ts";
import { LOAD_TEST, quickProfile } from "../helpers/mock.ts";
import { type FakeTrial, fakeReport } from "../helpers/reports.ts";
import { type MemoryStreams, memoryStreams } from "../helpers/streams.ts";

interface Recorded {
  outputs: Record<string, string>;
  failed: string[];
  secrets: string[];
  summary: string[];
  files: Map<string, string>;
  comments: IssueComment[];
  logs: string[];
  /** Files on branches ("branch:path"), and how many pushes another run wins first. */
  branchFiles: Map<string, { text: string; sha: string }>;
  racing: number;
  pushes: number;
  issues: { number: number; title: string; body: string; open: boolean; html_url: string }[];
  streams: MemoryStreams;
}

function fakeAction(
  inputs: Record<string, string>,
  trials: { baseline: FakeTrial; candidate: FakeTrial },
  extraFiles: Record<string, string> = {},
): { deps: ActionDeps; seen: Recorded } {
  const seen: Recorded = {
    outputs: {},
    failed: [],
    secrets: [],
    summary: [],
    files: new Map(Object.entries(extraFiles)),
    comments: [],
    logs: [],
    branchFiles: new Map(),
    racing: 0,
    pushes: 0,
    issues: [],
    streams: memoryStreams(),
  };
  seen.files.set("/event.json", JSON.stringify({ pull_request: { number: 7 } }));
  const deps: ActionDeps = {
    env: {
      GITHUB_EVENT_NAME: "pull_request",
      GITHUB_EVENT_PATH: "/event.json",
      GITHUB_REPOSITORY: "acme/serving",
    },
    readFile: (path) => {
      const text = seen.files.get(path);
      if (text === undefined) throw missingFile(path);
      return text;
    },
    writeFile: (path, text) => seen.files.set(path, text),
    openWriteStream: seen.streams.open,
    input: (name) => inputs[name] ?? "",
    multilineInput: (name) => (inputs[name] ? inputs[name].split("\n") : []),
    checks: NO_CHECKS,
    measureTrial: async (m: TrialOptions) =>
      fakeReport(m.target.baseUrl.includes("8001") ? trials.baseline : trials.candidate),
    githubApi: () => ({
      listComments: async () => [...seen.comments],
      create: async (_r, _i, body) => {
        const c = { id: seen.comments.length + 1, body, html_url: "https://x/c", user: null };
        seen.comments.push(c);
        return c;
      },
      update: async (_r, id, body) => {
        const c = seen.comments.find((x) => x.id === id) as IssueComment;
        c.body = body;
        return c;
      },
      remove: async () => {},
      whoAmI: async () => undefined,
      openPullsByHead: async () => [],
      getFile: async (_r, branch, path) => seen.branchFiles.get(`${branch}:${path}`) ?? null,
      putFile: async (_r, branch, path, text, sha) => {
        const key = `${branch}:${path}`;
        // Another run pushes first, as many times as asked.
        if (seen.racing > 0) {
          seen.racing--;
          const theirs = seen.branchFiles.get(key);
          seen.branchFiles.set(key, { text: theirs?.text ?? "", sha: `${theirs?.sha ?? "s"}+` });
          return "conflict";
        }
        if (sha !== seen.branchFiles.get(key)?.sha) return "conflict";
        seen.branchFiles.set(key, { text, sha: `sha${seen.pushes++}` });
        return "ok";
      },
      openIssues: async () => seen.issues.filter((i) => i.open),
      createIssue: async (_r, title, body) => {
        const issue = {
          number: seen.issues.length + 1,
          title,
          body,
          open: true,
          html_url: `https://x/issues/${seen.issues.length + 1}`,
        };
        seen.issues.push(issue);
        return issue;
      },
      updateIssue: async (_r, number, body) => {
        const issue = seen.issues.find((i) => i.number === number) as (typeof seen.issues)[number];
        issue.body = body;
        return issue;
      },
    }),
    io: {
      setOutput: (name, value) => {
        seen.outputs[name] = value;
      },
      info: (m) => seen.logs.push(m),
      warning: (m) => seen.logs.push(`warning: ${m}`),
      error: (m) => seen.logs.push(`error: ${m}`),
      setFailed: (m) => seen.failed.push(m),
      setSecret: (v) => seen.secrets.push(v),
      writeSummary: async (md) => {
        seen.summary.push(md);
      },
    },
  };
  return { deps, seen };
}

const INPUTS = {
  "baseline-url": "http://127.0.0.1:8001/v1",
  "candidate-url": "http://127.0.0.1:8002/v1",
  model: "m",
  rate: "10",
  "quality-suite": "none",
  accuracy: "none",
  contract: "none",
  "github-token": "ghs_secret_token",
  "api-key": "sk-secret-key",
  "results-path": "/out/results.json",
};

test(
  "a regression: outputs, summary, one comment, results file, a failed step, secrets masked",
  LOAD_TEST,
  async () => {
    const { deps, seen } = fakeAction(INPUTS, {
      baseline: { ttftMs: 100, itlMs: 10 },
      candidate: { ttftMs: 100, itlMs: 13 },
    });
    await runAction(deps);
    assert.equal(seen.outputs.verdict, "fail");
    assert.equal(seen.outputs["itl-verdict"], "regressed");
    assert.equal(seen.outputs["results-path"], "/out/results.json");
    // Beside the results by default (the stand-in trials send no request: no line).
    assert.equal(seen.outputs["requests-path"], "/out/results.requests.jsonl.gz");
    assert.equal(seen.streams.text("/out/results.requests.jsonl.gz"), "");
    assert.match(seen.failed[0] ?? "", /^llm-perf-gate: fail — regressed: p95 ITL \+30\.0 %/);
    assert.deepEqual([...new Set(seen.secrets)].sort(), ["ghs_secret_token", "sk-secret-key"]);
    const results = JSON.parse(seen.files.get("/out/results.json") ?? "{}");
    assert.equal(results.schema, "llm-perf-gate/results@4");
    assert.equal(results.verdict, "fail");
    // The default design: the regression shows at the first look (4 pairs), which ends the gate.
    assert.equal(results.trials.length, 8);
    assert.doesNotMatch(
      seen.files.get("/out/results.json") ?? "",
      /sk-secret-key|ghs_secret_token/,
    );
    assert.equal(seen.comments.length, 1);
    assert.match(seen.comments[0]?.body ?? "", /^<!-- llm-perf-gate:default -->\n### ❌/);
    assert.match(seen.summary[0] ?? "", /\*\*fail\*\*/);
  },
);

test(
  "a bad input: named, no exception, an error results file, and the step fails",
  LOAD_TEST,
  async () => {
    const { deps, seen } = fakeAction(
      { ...INPUTS, trials: "three" },
      { baseline: { ttftMs: 100, itlMs: 10 }, candidate: { ttftMs: 100, itlMs: 10 } },
    );
    await runAction(deps);
    assert.equal(seen.outputs.verdict, "error");
    assert.match(seen.failed[0] ?? "", /trials = "three" is not accepted; expected an integer ≥ 1/);
    assert.equal(JSON.parse(seen.files.get("/out/results.json") ?? "{}").verdict, "error");
  },
);

test(
  "measure mode writes results without commenting; report mode posts them",
  LOAD_TEST,
  async () => {
    const trials = { baseline: { ttftMs: 100, itlMs: 10 }, candidate: { ttftMs: 101, itlMs: 10 } };
    const measured = fakeAction({ ...INPUTS, mode: "measure" }, trials);
    await runAction(measured.deps);
    assert.equal(measured.seen.outputs.verdict, "pass");
    assert.equal(measured.seen.comments.length, 0, "an unprivileged job does not comment");
    assert.equal(measured.seen.outputs["report-html"], "/out/llm-perf-gate-report.html");
    assert.match(
      measured.seen.files.get("/out/llm-perf-gate-report.html") ?? "",
      /<figure id="forest-ttft"/,
    );
    const text = measured.seen.files.get("/out/results.json") as string;
    const report = fakeAction(
      { mode: "report", "results-path": "/in/results.json", "github-token": "ghs_x" },
      trials,
      { "/in/results.json": text },
    );
    await runAction(report.deps);
    assert.equal(report.seen.outputs.verdict, "pass");
    assert.equal(report.seen.comments.length, 1);
    assert.deepEqual(report.seen.failed, []);
    assert.equal(
      report.seen.files.has("/out/results.json"),
      false,
      "report mode writes no results",
    );
    // Its page, beside the results it read, drawn after the comment.
    assert.equal(report.seen.outputs["report-html"], "/in/llm-perf-gate-report.html");
    assert.match(
      report.seen.files.get("/in/llm-perf-gate-report.html") ?? "",
      /llm-perf-gate: pass/,
    );
  },
);

test(
  "a cancelled job writes its results, and the comment says it was cancelled",
  LOAD_TEST,
  async () => {
    const trials = { baseline: { ttftMs: 100, itlMs: 10 }, candidate: { ttftMs: 100, itlMs: 10 } };
    const { deps, seen } = fakeAction(INPUTS, trials);
    let cancel: (signal: NodeJS.Signals) => void = () => {};
    deps.signals = {
      listen: (onSignal) => {
        cancel = onSignal;
        return () => {};
      },
    };
    let measured = 0;
    deps.measureTrial = async () => {
      // The runner's SIGINT arrives during the third trial.
      if (++measured === 3) cancel("SIGINT");
      return fakeReport(trials.baseline);
    };
    await runAction(deps);
    assert.equal(seen.outputs.verdict, "cancelled");
    assert.deepEqual(seen.failed, [], "fail-on decides: cancelled is not in its default");
    const results = JSON.parse(seen.files.get("/out/results.json") ?? "{}");
    assert.equal(results.verdict, "cancelled");
    assert.equal(results.trials.length, 2, "the first pair is kept; the cut trial is not");
    assert.match(
      seen.comments[0]?.body ?? "",
      /### ⏹️ llm-perf-gate: \*\*cancelled\*\* — the job was cancelled \(SIGINT\) after 1 pair of trials/,
    );
  },
);

test("one pair cannot fail a gate: it says so, loudly", LOAD_TEST, async () => {
  const trials = { baseline: { ttftMs: 100, itlMs: 10 }, candidate: { ttftMs: 100, itlMs: 10 } };
  const { deps, seen } = fakeAction({ ...INPUTS, trials: "1", "max-trials": "1" }, trials);
  await runAction(deps);
  assert.ok(
    seen.logs.some((l) =>
      /warning: .*trials is 1: with one pair the trial-to-trial noise is unknown/.test(l),
    ),
  );
  assert.match(seen.comments[0]?.body ?? "", /> ⚠️ \*\*Warning:\*\* trials is 1/);
});

test(
  "mode burst: one burst appended to the history on a branch (a lost push race retried), the report, one graduation issue",
  LOAD_TEST,
  async () => {
    const server = await startMockServer({ profile: quickProfile() });
    try {
      const lanes = [
        "lanes:",
        `  - { name: own-gpu, url: "${server.url}/v1", model: mock-llm }`,
        "task: { messages: [{ role: user, content: 'Say OK.' }], max_tokens: 8, timeout_s: 10 }",
        "floor: { ms: 25000 }",
        "windows: { times: ['09:00', '11:00', '14:00', '16:00'], time_zone: Europe/Berlin }",
      ].join("\n");
      const inputs = {
        mode: "burst",
        lanes: "/lanes.yaml",
        "lanes-history": "perf/lanes.jsonl",
        "lanes-history-branch": "perf-history",
        "lanes-issue": "true",
        "github-token": "ghs_secret_token",
      };
      const { deps, seen } = fakeAction(
        inputs,
        { baseline: { ttftMs: 1, itlMs: 1 }, candidate: { ttftMs: 1, itlMs: 1 } },
        { "/lanes.yaml": lanes },
      );
      // Three days already on the branch, in which the free lane fails its 16:00 floor twice.
      const fixture = readFileSync(
        join(import.meta.dirname, "../fixtures/lanes-history.jsonl"),
        "utf8",
      );
      seen.branchFiles.set("perf-history:perf/lanes.jsonl", { text: fixture, sha: "sha-start" });
      seen.racing = 1;
      // 14:03 in Berlin on the fourth day: the 14:00 window.
      await runAction({ ...deps, now: () => new Date("2026-11-19T13:03:00Z") });
      assert.deepEqual(seen.failed, []);
      const committed = seen.branchFiles.get("perf-history:perf/lanes.jsonl")?.text ?? "";
      assert.ok(
        committed.startsWith(fixture),
        "appended, not replaced — after re-reading the other run's push",
      );
      const added = committed
        .slice(fixture.length)
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      assert.equal(added.length, 8);
      assert.ok(
        added.every(
          (r) =>
            r.lane === "own-gpu" &&
            r.window === "14:00" &&
            r.local_date === "2026-11-19" &&
            r.passed,
        ),
      );
      assert.equal(
        seen.files.get("perf/lanes.jsonl"),
        committed,
        "the workspace copy is the committed one",
      );
      assert.ok(
        seen.logs.some((l) =>
          /8 rows committed to perf\/lanes.jsonl on perf-history \(push 2\)/.test(l),
        ),
      );
      assert.match(seen.summary.join(""), /### Lanes at the busy hour/);
      assert.deepEqual(JSON.parse(seen.outputs["lanes-verdicts"] ?? "{}"), {
        "free-hosted": "graduate",
        "own-gpu": "choose",
      });
      assert.equal(seen.outputs.graduate, "true");
      assert.equal(seen.issues.length, 1);
      assert.match(seen.issues[0]?.title ?? "", /graduate free-hosted/);
      // The next run updates that issue, not a second one.
      await runAction({ ...deps, now: () => new Date("2026-11-19T15:02:00Z") });
      assert.equal(seen.issues.length, 1);
      assert.equal(seen.outputs["issue-url"], seen.issues[0]?.html_url);
      assert.ok(seen.secrets.includes("ghs_secret_token"), "the token is masked");
      const { secrets: _masked, ...shown } = seen;
      assert.doesNotMatch(
        JSON.stringify({ ...shown, branchFiles: [...seen.branchFiles], files: [...seen.files] }),
        /ghs_secret_token/,
        "and written nowhere",
      );
    } finally {
      await server.close();
    }
  },
);

/** The action's burst of one lane against this server, its history on a branch. */
function branchBurst(url: string) {
  const lanes = [
    `lanes: [{ name: own-gpu, url: "${url}/v1", model: mock-llm }]`,
    "task: { messages: [{ role: user, content: 'Say OK.' }], max_tokens: 4 }",
    "floor: { ms: 25000 }",
    "windows: { times: ['09:00'] }",
    "burst: { size: 2 }",
  ].join("\n");
  return fakeAction(
    {
      mode: "burst",
      lanes: "/lanes.yaml",
      "lanes-history-branch": "perf-history",
      "github-token": "t0k3n",
    },
    { baseline: { ttftMs: 1, itlMs: 1 }, candidate: { ttftMs: 1, itlMs: 1 } },
    { "/lanes.yaml": lanes },
  );
}

test(
  "mode burst: a history that cannot be committed fails the step, but nothing is lost",
  LOAD_TEST,
  async () => {
    const server = await startMockServer();
    try {
      const { deps, seen } = branchBurst(server.url);
      seen.racing = 100; // every push loses to another run
      await runAction(deps);
      assert.match(
        seen.failed[0] ?? "",
        /the history could not be committed to perf-history: .*5 pushes lost the race/,
      );
      assert.ok(
        seen.logs.some((l) =>
          /^error: .*this run's rows are in llm-perf-gate-lanes\.jsonl/.test(l),
        ),
      );
      assert.equal(
        (seen.files.get("llm-perf-gate-lanes.jsonl") ?? "").trim().split("\n").length,
        2,
      );
      assert.match(seen.summary.join(""), /### Lanes at the busy hour/);
    } finally {
      await server.close();
    }
  },
);

test(
  "mode burst: a corrupt history on the branch is refused before anything is appended to it",
  LOAD_TEST,
  async () => {
    const server = await startMockServer();
    try {
      const { deps, seen } = branchBurst(server.url);
      const corrupt = '{"lane": "own-gpu", "passed": "false"}\n';
      seen.branchFiles.set("perf-history:llm-perf-gate-lanes.jsonl", { text: corrupt, sha: "s" });
      await runAction(deps);
      assert.match(
        seen.failed[0] ?? "",
        /the history could not be committed to perf-history: .*perf-history:llm-perf-gate-lanes\.jsonl/,
      );
      assert.equal(seen.branchFiles.get("perf-history:llm-perf-gate-lanes.jsonl")?.text, corrupt);
      assert.equal(
        (seen.files.get("llm-perf-gate-lanes.jsonl") ?? "").trim().split("\n").length,
        2,
        "this run's rows are kept in the workspace",
      );
    } finally {
      await server.close();
    }
  },
);
