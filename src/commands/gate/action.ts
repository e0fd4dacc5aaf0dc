// The gate as the action runs it: inputs (and the config file) → gate →
// results file → PR comment, job summary, outputs → the step's outcome per
// `fail-on`. Modes: run (measure and report), measure (the results file only,
// for unprivileged fork jobs), report (read a results file and post).

import { unusedNote } from "../../config/modes.ts";
import type { RawSettings } from "../../config/settings.ts";
import { secretsOf } from "../../config/sources.ts";
import type { GitHubApi } from "../../github/octokit.ts";
import { type ActionIo, COMMENT_LIMIT, publish, SUMMARY_LIMIT } from "../../github/publish.ts";
import { renderMarkdown } from "../../report/markdown.ts";
import type { GateResults } from "../../results/model.ts";
import type { CommandIo } from "../io.ts";
import { gateHtml, readResultsFile, requestsBesideResults, writePage } from "../report.ts";
import { planRun } from "./plan.ts";
import { type GateIo, runGateCommand } from "./run.ts";

/** What the action's modes need besides a command's io: GitHub's side. */
export interface GateActionDeps extends Omit<GateIo, "log"> {
  io: ActionIo & { setFailed(message: string): void; setSecret(value: string): void };
  githubApi(token: string): GitHubApi;
}

function readEvent(deps: GateActionDeps): Record<string, unknown> {
  const path = deps.env.GITHUB_EVENT_PATH;
  if (!path) return {};
  try {
    const parsed: unknown = JSON.parse(deps.readFile(path, "GitHub event payload"));
    return typeof parsed === "object" && parsed !== null ? { ...parsed } : {};
  } catch {
    return {};
  }
}

/** A results file another (unprivileged) job wrote: checked, neutralized and re-decided. */
const readResults = (path: string, deps: Pick<CommandIo, "readFile">): GateResults =>
  readResultsFile(path, deps, `results-path = ${JSON.stringify(path)}`);

export async function runGateAction(inputs: RawSettings, deps: GateActionDeps): Promise<void> {
  const { io, env } = deps;
  const plan = planRun(inputs, deps.readFile);
  // Masked in the runner's log too: keys from the environment, credential headers.
  for (const secret of secretsOf(plan.raw, env)) if (secret) io.setSecret(secret);
  const event = readEvent(deps);
  let results: GateResults;
  // The inputs, not a config file: one file may serve the measure job and the report job.
  if (plan.mode === "report") for (const note of unusedNote(inputs, "report")) io.warning(note);
  if (plan.mode === "report" && !plan.problem) {
    // Its requests file is the other job's artifact, not a path this job wrote: only
    // one beside the results file is drawn.
    const read = readResults(plan.report.resultsPath, deps);
    results = { ...read, requests_file: null };
    const { htmlPath, resultsPath } = plan.report;
    if (htmlPath !== null) {
      const render = () => gateHtml(read, requestsBesideResults(resultsPath, read));
      if (await writePage(deps, htmlPath, render, (line) => io.warning(line)))
        io.info(`HTML report written to ${htmlPath}`);
    }
  } else {
    results = await runGateCommand(plan, {
      ...deps,
      log: (line) => io.info(line),
      event,
    });
    if (!results.guards.some((g) => g.code === "results_file"))
      io.info(`results written to ${plan.report.resultsPath}`);
  }
  const token = inputs["github-token"] || env.GITHUB_TOKEN;
  const ctx = {
    env,
    eventPayload: event,
    api: typeof token === "string" && token !== "" ? deps.githubApi(token) : undefined,
  };
  const key = plan.report.commentKey;
  // A shard's results are a slice: the merge job posts the comment.
  const posts = plan.mode !== "measure" && results.shard === undefined;
  await publish(results, plan.report, plan.report.resultsPath, ctx, io, posts, {
    comment: renderMarkdown(results, key, COMMENT_LIMIT),
    summary: renderMarkdown(results, key, SUMMARY_LIMIT),
  });
  io.info(`llm-perf-gate: ${results.verdict} — ${results.headline}`);
  if (plan.report.failOn.includes(results.verdict)) {
    io.setFailed(`llm-perf-gate: ${results.verdict} — ${results.headline}`);
  }
}
