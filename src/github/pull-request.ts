// Which pull request a run is about, from the event payload. A workflow_run
// job (the privileged half of the fork recipe) finds it by the head SHA of the
// run that measured, never by anything that run uploaded.

export interface Repo {
  owner: string;
  repo: string;
}

export interface PullRequestApi {
  /** Open pull requests whose head is this commit. */
  pullsForCommit(repo: Repo, sha: string): Promise<{ number: number; headSha: string }[]>;
}

export function repoFromEnv(env: Record<string, string | undefined>): Repo | undefined {
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? "").split("/");
  return owner && repo ? { owner, repo } : undefined;
}

export async function findPullRequest(
  eventName: string | undefined,
  payload: Record<string, unknown>,
  repo: Repo,
  api: PullRequestApi,
): Promise<number | undefined> {
  const pr = payload.pull_request as { number?: number } | undefined;
  if ((eventName === "pull_request" || eventName === "pull_request_target") && pr?.number)
    return pr.number;
  if (eventName === "workflow_run") {
    const run = payload.workflow_run as
      | { head_sha?: string; pull_requests?: { number: number; head?: { sha?: string } }[] }
      | undefined;
    const sha = run?.head_sha;
    if (!sha) return undefined;
    // pull_requests is empty for runs from forks: look the commit up instead.
    const listed = run.pull_requests?.find((p) => p.head?.sha === sha);
    if (listed) return listed.number;
    const found = await api.pullsForCommit(repo, sha);
    return found.find((p) => p.headSha === sha)?.number;
  }
  return undefined;
}
