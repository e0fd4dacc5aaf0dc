// The GitHub REST calls the action makes, through @actions/github's Octokit
// (base URL from GITHUB_API_URL, as on GitHub Enterprise).

import { getOctokit } from "@actions/github";
import type { CommentApi, IssueComment } from "./comment.ts";
import type { PullRequestApi, Repo } from "./pull-request.ts";

export function githubApi(token: string): CommentApi & PullRequestApi {
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
