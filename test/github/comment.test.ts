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

test("the pull request of a run: from the event, or by head SHA for workflow_run (forks)", async () => {
  const api = {
    pullsForCommit: async (_r: unknown, sha: string) =>
      sha === "f00d" ? [{ number: 12, headSha: "f00d" }] : [],
  };
  assert.equal(
    await findPullRequest("pull_request", { pull_request: { number: 3 } }, REPO, api),
    3,
  );
  assert.equal(
    await findPullRequest(
      "workflow_run",
      { workflow_run: { head_sha: "beef", pull_requests: [{ number: 4, head: { sha: "beef" } }] } },
      REPO,
      api,
    ),
    4,
  );
  assert.equal(
    await findPullRequest(
      "workflow_run",
      { workflow_run: { head_sha: "f00d", pull_requests: [] } },
      REPO,
      api,
    ),
    12,
  );
  assert.equal(await findPullRequest("push", {}, REPO, api), undefined);
});
