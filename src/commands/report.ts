// `llm-perf-gate report RESULTS.json --html OUT.html`: the page of any results
// file — a gate's, a merged sharded run's, a fork's, an old one — read,
// checked and re-decided as the action's report mode does, drawn with its
// requests file when one is beside it.

import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { errorMessage, InputError } from "../common/errors.ts";
import type { ReportSettings } from "../config/config.ts";
import { given, type RawSettings } from "../config/settings.ts";
import { gatePage } from "../page/gate-page.ts";
import { plainText } from "../page/html.ts";
import { fallbackPage } from "../page/shell.ts";
import { headlineFor } from "../report/headline.ts";
import type { RequestsFileSummary } from "../requests/file.ts";
import { type RequestSample, sampleRequests } from "../requests/sample.ts";
import type { GateResults } from "../results/model.ts";
import { trustResults } from "../results/trust.ts";
import type { CommandIo } from "./io.ts";
import { probeWritable, writeNamed } from "./io.ts";

/** A results file another job wrote: checked, neutralized and re-decided; `source` names it in errors. */
export function readResultsFile(
  path: string,
  io: Pick<CommandIo, "readFile">,
  source = `results file ${JSON.stringify(path)}`,
): GateResults {
  let parsed: unknown;
  try {
    parsed = JSON.parse(io.readFile(path, "results file"));
  } catch (error) {
    throw new InputError(`${source} cannot be read as a results file: ${errorMessage(error)}`);
  }
  return trustResults(parsed, source, headlineFor);
}

/**
 * The requests file the results name, looked for beside the results file (an
 * artifact downloaded elsewhere keeps its name, not its path); `given` wins;
 * "none": not drawn.
 */
export function requestsBesideResults(
  resultsPath: string,
  r: Pick<GateResults, "requests_file" | "shard_requests_files">,
  given?: string,
): string | null {
  if (given !== undefined) return given === "none" ? null : given;
  const named = r.requests_file?.path ?? r.shard_requests_files?.[0]?.path;
  if (!named) return null;
  // The name as written: a results file read back has its texts neutralized (results/trust.ts).
  const name = basename(plainText(named));
  const beside = join(dirname(resultsPath), name);
  return existsSync(beside) ? beside : null;
}

/** The page of a gate's results, its requests file (the pairs' kept attempts) sampled when there is one. */
export async function gateHtml(
  r: GateResults,
  requestsPath: string | null,
  warn?: (line: string) => void,
): Promise<string> {
  const sample = requestsPath ? await sampleRequests(requestsPath, { pairsOnly: true }) : null;
  if (requestsPath && sample?.stopped && warn) warn(readInPart(requestsPath, sample.stopped));
  return gatePage(r, sample);
}

/** A requests file the page could read only in part, said where the reader of the log sees it. */
const readInPart = (path: string, why: string) =>
  `the requests file ${JSON.stringify(path)} was read in part (${why}): the page's per-request charts show what was read`;

/**
 * Writes a page: rendered, then written whole. A page that cannot be made is
 * said on `warn` and the command goes on: the results (or report) file is
 * the record, the page a view of it.
 */
export async function writePage(
  io: Pick<CommandIo, "writeFile">,
  path: string,
  render: () => Promise<string>,
  warn: (line: string) => void,
): Promise<boolean> {
  let why: string;
  try {
    io.writeFile(path, await render());
    return true;
  } catch (error) {
    why = errorMessage(error);
    warn(`the HTML report ${JSON.stringify(path)} could not be drawn: ${why}`);
  }
  // Never an earlier page left in its place (a fork's artifact may carry one of its own).
  writeFallbackPage(io, path, `It could not be drawn: ${why}`, warn);
  return false;
}

/** The page that says why there is no report: in place of one not drawn, or before the run. */
export function writeFallbackPage(
  io: Pick<CommandIo, "writeFile">,
  path: string,
  why: string,
  warn: (line: string) => void,
): void {
  try {
    io.writeFile(path, fallbackPage(why));
  } catch (error) {
    warn(`the HTML report ${JSON.stringify(path)} could not be written: ${errorMessage(error)}`);
  }
}

/**
 * A gate's page beside its results, written once the run has said its verdict
 * (a shard's results are a slice: the merge draws them). `requests`: "own",
 * the requests file this run wrote; "beside", only a file the results name
 * found beside them (a results file another job wrote names paths of its
 * machine). The path written, or null.
 */
export async function writeRunPage(
  results: GateResults,
  report: Pick<ReportSettings, "htmlPath" | "resultsPath">,
  io: Pick<CommandIo, "writeFile"> & { log(line: string): void; warn?(line: string): void },
  requests: "own" | "beside",
): Promise<string | null> {
  const path = report.htmlPath;
  if (path === null || results.shard !== undefined) return null;
  const own = results.requests_file;
  const requestsPath =
    requests === "own" && own && own.error === null
      ? own.path
      : requestsBesideResults(report.resultsPath, results);
  const warn = io.warn ?? ((line: string) => io.log(`warning: ${line}`));
  const render = () => gateHtml(results, requestsPath, warn);
  if (!(await writePage(io, path, render, warn))) return null;
  // A run a bad setting stopped says only that (its page too): no line of its own.
  if (results.config !== null) io.log(`HTML report written to ${path}`);
  return path;
}

/** `measure`'s and `sweep`'s --html: the page, with the requests file the command wrote (whole). */
export async function writeEndpointPage(
  io: Pick<CommandIo, "writeFile" | "stderr">,
  path: string | undefined,
  written: RequestsFileSummary | undefined,
  render: (sample: RequestSample | null) => Promise<string>,
): Promise<void> {
  if (path === undefined) return;
  const warn = (line: string) => io.stderr(`llm-perf-gate: ${line}\n`);
  const sample = async () => {
    if (!written || written.error !== null) return null;
    const s = await sampleRequests(written.path);
    if (s.stopped) warn(readInPart(written.path, s.stopped));
    return s;
  };
  if (await writePage(io, path, async () => render(await sample()), warn))
    io.stderr(`HTML report written to ${path}\n`);
}

export async function reportCli(raw: RawSettings, io: CommandIo): Promise<number> {
  const resultsPath = given(raw, "results");
  const htmlPath = given(raw, "html");
  if (resultsPath === undefined)
    throw new InputError("report: which results file? (report RESULTS.json --html OUT.html)");
  if (htmlPath === undefined)
    throw new InputError("report: --html OUT.html is required (the page to write)");
  probeWritable(io, "--html", htmlPath);
  const results = readResultsFile(resultsPath, io);
  const requests = requestsBesideResults(resultsPath, results, given(raw, "requests-file"));
  const warn = (line: string) => io.stderr(`llm-perf-gate: ${line}\n`);
  writeNamed(io, "--html", htmlPath, await gateHtml(results, requests, warn));
  io.stderr(`report written to ${htmlPath}${requests ? ` (requests from ${requests})` : ""}\n`);
  return 0;
}
