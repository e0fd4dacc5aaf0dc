// Which pull request a run is about. For pull_request events, the event says.
// For workflow_run (the privileged half of the fork recipe), the results file
// may claim a PR number — it comes from an unprivileged job, so it is only
// believed when the base repository's open pull requests with the run's head
// (owner:branch, which works for forks, unlike the commit → PRs lookup) hold
// that number at the run's head SHA. A mismatch is refused, not commented on.

export interface Repo {
  owner: string;
  repo: string;
}

export interface OpenPull {
  number: number;
  headSha: string;
  /** owner/name of the head repository (a fork's, for a fork). */
  headRepo: string;
}

export interface PullRequestApi {
  /** The base repository's open pull requests whose head is owner:branch. */
  openPullsByHead(repo: Repo, head: string): Promise<OpenPull[]>;
}

export type PullRequestLookup = { number: number } | { none: string };

export function repoFromEnv(env: Record<string, string | undefined>): Repo | undefined {
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? "").split("/");
  return owner && repo ? { owner, repo } : undefined;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (typeof v === "object" && v !== null ? (v as Json) : {});
const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);

export async function findPullRequest(
  eventName: string | undefined,
  payload: Json,
  repo: Repo,
  api: PullRequestApi,
  claimed?: number,
): Promise<PullRequestLookup> {
  const pr = obj(payload.pull_request);
  if (eventName === "pull_request" || eventName === "pull_request_target") {
    return typeof pr.number === "number"
      ? { number: pr.number }
      : { none: "no pull request in the event" };
  }
  if (eventName !== "workflow_run")
    return { none: `not a pull request run (event ${eventName ?? "unknown"})` };
  const run = obj(payload.workflow_run);
  const sha = str(run.head_sha);
  const branch = str(run.head_branch);
  const headRepo = obj(run.head_repository);
  const owner = str(obj(headRepo.owner).login);
  if (!sha || !branch || !owner)
    return { none: "the workflow_run event names no head commit and branch" };
  const open = (await api.openPullsByHead(repo, `${owner}:${branch}`)).filter(
    (p) => p.headSha === sha,
  );
  const where = `${owner}:${branch} at ${sha.slice(0, 12)}`;
  if (claimed !== undefined) {
    return open.some((p) => p.number === claimed)
      ? { number: claimed }
      : {
          none: `the results file claims PR #${claimed}, but no open pull request of this repository has the head ${where}${open.length ? ` (PR #${open.map((p) => p.number).join(", #")} has)` : ""}: not commenting`,
        };
  }
  if (open.length === 1) return { number: (open[0] as OpenPull).number };
  return { none: `${open.length} open pull requests have the head ${where}: not commenting` };
}
