// The history on a branch and the graduation issue through the real Octokit
// calls, against the fake GitHub API on 127.0.0.1: base64 content, blob shas,
// a push that loses the race to another run re-read and re-applied, and one
// issue created, then kept current.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { keepIssue, updateBranchFile } from "../../src/github/branch-file.ts";
import type { GitHubApi } from "../../src/github/octokit.ts";
import { type FakeGitHub, startFakeGitHub } from "../helpers/fake-github.ts";

const REPO = { owner: "acme", repo: "serving" };
let gh: FakeGitHub;
let api: GitHubApi;

before(async () => {
  gh = await startFakeGitHub();
  // @actions/github reads the API's base URL from the environment when it is
  // loaded (as on GitHub Enterprise): set first, imported after.
  process.env.GITHUB_API_URL = gh.url;
  const { githubApi } = await import("../../src/github/octokit.ts");
  api = githubApi("ghs_test");
  gh.branches.add("perf-history");
});
after(() => gh.close());

test("a file on a branch: created, appended, and re-read when another run pushed first", async () => {
  const add = (line: string) => (old: string) => `${old}${line}\n`;
  const first = await updateBranchFile(
    api,
    REPO,
    "perf-history",
    "lanes/history.jsonl",
    add("a"),
    "first",
  );
  assert.deepEqual(first, { text: "a\n", attempts: 1 });
  assert.equal(gh.files.get("perf-history:lanes/history.jsonl")?.text, "a\n");
  // Another run pushes between our read and our write, once.
  let raced = false;
  const racing: GitHubApi = {
    ...api,
    getFile: async (...args) => {
      const got = await api.getFile(...args);
      if (!raced) {
        raced = true;
        await api.putFile(
          REPO,
          "perf-history",
          "lanes/history.jsonl",
          `${got?.text}theirs\n`,
          got?.sha,
          "theirs",
        );
      }
      return got;
    },
  };
  const second = await updateBranchFile(
    racing,
    REPO,
    "perf-history",
    "lanes/history.jsonl",
    add("b"),
    "second",
  );
  assert.deepEqual(second, { text: "a\ntheirs\nb\n", attempts: 2 });
  assert.equal(
    gh.files.get("perf-history:lanes/history.jsonl")?.text,
    "a\ntheirs\nb\n",
    "nobody's rows lost",
  );
  assert.equal(await api.getFile(REPO, "perf-history", "missing.jsonl"), null);
  await assert.rejects(
    updateBranchFile(api, REPO, "no-such-branch", "h.jsonl", add("x"), "x"),
    /Branch no-such-branch not found/,
  );
});

test("the graduation issue: opened once, then updated", async () => {
  const url = await keepIssue(api, REPO, "<!-- mark -->", "graduate free-hosted", "report 1");
  assert.equal(url, "https://github.example/acme/serving/issues/1");
  assert.equal(
    await keepIssue(api, REPO, "<!-- mark -->", "graduate free-hosted", "report 2"),
    url,
  );
  assert.equal(gh.issues.length, 1);
  assert.equal(gh.issues[0]?.body, "<!-- mark -->\nreport 2");
});
