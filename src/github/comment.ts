// One sticky comment per comment-key on a pull request: found by a hidden
// marker among *all* comments (every page) written by our identity, updated
// in place; duplicates left by earlier races are deleted.

import type { Repo } from "./pull-request.ts";

export interface IssueComment {
  id: number;
  body: string;
  html_url: string;
  user: { login: string; type: string } | null;
}

export interface CommentApi {
  /** Every comment of the issue, all pages. */
  listComments(repo: Repo, issue: number): Promise<IssueComment[]>;
  create(repo: Repo, issue: number, body: string): Promise<IssueComment>;
  update(repo: Repo, id: number, body: string): Promise<IssueComment>;
  remove(repo: Repo, id: number): Promise<void>;
  /** The login behind the token, or undefined when the token cannot tell (GITHUB_TOKEN). */
  whoAmI(): Promise<string | undefined>;
}

export interface StickyResult {
  action: "created" | "updated" | "skipped";
  url: string | undefined;
  deleted: number;
}

export async function upsertStickyComment(
  api: CommentApi,
  repo: Repo,
  issue: number,
  markerText: string,
  body: string,
  createIfMissing = true,
): Promise<StickyResult> {
  const me = await api.whoAmI();
  // Without a login (installation tokens such as GITHUB_TOKEN), only bot-authored comments can be ours.
  const ours = (c: IssueComment) =>
    c.body.includes(markerText) && (me ? c.user?.login === me : c.user?.type === "Bot");
  const mine = (await api.listComments(repo, issue)).filter(ours).sort((a, b) => a.id - b.id);
  const [first, ...duplicates] = mine;
  if (!first) {
    if (!createIfMissing) return { action: "skipped", url: undefined, deleted: 0 };
    const created = await api.create(repo, issue, body);
    return { action: "created", url: created.html_url, deleted: 0 };
  }
  const updated = await api.update(repo, first.id, body);
  for (const d of duplicates) await api.remove(repo, d.id);
  return { action: "updated", url: updated.html_url, deleted: duplicates.length };
}
