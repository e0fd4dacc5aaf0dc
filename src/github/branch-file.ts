// A file kept on a branch of the repository, as github-action-benchmark keeps
// its history on gh-pages: read it, change it, commit it back — one commit
// per run, read and changed again when another run pushed first (a 409 or 422
// on a stale sha). And the one open issue a graduation trigger keeps current.

import type { Repo } from "./pull-request.ts";

export interface BranchFileApi {
  /** The file's text and blob sha on the branch; null when the file does not exist there. */
  getFile(repo: Repo, branch: string, path: string): Promise<{ text: string; sha: string } | null>;
  /** Commits the text; "conflict" when the sha is no longer the file's (another run pushed). */
  putFile(
    repo: Repo,
    branch: string,
    path: string,
    text: string,
    sha: string | undefined,
    message: string,
  ): Promise<"ok" | "conflict">;
}

export const MAX_PUSH_ATTEMPTS = 5;

/** Applies `change` to the branch's file and commits it; the text committed. */
export async function updateBranchFile(
  api: BranchFileApi,
  repo: Repo,
  branch: string,
  path: string,
  change: (old: string) => string,
  message: string,
): Promise<{ text: string; attempts: number }> {
  for (let attempt = 1; ; attempt++) {
    const current = await api.getFile(repo, branch, path);
    const text = change(current?.text ?? "");
    if ((await api.putFile(repo, branch, path, text, current?.sha, message)) === "ok")
      return { text, attempts: attempt };
    if (attempt >= MAX_PUSH_ATTEMPTS)
      throw new Error(
        `${path} on ${branch}: ${MAX_PUSH_ATTEMPTS} pushes lost the race to other runs; nothing was committed`,
      );
  }
}

export interface IssueApi {
  openIssues(repo: Repo): Promise<{ number: number; body: string; html_url: string }[]>;
  createIssue(repo: Repo, title: string, body: string): Promise<{ html_url: string }>;
  updateIssue(repo: Repo, number: number, body: string): Promise<{ html_url: string }>;
}

/** Opens the issue that carries `marker`, or brings the open one up to date; its URL. */
export async function keepIssue(
  api: IssueApi,
  repo: Repo,
  marker: string,
  title: string,
  body: string,
): Promise<string> {
  const text = `${marker}\n${body}`;
  const open = (await api.openIssues(repo)).find((i) => i.body.includes(marker));
  return open
    ? (await api.updateIssue(repo, open.number, text)).html_url
    : (await api.createIssue(repo, title, text)).html_url;
}
