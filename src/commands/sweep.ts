// `llm-perf-gate sweep`: one endpoint's capacity — synchronous, offline, then
// open-loop rates up to the knee. Markdown on stdout, progress on stderr, the
// JSON report where --out says. Exit 3 when no capacity was found or the
// sweep was cut short (max-duration, a cancel); 4 when the endpoint failed
// every synchronous request (it refuses: nothing to sweep).

import { buildSweepReport } from "../capacity/run.ts";
import { newSweep, planSweep, runSweep } from "../capacity/sweep.ts";
import { redactDeep } from "../common/redact.ts";
import { given, type RawSettings } from "../config/settings.ts";
import { secretsOf } from "../config/sources.ts";
import { checkSweepLoad, parseSweepSettings } from "../config/sweep.ts";
import { parseTrialOptions } from "../config/trial.ts";
import { sweepPage } from "../page/endpoint-page.ts";
import { renderSweepMarkdown } from "../report/sweep-markdown.ts";
import { measureTrial } from "../trial/trial.ts";
import { type CommandIo, probeWritable, redacting, withCancel, writeNamed } from "./io.ts";
import { writeEndpointPage } from "./report.ts";
import { describeRequests, openRequestsOut, soloTag } from "./requests.ts";

export async function sweepCli(raw: RawSettings, commandIo: CommandIo): Promise<number> {
  checkSweepLoad(raw, "by sweep");
  const settings = parseSweepSettings(raw);
  const options = parseTrialOptions(
    raw,
    commandIo.env,
    commandIo.readFile,
    undefined,
    settings.arrival,
  );
  const io = redacting(commandIo, secretsOf(raw, commandIo.env));
  const out = typeof raw.out === "string" ? raw.out : undefined;
  probeWritable(io, "--out", out);
  const html = given(raw, "html");
  probeWritable(io, "--html", html);
  const requests = openRequestsOut(raw, io);
  io.stderr(`sweep: ${planSweep(1, options, settings).words}\n`);
  let trial = 0;
  const sweep = newSweep(["endpoint"] as const);
  await withCancel(io, {}, async (cancel) => {
    try {
      await runSweep(sweep, { endpoint: options }, settings, {
        run: async (_arm, o, label) => {
          io.stderr(`measuring ${label}\n`);
          const report = await measureTrial(o, {
            signal: cancel.signal,
            ...requests?.deps(soloTag(++trial, `sweep ${label}`)),
          });
          if (cancel.signal.aborted) throw cancel.signal.reason;
          return report;
        },
        nowMs: () => performance.now(),
        log: (line) => io.stderr(`${line}\n`),
      });
    } catch (error) {
      if (!cancel.signal.aborted) {
        await requests?.close();
        throw error;
      }
      sweep.stopped_by = `cancelled by ${String(cancel.signal.reason)}`;
    }
  });
  const built = buildSweepReport(sweep.arms.endpoint, sweep, options, settings, new Date());
  const report = redactDeep(built, io.redact);
  if (out !== undefined) writeNamed(io, "--out", out, `${JSON.stringify(report, null, 2)}\n`);
  io.stdout(renderSweepMarkdown(report, options.slo.ttftMs));
  if (out !== undefined) io.stderr(`report written to ${out}\n`);
  const written = await requests?.close();
  if (written) io.stderr(`${describeRequests(written)}\n`);
  await writeEndpointPage(io, html, written, (sample) =>
    sweepPage(report, sample, options.slo.ttftMs),
  );
  if (sweep.refused_by !== undefined) {
    io.stderr(`llm-perf-gate: ${report.stopped_by}\n`);
    return 4;
  }
  return report.capacity.capacity_per_s !== null && report.stopped_by === null ? 0 : 3;
}
