// `llm-perf-gate measure`: one endpoint, one open-loop trial. A table on
// stdout, progress on stderr, the JSON report where --out says. Exit 4 when
// the endpoint failed (no ok request, or more than max-error-rate), 3 when
// the trial failed its self-checks, 130/143 when cancelled.

import type { Outcome } from "../common/outcomes.ts";
import { redactDeep } from "../common/redact.ts";
import { parseFailureLimit } from "../config/checks.ts";
import { given, type RawSettings } from "../config/settings.ts";
import { secretsOf } from "../config/sources.ts";
import { parseTrialOptions } from "../config/trial.ts";
import { measurePage } from "../page/endpoint-page.ts";
import { formatMeasureReport, formatProgress } from "../report/measure-text.ts";
import type { TrialReport } from "../trial/measure.ts";
import { measureTrial } from "../trial/trial.ts";
import {
  type CommandIo,
  probeWritable,
  redacting,
  signalExitCode,
  withCancel,
  writeNamed,
} from "./io.ts";
import { writeEndpointPage } from "./report.ts";
import { describeRequests, openRequestsOut, soloTag } from "./requests.ts";

/** The endpoint's failures against max-error-rate: a line on stderr when it failed. */
export function endpointFailure(
  report: TrialReport,
  limit: ReturnType<typeof parseFailureLimit>,
): string | null {
  // An unsent request never reached the endpoint: the client's (its self-checks say why).
  const notCounted = new Set<Outcome>([...limit.exclude, "unsent"]);
  const excluded = [...notCounted].reduce((n, o) => n + report.outcomes[o], 0);
  const counted = report.scheduled - excluded;
  const failures = counted - report.outcomes.ok;
  // Nothing reached it (all unsent): the self-checks' finding, not the endpoint's.
  if (counted === 0) return null;
  if (report.outcomes.ok > 0 && !(failures / counted > limit.maxErrorRate)) return null;
  return `the endpoint failed ${failures} of ${counted} requests (limit max-error-rate ${(limit.maxErrorRate * 100).toFixed(1)} %)${report.outcomes.ok === 0 ? "; none was ok" : ""}`;
}

export async function measureCli(raw: RawSettings, commandIo: CommandIo): Promise<number> {
  const options = parseTrialOptions(raw, commandIo.env, commandIo.readFile);
  const limit = parseFailureLimit(raw);
  const io = redacting(commandIo, secretsOf(raw, commandIo.env));
  const out = typeof raw.out === "string" ? raw.out : undefined;
  probeWritable(io, "--out", out);
  const html = given(raw, "html");
  probeWritable(io, "--html", html);
  const requests = openRequestsOut(raw, io);
  const quiet = raw.quiet === "true";
  const measured = await withCancel(io, {}, (cancel) =>
    measureTrial(options, {
      signal: cancel.signal,
      ...requests?.deps(soloTag(1, "measure")),
      ...(quiet ? {} : { onProgress: (p) => io.stderr(`${formatProgress(p)}\n`) }),
    }).then((report) => ({
      report,
      cancelledBy: cancel.signal.aborted ? String(cancel.signal.reason) : null,
    })),
  ).catch(async (error: unknown) => {
    // What was written so far is flushed, whatever ended the trial.
    await requests?.close();
    throw error;
  });
  // A server that echoes the key (a 401 body) must not put it into the report.
  const report = redactDeep(measured.report, io.redact);
  if (out !== undefined) writeNamed(io, "--out", out, `${JSON.stringify(report, null, 2)}\n`);
  io.stdout(`${formatMeasureReport(report)}\n`);
  if (out !== undefined) io.stdout(`report written to ${out}\n`);
  const written = await requests?.close();
  if (written) io.stderr(`${describeRequests(written)}\n`);
  await writeEndpointPage(io, html, written, (sample) => measurePage(report, sample));
  if (measured.cancelledBy !== null) {
    io.stderr(`llm-perf-gate: cancelled by ${measured.cancelledBy}: the trial was cut short\n`);
    return signalExitCode(measured.cancelledBy);
  }
  const failure = endpointFailure(report, limit);
  if (failure !== null) {
    io.stderr(`llm-perf-gate: ${failure}\n`);
    return 4;
  }
  return report.validity.valid ? 0 : 3;
}
