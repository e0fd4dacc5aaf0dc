// The action's `mode: burst`, for a scheduled workflow (one cron line per
// window): one burst on every lane of the lanes file, the rows appended to the
// history — committed to a branch (lanes-history-branch, one commit per run,
// retried when another run pushed first) or left in the workspace for an
// artifact or a cache — and the lanes report in the job summary. With
// lanes-issue, a graduation trigger opens (or updates) one issue.

import { errorMessage, InputError } from "./common/errors.ts";
import { keepIssue, updateBranchFile } from "./github/branch-file.ts";
import type { GitHubApi } from "./github/octokit.ts";
import type { ActionIo } from "./github/publish.ts";
import type { Repo } from "./github/pull-request.ts";
import { runBurst } from "./lanes/burst.ts";
import { type HistoryRow, parseHistory, toJsonl } from "./lanes/history.ts";
import { reduceHistory } from "./lanes/reduce.ts";
import { parseLanes } from "./lanes/spec.ts";
import { renderLanesMarkdown } from "./report/lanes-markdown.ts";

export interface BurstActionDeps {
  input(name: string): string;
  env: Record<string, string | undefined>;
  readFile: (path: string) => string;
  writeFile: (path: string, text: string) => void;
  io: ActionIo & { setFailed(message: string): void };
  githubApi(token: string): GitHubApi;
  /** The wall clock: which window the burst belongs to. */
  now?: () => Date;
}

const ISSUE_MARKER = "<!-- llm-perf-gate:lanes -->";

/** The outputs of mode burst (action.yml lists them; the docs test checks it). */
export const BURST_OUTPUTS = ["lanes-verdicts", "graduate", "issue-url"] as const;
const [VERDICTS, GRADUATE, ISSUE_URL] = BURST_OUTPUTS;

function repoOf(env: Record<string, string | undefined>): Repo {
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? "").split("/");
  if (!owner || !repo)
    throw new InputError(
      "GITHUB_REPOSITORY is not set: lanes-history-branch and lanes-issue need the repository",
    );
  return { owner, repo };
}

export async function runBurstAction(deps: BurstActionDeps): Promise<void> {
  const { io, env } = deps;
  const lanesPath = deps.input("lanes");
  if (lanesPath === "")
    throw new InputError("lanes is required with mode burst: the lanes file (YAML)");
  let text: string;
  try {
    text = deps.readFile(lanesPath);
  } catch (error) {
    throw new InputError(
      `lanes = ${JSON.stringify(lanesPath)} cannot be read: ${errorMessage(error)}`,
    );
  }
  const spec = parseLanes(text, lanesPath);
  const historyPath = deps.input("lanes-history") || "llm-perf-gate-lanes.jsonl";
  const branch = deps.input("lanes-history-branch");
  const token = deps.input("github-token") || env.GITHUB_TOKEN || "";
  const api = () => {
    if (token === "")
      throw new InputError(
        "github-token is required to keep the history on a branch or open an issue",
      );
    return deps.githubApi(token);
  };
  const rows = await runBurst(spec, { env, ...(deps.now ? { date: deps.now } : {}) });
  const first = rows[0] as HistoryRow;
  io.info(
    `burst at ${first.local_time} ${spec.windows.time_zone} (window ${first.window ?? "none"}): ${rows.filter((r) => r.passed).length}/${rows.length} passed`,
  );
  let all: HistoryRow[];
  const appended = (old: string) => old + toJsonl(rows);
  /** The history in the workspace, with this run's rows appended. */
  const appendLocally = (): HistoryRow[] => {
    let old = "";
    try {
      old = deps.readFile(historyPath);
    } catch {
      // the first run: no history yet
    }
    const next = appended(old);
    deps.writeFile(historyPath, next);
    io.info(`history: ${rows.length} rows appended to ${historyPath}`);
    return parseHistory(next, historyPath);
  };
  let commitFailure: string | undefined;
  if (branch !== "") {
    try {
      const committed = await updateBranchFile(
        api(),
        repoOf(env),
        branch,
        historyPath,
        appended,
        `llm-perf-gate: lanes burst ${first.started_at} (${first.window ?? "off-window"})`,
      );
      io.info(
        `history: ${rows.length} rows committed to ${historyPath} on ${branch} (push ${committed.attempts})`,
      );
      all = parseHistory(committed.text, `${branch}:${historyPath}`);
      deps.writeFile(historyPath, committed.text);
    } catch (error) {
      // Nothing lost: this run's rows stay in the workspace, the report is still written.
      commitFailure = `the history could not be committed to ${branch}: ${errorMessage(error)}`;
      io.error(`${commitFailure}; this run's rows are in ${historyPath}`);
      all = appendLocally();
    }
  } else {
    all = appendLocally();
  }
  const report = reduceHistory(all, spec.rule);
  const markdown = renderLanesMarkdown(report);
  await io.writeSummary(markdown);
  io.setOutput(
    VERDICTS,
    JSON.stringify(Object.fromEntries(report.lanes.map((l) => [l.lane, l.verdict]))),
  );
  const graduating = report.lanes.filter((l) => l.verdict === "graduate");
  io.setOutput(GRADUATE, graduating.length > 0 ? "true" : "false");
  if (graduating.length > 0 && deps.input("lanes-issue") === "true") {
    const url = await keepIssue(
      api(),
      repoOf(env),
      ISSUE_MARKER,
      `llm-perf-gate: graduate ${graduating.map((l) => l.lane).join(", ")} (busy-hour floor missed)`,
      markdown,
    );
    io.info(`graduation issue: ${url}`);
    io.setOutput(ISSUE_URL, url);
  }
  if (commitFailure) io.setFailed(`llm-perf-gate: ${commitFailure}`);
}
