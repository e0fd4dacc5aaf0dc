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
import { readResultsFile, writeFallbackPage, writeRunPage } from "../report.ts";
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
  let read: GateResults | null = null;
  // The inputs, not a config file: one file may serve the measure job and the report job.
  if (plan.mode === "report") for (const note of unusedNote(inputs, "report")) io.warning(note);
  // A placeholder first: a page already there (a fork's artifact may carry one) never stands
  // for this run, whatever ends it.
  const { htmlPath } = plan.report;
  if (htmlPath !== null)
    writeFallbackPage(deps, htmlPath, "The run ended before its page was drawn", (line) =>
      io.warning(line),
    );
  if (plan.mode === "report" && !plan.problem) {
    read = readResults(plan.report.resultsPath, deps);
    // Its requests file is the other job's artifact, not a path this job wrote.
    results = { ...read, requests_file: null };
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
  const pageIo = {
    writeFile: deps.writeFile,
    log: (line: string) => io.info(line),
    warn: (line: string) => io.warning(line),
  };
  // A shard's results are a slice: the merge job posts the comment.
  const posts = plan.mode !== "measure" && results.shard === undefined;
  await publish(results, plan.report, plan.report.resultsPath, ctx, io, posts, {
    comment: renderMarkdown(results, key, COMMENT_LIMIT),
    summary: renderMarkdown(results, key, SUMMARY_LIMIT),
  });
  // The page after the comment: it never delays or changes what the run said.
  const page = read
    ? await writeRunPage(read, plan.report, pageIo, "beside")
    : await writeRunPage(results, plan.report, pageIo, "own");
  if (page !== null) io.setOutput("report-html", page);
  io.info(`llm-perf-gate: ${results.verdict} — ${results.headline}`);
  if (plan.report.failOn.includes(results.verdict)) {
    io.setFailed(`llm-perf-gate: ${results.verdict} — ${results.headline}`);
  }
}
