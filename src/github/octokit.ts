// The GitHub REST calls the action makes, through @actions/github's Octokit
// (base URL from GITHUB_API_URL, as on GitHub Enterprise).

import { getOctokit } from "@actions/github";
import type { BranchFileApi, IssueApi } from "./branch-file.ts";
import type { CommentApi, IssueComment } from "./comment.ts";
import type { PullRequestApi, Repo } from "./pull-request.ts";

export type GitHubApi = CommentApi & PullRequestApi & BranchFileApi & IssueApi;

/** An Octokit error's HTTP status, if it has one. */
const statusOf = (error: unknown) =>
  typeof error === "object" && error !== null && "status" in error
    ? Number(error.status)
    : undefined;

export function githubApi(token: string): GitHubApi {
  const octokit = getOctokit(token);
  const asComment = (c: {
    id: number;
    body?: string | null;
    html_url: string;
    user?: { login: string; type: string } | null;
  }): IssueComment => ({
    id: c.id,
    body: c.body ?? "",
    html_url: c.html_url,
    user: c.user ? { login: c.user.login, type: c.user.type } : null,
  });
  return {
    async listComments(repo: Repo, issue: number) {
      const all = await octokit.paginate(octokit.rest.issues.listComments, {
        ...repo,
        issue_number: issue,
        per_page: 100,
      });
      return all.map(asComment);
    },
    async create(repo, issue, body) {
      return asComment(
        (await octokit.rest.issues.createComment({ ...repo, issue_number: issue, body })).data,
      );
    },
    async update(repo, id, body) {
      return asComment(
        (await octokit.rest.issues.updateComment({ ...repo, comment_id: id, body })).data,
      );
    },
    async remove(repo, id) {
      await octokit.rest.issues.deleteComment({ ...repo, comment_id: id });
    },
    async whoAmI() {
      try {
        return (await octokit.rest.users.getAuthenticated()).data.login;
      } catch {
        return undefined; // installation tokens cannot read /user
      }
    },
    async getFile(repo, branch, path) {
      try {
        const { data } = await octokit.rest.repos.getContent({ ...repo, path, ref: branch });
        if (Array.isArray(data) || data.type !== "file")
          throw new Error(`${path} on ${branch} is not a file`);
        return { text: Buffer.from(data.content, "base64").toString("utf8"), sha: data.sha };
      } catch (error) {
        if (statusOf(error) === 404) return null;
        throw error;
      }
    },
    async putFile(repo, branch, path, text, sha, message) {
      try {
        await octokit.rest.repos.createOrUpdateFileContents({
          ...repo,
          path,
          branch,
          message,
          content: Buffer.from(text, "utf8").toString("base64"),
          ...(sha ? { sha } : {}),
        });
        return "ok";
      } catch (error) {
        // A stale sha: 409 (conflict) or 422 (sha does not match), as GitHub answers.
        const status = statusOf(error);
        if (status === 409 || status === 422) return "conflict";
        throw error;
      }
    },
    async openIssues(repo) {
      const all = await octokit.paginate(octokit.rest.issues.listForRepo, {
        ...repo,
        state: "open",
        per_page: 100,
      });
      return all
        .filter((i) => !i.pull_request)
        .map((i) => ({ number: i.number, body: i.body ?? "", html_url: i.html_url }));
    },
    async createIssue(repo, title, body) {
      return {
        html_url: (await octokit.rest.issues.create({ ...repo, title, body })).data.html_url,
      };
    },
    async updateIssue(repo, number, body) {
      return {
        html_url: (await octokit.rest.issues.update({ ...repo, issue_number: number, body })).data
          .html_url,
      };
    },
    async openPullsByHead(repo, head) {
      const all = await octokit.paginate(octokit.rest.pulls.list, {
        ...repo,
        state: "open",
        head,
        per_page: 100,
      });
      return all.map((p) => ({
        number: p.number,
        headSha: p.head.sha,
        headRepo: p.head.repo?.full_name ?? "",
      }));
    },
  };
}
