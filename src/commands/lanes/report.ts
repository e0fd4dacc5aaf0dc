// `llm-perf-gate lanes-report`: the lanes history judged by the rule (the
// lanes file's, or the default): per lane × window × day the pass rate against
// the floor, p90 and retries, and each lane's verdict. Markdown on stdout, the
// JSON report where --out says, the history as CSV where --csv says.

import { given, type RawSettings, value } from "../../config/settings.ts";
import { toCsv } from "../../lanes/history.ts";
import { DEFAULT_RULE, LANES_REPORT_SCHEMA, reduceHistory } from "../../lanes/reduce.ts";
import { renderLanesMarkdown } from "../../report/lanes-markdown.ts";
import { type CommandIo, probeWritable, writeNamed } from "../io.ts";
import { readHistory, readLanes } from "./files.ts";

export async function lanesReportCli(raw: RawSettings, io: CommandIo): Promise<number> {
  const history = value(raw, "lanes-history") ?? "llm-perf-gate-lanes.jsonl";
  const lanes = given(raw, "lanes");
  const out = given(raw, "out");
  const csv = given(raw, "csv");
  probeWritable(io, "--out", out);
  probeWritable(io, "--csv", csv);
  const { rows } = readHistory(io, history, "required");
  const rule = lanes === undefined ? DEFAULT_RULE : readLanes(io, lanes).rule;
  const report = reduceHistory(rows, rule);
  if (out !== undefined)
    writeNamed(
      io,
      "--out",
      out,
      `${JSON.stringify({ schema: LANES_REPORT_SCHEMA, ...report }, null, 2)}\n`,
    );
  if (csv !== undefined) writeNamed(io, "--csv", csv, toCsv(rows));
  io.stdout(renderLanesMarkdown(report));
  return 0;
}
