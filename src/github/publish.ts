// After the gate: the sticky PR comment, the job summary, the step outputs
// and annotations. A failure to comment (a fork's read-only token, an API
// error) is a warning: the verdict, summary and outputs do not depend on it.

import { marker, type PublishSettings } from "../common/comment.ts";
import { errorMessage } from "../common/errors.ts";
import type { GateResults } from "../results/model.ts";
import { type CommentApi, upsertStickyComment } from "./comment.ts";
import { findPullRequest, type PullRequestApi, repoFromEnv } from "./pull-request.ts";

export interface ActionIo {
  setOutput(name: string, value: string): void;
  info(message: string): void;
  warning(message: string): void;
  error(message: string): void;
  writeSummary(markdown: string): Promise<void>;
}

export interface PublishContext {
  env: Record<string, string | undefined>;
  eventPayload: Record<string, unknown>;
  api: (CommentApi & PullRequestApi) | undefined;
}

/** GitHub's limit on a comment's body, characters. */
export const COMMENT_LIMIT = 65_536;
/** The job summary limit is 1 MiB; keep a margin. */
export const SUMMARY_LIMIT = 1_000_000;

/** The run as markdown, rendered by the caller within the limits above. */
export interface Rendered {
  comment: string;
  summary: string;
}

/** The step's outputs: the verdict, each gated metric, capacity, reliability. */
function setOutputs(results: GateResults, resultsPath: string, io: ActionIo): void {
  io.setOutput("verdict", results.verdict);
  io.setOutput("results-path", resultsPath);
  if (results.requests_file) io.setOutput("requests-path", results.requests_file.path);
  io.setOutput("headline", results.headline);
  for (const c of results.comparisons) {
    const id = c.id.replaceAll("_", "-");
    io.setOutput(`${id}-ratio`, (1 + c.change).toFixed(4));
    io.setOutput(`${id}-ratio-lower`, (1 + c.change_lower).toFixed(4));
    io.setOutput(`${id}-ratio-upper`, (1 + c.change_upper).toFixed(4));
    io.setOutput(`${id}-verdict`, c.verdict);
  }
  const cap = results.capacity?.comparison;
  if (cap) {
    const perS = (v: number | null) => (v === null ? "" : String(v));
    io.setOutput("capacity-baseline", perS(cap.baseline_per_s));
    io.setOutput("capacity-candidate", perS(cap.candidate_per_s));
    io.setOutput("capacity-change", cap.change === null ? "" : cap.change.toFixed(4));
    io.setOutput("capacity-verdict", cap.verdict);
  }
  const rel = results.reliability;
  if (rel) {
    io.setOutput("reliability-verdict", rel.verdict);
    io.setOutput("failure-rate-baseline", rel.baseline.rate.toFixed(4));
    io.setOutput("failure-rate-candidate", rel.candidate.rate.toFixed(4));
  }
}

/** Annotations: an error for each regression and guard, a warning for what is open or noisy. */
function annotate(results: GateResults, io: ActionIo): void {
  const cap = results.capacity?.comparison;
  if (cap?.verdict === "regressed") io.error(`capacity: ${cap.reason}`);
  else if (cap?.verdict === "inconclusive") io.warning(`capacity: ${cap.reason}`);
  const rel = results.reliability;
  if (rel?.verdict === "regressed") io.error(`failure rate: ${rel.reason}`);
  else if (rel?.verdict === "inconclusive")
    io.warning(`failure rate: ${rel.reason}; add pairs to decide`);
  for (const c of results.comparisons) {
    if (c.verdict === "regressed") io.error(`${c.label}: ${c.reason}`);
    else if (c.verdict === "inconclusive")
      io.warning(`${c.label}: ${c.reason}; add pairs to decide`);
    if (c.noisy) io.warning(`${c.label}: noisy trials (CV over the max-trial-cv limit)`);
  }
  for (const w of results.warnings) io.warning(w);
  for (const g of results.guards) io.error(g.detail ? `${g.message}\n${g.detail}` : g.message);
}

/** The sticky comment on the run's pull request, per the comment policy. */
async function comment(
  results: GateResults,
  settings: PublishSettings,
  ctx: PublishContext,
  io: ActionIo,
  body: string,
): Promise<void> {
  const repo = repoFromEnv(ctx.env);
  if (!ctx.api || !repo) {
    io.info("no GitHub token or repository: no PR comment");
    return;
  }
  try {
    const claimed = results.environment.github?.pull_request?.number;
    const found = await findPullRequest(
      ctx.env.GITHUB_EVENT_NAME,
      ctx.eventPayload,
      repo,
      ctx.api,
      ctx.env.GITHUB_EVENT_NAME === "workflow_run" ? claimed : undefined,
    );
    if ("none" in found) {
      // A claim that does not match is worth a warning; a push run is just not a PR.
      if (found.none.includes("claims")) io.warning(found.none);
      else io.info(`${found.none}: no PR comment`);
      return;
    }
    const pr = found.number;
    // on-regression: only a non-pass verdict creates a comment, but an existing one is kept current.
    const create = settings.comment === "always" || results.verdict !== "pass";
    const done = await upsertStickyComment(
      ctx.api,
      repo,
      pr,
      marker(settings.commentKey),
      body,
      create,
    );
    if (done.url) io.setOutput("comment-url", done.url);
    io.info(
      `PR #${pr} comment ${done.action}${done.deleted ? `, ${done.deleted} duplicates deleted` : ""}`,
    );
  } catch (error) {
    const status =
      typeof error === "object" && error !== null && "status" in error ? error.status : undefined;
    const hint =
      status === 403
        ? " (a read-only token, as on pull requests from forks: see the fork recipe in docs/forks.md)"
        : "";
    io.warning(`could not post the PR comment${hint}: ${errorMessage(error)}`);
  }
}

export async function publish(
  results: GateResults,
  settings: PublishSettings,
  resultsPath: string,
  ctx: PublishContext,
  io: ActionIo,
  postComment: boolean,
  rendered: Rendered,
): Promise<void> {
  setOutputs(results, resultsPath, io);
  annotate(results, io);
  if (settings.jobSummary) {
    try {
      await io.writeSummary(rendered.summary);
    } catch (error) {
      io.warning(`could not write the job summary: ${errorMessage(error)}`);
    }
  }
  if (postComment && settings.comment !== "never")
    await comment(results, settings, ctx, io, rendered.comment);
}
