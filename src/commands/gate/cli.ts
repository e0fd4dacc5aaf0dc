// `llm-perf-gate gate`: the gate from the command line. The comment it would
// post goes to stdout, the log to stderr, the results file where results-path
// says; the exit code follows fail-on (1), a bad setting (2) or a cancel.

import type { RawSettings } from "../../config/settings.ts";
import { COMMENT_LIMIT } from "../../github/publish.ts";
import { renderMarkdown } from "../../report/markdown.ts";
import { type CommandIo, signalExitCode } from "../io.ts";
import { writeRunPage } from "../report.ts";
import { describeRequests } from "../requests.ts";
import { planRun } from "./plan.ts";
import { type GateIo, runGateCommand } from "./run.ts";

export async function gateCli(
  raw: RawSettings,
  io: GateIo & Pick<CommandIo, "stdout" | "stderr">,
): Promise<number> {
  const plan = planRun(raw, io.readFile);
  const results = await runGateCommand(plan, io);
  // The page first: a bad setting's page replaces an earlier run's, and says only why.
  await writeRunPage(results, plan.report, io, "own");
  const invalid = results.guards.find((g) => g.code === "configuration");
  if (invalid) {
    // A usage mistake: said on stderr and exit code 2, with the results file still written.
    io.stderr(`llm-perf-gate: ${invalid.message}\nresults written to ${plan.report.resultsPath}\n`);
    return 2;
  }
  io.stdout(renderMarkdown(results, plan.report.commentKey, COMMENT_LIMIT));
  // A server's log tail, a response excerpt: where a terminal user looks first.
  for (const g of results.guards.filter((x) => x.detail)) io.stderr(`${g.message}\n${g.detail}\n`);
  io.stderr(`results written to ${plan.report.resultsPath}\n`);
  if (results.requests_file) io.stderr(`${describeRequests(results.requests_file)}\n`);
  if (results.verdict === "cancelled") return signalExitCode(results.cancelled_by ?? "SIGTERM");
  return plan.report.failOn.includes(results.verdict) ? 1 : 0;
}
