// Where a gate ran, as its results file records it: the machine, the runner
// and the GitHub run (with the pull request a report job checks before it
// comments).

import { arch, cpus, platform } from "node:os";
import type { EnvironmentFacts } from "../../results/model.ts";
import type { Env } from "../io.ts";

/** The pull request of a pull_request event, as the results file carries it. */
function pullRequestOf(event: Record<string, unknown> | undefined) {
  const pr = event?.pull_request;
  if (typeof pr !== "object" || pr === null || !("number" in pr) || typeof pr.number !== "number")
    return null;
  const head = "head" in pr && typeof pr.head === "object" && pr.head !== null ? pr.head : {};
  const sha = "sha" in head && typeof head.sha === "string" ? head.sha : null;
  const repo =
    "repo" in head &&
    typeof head.repo === "object" &&
    head.repo !== null &&
    "full_name" in head.repo
      ? String(head.repo.full_name)
      : null;
  return { number: pr.number, head_sha: sha, head_repo: repo };
}

export function captureEnvironment(env: Env, event?: Record<string, unknown>): EnvironmentFacts {
  return {
    node: process.version,
    platform: platform(),
    arch: arch(),
    cpus: cpus().length,
    runner: env.RUNNER_NAME
      ? { name: env.RUNNER_NAME, os: env.RUNNER_OS, arch: env.RUNNER_ARCH }
      : null,
    github: env.GITHUB_REPOSITORY
      ? {
          repository: env.GITHUB_REPOSITORY,
          sha: env.GITHUB_SHA,
          ref: env.GITHUB_REF,
          run_id: env.GITHUB_RUN_ID,
          server_url: env.GITHUB_SERVER_URL,
          event: env.GITHUB_EVENT_NAME,
          pull_request: pullRequestOf(event),
        }
      : null,
  };
}
