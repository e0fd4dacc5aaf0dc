// The action's `mode: burst`, for a scheduled workflow (one cron line per
// window): one burst on every lane, the rows appended to the history —
// committed to a branch (lanes-history-branch, one commit per run, retried
// when another run pushed first) or left in the workspace for an artifact or
// a cache — and the lanes report in the job summary. With lanes-issue, a
// graduation trigger opens (or updates) one issue.

import { errorMessage, InputError } from "../../common/errors.ts";
import { unusedNote } from "../../config/modes.ts";
import { checkEveryGiven, given, type RawSettings, readBoolean } from "../../config/settings.ts";
import { keepIssue, updateBranchFile } from "../../github/branch-file.ts";
import type { GitHubApi } from "../../github/octokit.ts";
import type { ActionIo } from "../../github/publish.ts";
import type { Repo } from "../../github/pull-request.ts";
import { parseHistory, toJsonl } from "../../lanes/history.ts";
import { burstPlanWords } from "../../lanes/plan.ts";
import { renderLanesMarkdown } from "../../report/lanes-markdown.ts";
import { type CommandIo, probeWritable } from "../io.ts";
import { burstOnce, type HistoryStore, lanesPaths, localHistory } from "./burst.ts";
import { readLanes } from "./files.ts";

export interface BurstActionDeps
  extends Pick<CommandIo, "env" | "readFile" | "writeFile" | "now" | "checkWritable"> {
  io: ActionIo & { setFailed(message: string): void };
  githubApi(token: string): GitHubApi;
}

const ISSUE_MARKER = "<!-- llm-perf-gate:lanes -->";

/** The outputs of mode burst (action.yml lists them; the docs test checks it). */
export const BURST_OUTPUTS = ["lanes-verdicts", "graduate", "issue-url"] as const;
const [VERDICTS, GRADUATE, ISSUE_URL] = BURST_OUTPUTS;

function repoOf(env: CommandIo["env"]): Repo {
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? "").split("/");
  if (!owner || !repo)
    throw new InputError(
      "GITHUB_REPOSITORY is not set: lanes-history-branch and lanes-issue need the repository",
    );
  return { owner, repo };
}

/**
 * The history on a branch: read, append, commit. A commit that keeps failing
 * keeps this run's rows in the workspace file and says so (`failure`).
 */
function branchHistory(
  deps: BurstActionDeps,
  api: () => GitHubApi,
  branch: string,
  path: string,
): HistoryStore & { failure?: string } {
  const local = localHistory(deps, path);
  const store: HistoryStore & { failure?: string } = {
    where: `${branch}:${path}`,
    append: async (rows) => {
      const first = rows[0];
      try {
        const committed = await updateBranchFile(
          api(),
          repoOf(deps.env),
          branch,
          path,
          // A corrupt history is refused before anything is appended to it.
          (old) => {
            parseHistory(old, `${branch}:${path}`);
            return old + toJsonl(rows);
          },
          `llm-perf-gate: lanes burst ${first?.started_at} (${first?.window ?? "off-window"})`,
        );
        deps.io.info(
          `history: ${rows.length} rows committed to ${path} on ${branch} (push ${committed.attempts})`,
        );
        deps.writeFile(path, committed.text);
        return parseHistory(committed.text, `${branch}:${path}`);
      } catch (error) {
        // Nothing lost: this run's rows stay in the workspace, the report is still written.
        store.failure = `the history could not be committed to ${branch}: ${errorMessage(error)}`;
        deps.io.error(`${store.failure}; this run's rows are in ${path}`);
        return local.append(rows);
      }
    },
  };
  return store;
}

/**
 * Mode burst: the burst, or — when a setting, the lanes file or the history
 * refuses it, or the burst itself fails — the reason as the job summary, the
 * `verdict` (error) and `headline` outputs and the job's failure, as every
 * mode says it (docs/config.md), never only an error line in the log.
 */
export async function runBurstAction(inputs: RawSettings, deps: BurstActionDeps): Promise<void> {
  const progress = { appended: false, reported: false };
  try {
    await burstAction(inputs, deps, progress);
  } catch (error) {
    const why = errorMessage(error);
    const { io } = deps;
    io.setOutput("verdict", "error");
    io.setOutput("headline", why);
    // Once the lanes' verdicts were said, they stand: only what failed after them is added.
    if (!progress.reported) {
      io.setOutput(VERDICTS, "{}");
      io.setOutput(GRADUATE, "false");
    }
    const where = progress.appended
      ? "the burst's rows were appended to the history; then"
      : "nothing was appended to the history";
    await io.writeSummary(`## llm-perf-gate: lanes burst\n\n**error** — ${where}: ${why}\n`);
    io.setFailed(error instanceof InputError ? why : `llm-perf-gate: ${why}`);
  }
}

async function burstAction(
  inputs: RawSettings,
  deps: BurstActionDeps,
  progress: { appended: boolean; reported: boolean },
): Promise<void> {
  const { io, env } = deps;
  // A value this mode does not use is still checked by its rule: a mistake is said, not ignored.
  checkEveryGiven(inputs);
  for (const note of unusedNote(inputs, "burst")) io.warning(note);
  const paths = lanesPaths(inputs, "mode burst");
  const spec = readLanes(deps, paths.lanes);
  const branch = given(inputs, "lanes-history-branch");
  const token = given(inputs, "github-token") ?? env.GITHUB_TOKEN ?? "";
  const api = () => {
    if (token === "")
      throw new InputError(
        "github-token is required to keep the history on a branch or open an issue",
      );
    return deps.githubApi(token);
  };
  // A local history's folder is checked before the burst: its rows must have somewhere to go.
  if (!branch) probeWritable(deps, "lanes-history", paths.history);
  const store = branch
    ? branchHistory(deps, api, branch, paths.history)
    : localHistory(deps, paths.history);
  io.info(burstPlanWords(spec));
  const outcome = await burstOnce(spec, store, deps);
  progress.appended = true;
  io.info(outcome.summary);
  const markdown = renderLanesMarkdown(outcome.report);
  await io.writeSummary(markdown);
  const lanes = outcome.report.lanes;
  io.setOutput(VERDICTS, JSON.stringify(Object.fromEntries(lanes.map((l) => [l.lane, l.verdict]))));
  const graduating = lanes.filter((l) => l.verdict === "graduate");
  io.setOutput(GRADUATE, graduating.length > 0 ? "true" : "false");
  progress.reported = true;
  if (graduating.length > 0 && readBoolean(inputs, "lanes-issue")) {
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
  const failure = "failure" in store ? store.failure : undefined;
  if (failure) io.setFailed(`llm-perf-gate: ${failure}`);
}
