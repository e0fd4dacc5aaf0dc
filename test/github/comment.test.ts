import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type CommentApi,
  type IssueComment,
  upsertStickyComment,
} from "../../src/github/comment.ts";
import { findPullRequest } from "../../src/github/pull-request.ts";

const REPO = { owner: "acme", repo: "serving" };
const MARK = "<!-- llm-perf-gate:default -->";
const bot = { login: "github-actions[bot]", type: "Bot" };

function memoryApi(comments: IssueComment[], login?: string) {
  const calls: string[] = [];
  let nextId = 100;
  const api: CommentApi = {
    listComments: async () => [...comments],
    create: async (_r, _i, body) => {
      calls.push("create");
      const c = { id: nextId++, body, html_url: "u-new", user: bot };
      comments.push(c);
      return c;
    },
    update: async (_r, id, body) => {
      calls.push(`update ${id}`);
      const c = comments.find((x) => x.id === id) as IssueComment;
      c.body = body;
      return c;
    },
    remove: async (_r, id) => {
      calls.push(`delete ${id}`);
      comments.splice(
        comments.findIndex((x) => x.id === id),
        1,
      );
    },
    whoAmI: async () => login,
  };
  return { api, calls };
}

test("creates once, then updates the oldest and deletes duplicates from races", async () => {
  const comments: IssueComment[] = [
    { id: 1, body: "LGTM", html_url: "u1", user: { login: "dev", type: "User" } },
  ];
  const { api, calls } = memoryApi(comments);
  const first = await upsertStickyComment(api, REPO, 7, MARK, `${MARK}\nv1`);
  assert.equal(first.action, "created");
  comments.push({ id: 50, body: `${MARK}\nrace`, html_url: "u50", user: bot });
  const second = await upsertStickyComment(api, REPO, 7, MARK, `${MARK}\nv2`);
  assert.deepEqual(calls, ["create", "update 50", "delete 100"]);
  assert.equal(second.deleted, 1);
  assert.deepEqual(
    comments.map((c) => c.id),
    [1, 50],
  );
  assert.match(comments[1]?.body ?? "", /v2/);
});

test("only our identity's comments count: a user quoting the marker is left alone", async () => {
  const comments: IssueComment[] = [
    { id: 5, body: `quoting ${MARK}`, html_url: "u5", user: { login: "mallory", type: "User" } },
    {
      id: 6,
      body: `${MARK} from another token`,
      html_url: "u6",
      user: { login: "perf-bot", type: "User" },
    },
  ];
  const asBot = memoryApi([...comments]);
  assert.equal((await upsertStickyComment(asBot.api, REPO, 7, MARK, "x")).action, "created");
  const asPerfBot = memoryApi([...comments], "perf-bot");
  const r = await upsertStickyComment(asPerfBot.api, REPO, 7, MARK, "x");
  assert.deepEqual([r.action, asPerfBot.calls], ["updated", ["update 6"]]);
});

test("on-regression: no new comment for a pass", async () => {
  const { api, calls } = memoryApi([]);
  const r = await upsertStickyComment(api, REPO, 7, MARK, "x", false);
  assert.equal(r.action, "skipped");
  assert.deepEqual(calls, []);
});

test("the pull request of a run: from the event; for workflow_run, by head and SHA, a claim checked", async () => {
  const api = {
    openPullsByHead: async (_r: unknown, head: string) =>
      head === "forker:fix-kv"
        ? [
            { number: 12, headSha: "f00d", headRepo: "forker/serving" },
            { number: 13, headSha: "0ld5", headRepo: "forker/serving" },
          ]
        : [],
  };
  const run = (sha: string, owner = "forker") => ({
    workflow_run: {
      head_sha: sha,
      head_branch: "fix-kv",
      head_repository: { full_name: `${owner}/serving`, owner: { login: owner } },
      pull_requests: [],
    },
  });
  assert.deepEqual(
    await findPullRequest("pull_request", { pull_request: { number: 3 } }, REPO, api),
    { number: 3 },
  );
  assert.deepEqual(await findPullRequest("workflow_run", run("f00d"), REPO, api), { number: 12 });
  assert.deepEqual(await findPullRequest("workflow_run", run("f00d"), REPO, api, 12), {
    number: 12,
  });
  const lie = await findPullRequest("workflow_run", run("f00d"), REPO, api, 99);
  assert.match(
    "none" in lie ? lie.none : "",
    /claims PR #99, but no open pull request .* \(PR #12 has\)/,
  );
  const stale = await findPullRequest("workflow_run", run("beef"), REPO, api, 12);
  assert.ok("none" in stale, "the claimed PR's head moved on: refused");
  assert.ok("none" in (await findPullRequest("workflow_run", run("f00d", "mallory"), REPO, api)));
  assert.ok("none" in (await findPullRequest("push", {}, REPO, api)));
});
