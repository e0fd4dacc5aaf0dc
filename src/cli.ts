// The command line: `llm-perf-gate <command> [flags]`. `runCli` takes its
// I/O as dependencies and returns the exit code; run as a program, it uses
// the process's.

import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ParseArgsOptionsConfig, parseArgs } from "node:util";
import { buildSweepReport } from "./capacity/report.ts";
import { newSweep, planSweep, runSweep } from "./capacity/sweep.ts";
import { isEntryModule } from "./common/entry.ts";
import { errorMessage, InputError } from "./common/errors.ts";
import { redactDeep, redactor } from "./common/redact.ts";
import { type RawSettings, type Setting, settingsIn } from "./config/settings.ts";
import { secretsOf } from "./config/sources.ts";
import { checkSweepLoad, parseSweepSettings, withStandInRate } from "./config/sweep.ts";
import { parseFailureLimit, parseTrialOptions } from "./config/trial.ts";
import { runDemo } from "./demo.ts";
import { runBurst } from "./lanes/burst.ts";
import { type HistoryRow, parseHistory, toCsv, toJsonl } from "./lanes/history.ts";
import { DEFAULT_RULE, LANES_REPORT_SCHEMA, reduceHistory } from "./lanes/reduce.ts";
import { type LanesSpec, parseLanes } from "./lanes/spec.ts";
import { DEFAULT_PROFILE, type MockProfile, mergeProfile, parseOverrides } from "./mock/profile.ts";
import { startMockServer } from "./mock/server.ts";
import { type PipelineDeps, planRun, runPipeline } from "./pipeline.ts";
import { renderLanesMarkdown } from "./report/lanes-markdown.ts";
import { renderMarkdown } from "./report/markdown.ts";
import { formatMeasureReport, formatProgress } from "./report/measure-text.ts";
import { renderSweepMarkdown } from "./report/sweep-markdown.ts";
import { measureTrial } from "./trial/measure.ts";

export interface CliDeps {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  readFile: (path: string) => string;
  writeFile: (path: string, text: string) => void;
  /** Stand-ins for the gate's measurement and quality runner, for tests. */
  gate?: Pick<PipelineDeps, "measureTrial" | "runSuite" | "signals" | "exit">;
}

const USAGE = `Usage: llm-perf-gate <command> [flags]

Commands:
  demo                          a short gate between two built-in mock servers (the candidate decodes 30 % slower)
  gate [--config FILE] [flags]  measure baseline and candidate in interleaved pairs and decide;
                                flags are the action's inputs (--baseline-url, --candidate-url, --model, …)
  measure --url URL --model NAME [flags]
                                measure one endpoint open-loop; prints a table, writes --out JSON
  sweep --url URL --model NAME --slo SLO [flags]
                                one endpoint's capacity: synchronous, offline, then open-loop rates
                                up to the knee; prints markdown, writes --out JSON
  burst --lanes FILE [--history FILE] [--csv FILE]
                                one burst on every lane of a lanes file now; appends to the history
                                (JSONL) and prints the lanes report
  lanes-report --history FILE [--lanes FILE] [--out JSON] [--csv FILE]
                                per lane × window × day: pass rate vs the floor, p90, retries; the rule's verdict
  mock [--port N] [--host H] [--profile FILE] [--set key=value ...] [--stop-when-stdin-closes]
                                run the built-in OpenAI-compatible mock server until SIGINT/SIGTERM
  help                          show this text
`;

function parse<T extends ParseArgsOptionsConfig>(command: string, args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: false, strict: true });
  } catch (error) {
    throw new InputError(`${command}: ${errorMessage(error)}`);
  }
}

/** Flags named as the settings: switches for the booleans, a list for the `lines` ones. */
function flagOptions(settings: readonly Setting[]): ParseArgsOptionsConfig {
  const options: ParseArgsOptionsConfig = {};
  for (const s of settings) {
    options[s.name] =
      s.kind === "boolean" ? { type: "boolean" } : { type: "string", multiple: s.kind === "lines" };
  }
  return options;
}

function toRaw(
  values: Record<string, string | boolean | (string | boolean)[] | undefined>,
): RawSettings {
  const raw: RawSettings = {};
  for (const [key, value] of Object.entries(values)) {
    raw[key] = Array.isArray(value)
      ? value.map(String)
      : value === undefined
        ? undefined
        : String(value);
  }
  return raw;
}

function loadProfile(deps: CliDeps, profilePath: string | undefined, sets: string[]): MockProfile {
  let profile = DEFAULT_PROFILE;
  if (profilePath !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(deps.readFile(profilePath));
    } catch (error) {
      throw new InputError(
        `--profile ${profilePath}: cannot read a JSON profile: ${errorMessage(error)}`,
      );
    }
    profile = mergeProfile(profile, parsed, `--profile ${profilePath}`);
  }
  if (sets.length > 0) profile = mergeProfile(profile, parseOverrides(sets), "--set");
  return profile;
}

async function mockCommand(args: string[], deps: CliDeps): Promise<number> {
  const { values } = parse("mock", args, {
    port: { type: "string", default: "8000" },
    host: { type: "string", default: "127.0.0.1" },
    profile: { type: "string" },
    set: { type: "string", multiple: true, default: [] },
    "stop-when-stdin-closes": { type: "boolean" },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InputError(
      `mock: --port ${values.port} is not accepted; expected an integer in [0, 65535]`,
    );
  }
  const profile = loadProfile(deps, values.profile, values.set);
  const server = await startMockServer({ profile, port, host: values.host });
  deps.stdout(
    `mock LLM server listening on ${server.url} (models: ${profile.models.join(", ")})\n`,
  );
  return await new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      deps.stdout(`received ${signal}, stopping the mock server\n`);
      server.close().then(
        () => resolve(0),
        () => resolve(0),
      );
    };
    process.once("SIGINT", () => stop("SIGINT"));
    process.once("SIGTERM", () => stop("SIGTERM"));
    // Started by another process (the demo): it goes when that process goes, however it ends.
    if (values["stop-when-stdin-closes"]) {
      process.stdin.on("close", () => stop("the end of standard input"));
      process.stdin.resume();
    }
    server.crashed.then(() => {
      deps.stderr(
        `crashed at completion request ${profile.crashAfterRequests} (crashAfterRequests)\n`,
      );
      resolve(3);
    });
  });
}

async function measureCommand(args: string[], deps: CliDeps): Promise<number> {
  const { values } = parse("measure", args, {
    ...flagOptions(settingsIn("endpoint", "trial")),
    out: { type: "string" },
    quiet: { type: "boolean" },
  });
  const raw = toRaw(values);
  const options = parseTrialOptions(raw, deps.env, deps.readFile);
  const limit = parseFailureLimit(raw);
  const redact = redactor(secretsOf(raw, deps.env));
  const out = typeof values.out === "string" ? values.out : undefined;
  probeOut(deps, out);
  const measured = await measureTrial(options, {
    ...(values.quiet ? {} : { onProgress: (p) => deps.stderr(`${formatProgress(p)}\n`) }),
  });
  // A server that echoes the key (a 401 body) must not put it into the report.
  const report = redactDeep(measured, redact);
  if (out !== undefined) deps.writeFile(out, `${JSON.stringify(report, null, 2)}\n`);
  deps.stdout(`${formatMeasureReport(report)}\n`);
  if (out !== undefined) deps.stdout(`report written to ${out}\n`);
  const excluded = limit.exclude.reduce((n, o) => n + report.outcomes[o], 0);
  const counted = report.scheduled - excluded;
  const failed = counted - report.outcomes.ok;
  if (report.outcomes.ok === 0 || (counted > 0 && failed / counted > limit.maxErrorRate)) {
    deps.stderr(
      `llm-perf-gate: the endpoint failed ${failed} of ${counted} requests (limit max-error-rate ${(limit.maxErrorRate * 100).toFixed(1)} %)${report.outcomes.ok === 0 ? "; none was ok" : ""}\n`,
    );
    return 4;
  }
  return report.validity.valid ? 0 : 3;
}

/** Checks that a report path can be written before the first request. */
function probeOut(deps: CliDeps, out: string | undefined): void {
  if (out === undefined) return;
  try {
    deps.writeFile(out, "");
  } catch (error) {
    throw new InputError(`--out ${JSON.stringify(out)} cannot be written: ${errorMessage(error)}`);
  }
}

async function sweepCommand(args: string[], deps: CliDeps): Promise<number> {
  const { values } = parse("sweep", args, {
    ...flagOptions(settingsIn("endpoint", "trial", "sweep")),
    out: { type: "string" },
  });
  const raw = toRaw(values);
  checkSweepLoad(raw, "by sweep");
  const settings = parseSweepSettings(raw);
  const options = parseTrialOptions(withStandInRate(raw), deps.env, deps.readFile);
  const redact = redactor(secretsOf(raw, deps.env));
  const out = typeof values.out === "string" ? values.out : undefined;
  probeOut(deps, out);
  deps.stderr(`sweep: ${planSweep(1, options, settings).words}\n`);
  const sweep = newSweep(["endpoint"] as const);
  const cancel = new AbortController();
  const onSignal = (signal: string) => cancel.abort(signal);
  const signals = ["SIGINT", "SIGTERM"] as const;
  for (const s of signals) process.once(s, onSignal);
  try {
    await runSweep(sweep, { endpoint: options }, settings, {
      run: async (_arm, o, label) => {
        deps.stderr(`measuring ${label}\n`);
        const report = await measureTrial(o, { signal: cancel.signal });
        if (cancel.signal.aborted) throw cancel.signal.reason;
        return report;
      },
      nowMs: () => performance.now(),
      log: (line) => deps.stderr(`${line}\n`),
    });
  } catch (error) {
    if (!cancel.signal.aborted) throw error;
    sweep.stopped_by = `cancelled by ${String(cancel.signal.reason)}`;
  } finally {
    for (const s of signals) process.off(s, onSignal);
  }
  const built = buildSweepReport(sweep.arms.endpoint, sweep, options, settings, new Date());
  const report = redactDeep(built, redact);
  if (out !== undefined) deps.writeFile(out, `${JSON.stringify(report, null, 2)}\n`);
  deps.stdout(renderSweepMarkdown(report, options.slo.ttftMs));
  if (out !== undefined) deps.stderr(`report written to ${out}\n`);
  return report.capacity.capacity_per_s !== null && report.stopped_by === null ? 0 : 3;
}

function pipelineDeps(deps: CliDeps): PipelineDeps {
  return {
    ...deps.gate,
    env: deps.env,
    readFile: deps.readFile,
    writeFile: deps.writeFile,
    log: (line) => deps.stderr(`${line}\n`),
  };
}

async function gateCommand(args: string[], deps: CliDeps): Promise<number> {
  const { values } = parse("gate", args, flagOptions(settingsIn("trial", "sweep", "gate")));
  const plan = planRun(toRaw(values), deps.readFile);
  const results = await runPipeline(plan, pipelineDeps(deps));
  const invalid = results.guards.find((g) => g.code === "configuration");
  if (invalid) {
    // A usage mistake: said on stderr and exit code 2, with the results file still written.
    deps.stderr(
      `llm-perf-gate: ${invalid.message}\nresults written to ${plan.report.resultsPath}\n`,
    );
    return 2;
  }
  deps.stdout(renderMarkdown(results, plan.report.commentKey));
  // A server's log tail, a response excerpt: where a terminal user looks first.
  for (const g of results.guards.filter((x) => x.detail))
    deps.stderr(`${g.message}\n${g.detail}\n`);
  deps.stderr(`results written to ${plan.report.resultsPath}\n`);
  if (results.verdict === "cancelled") return results.cancelled_by === "SIGINT" ? 130 : 143;
  return plan.report.failOn.includes(results.verdict) ? 1 : 0;
}

/** A history file's rows; none when it does not exist yet. */
function readHistory(deps: CliDeps, path: string): HistoryRow[] {
  let text: string;
  try {
    text = deps.readFile(path);
  } catch {
    return [];
  }
  try {
    return parseHistory(text, path);
  } catch (error) {
    throw new InputError(errorMessage(error));
  }
}

function readLanes(deps: CliDeps, path: string): LanesSpec {
  let text: string;
  try {
    text = deps.readFile(path);
  } catch (error) {
    throw new InputError(`--lanes ${path}: cannot read it: ${errorMessage(error)}`);
  }
  return parseLanes(text, path);
}

async function burstCommand(args: string[], deps: CliDeps): Promise<number> {
  const { values } = parse("burst", args, {
    lanes: { type: "string" },
    history: { type: "string", default: "llm-perf-gate-lanes.jsonl" },
    csv: { type: "string" },
  });
  if (values.lanes === undefined) throw new InputError("burst: --lanes FILE is required");
  const spec = readLanes(deps, values.lanes);
  const history = readHistory(deps, values.history);
  const rows = await runBurst(spec, { env: deps.env });
  const all = [...history, ...rows];
  deps.writeFile(values.history, toJsonl(all));
  if (values.csv !== undefined) deps.writeFile(values.csv, toCsv(all));
  const r = rows[0];
  deps.stderr(
    `burst at ${r?.local_time} ${spec.windows.time_zone} (window ${r?.window ?? "none"}): ${rows.filter((x) => x.passed).length}/${rows.length} passed; ${rows.length} rows appended to ${values.history}\n`,
  );
  deps.stdout(renderLanesMarkdown(reduceHistory(all, spec.rule)));
  return 0;
}

async function lanesReportCommand(args: string[], deps: CliDeps): Promise<number> {
  const { values } = parse("lanes-report", args, {
    history: { type: "string" },
    lanes: { type: "string" },
    out: { type: "string" },
    csv: { type: "string" },
  });
  if (values.history === undefined)
    throw new InputError("lanes-report: --history FILE is required");
  const rows = readHistory(deps, values.history);
  const rule = values.lanes === undefined ? DEFAULT_RULE : readLanes(deps, values.lanes).rule;
  const report = reduceHistory(rows, rule);
  if (values.out !== undefined)
    deps.writeFile(
      values.out,
      `${JSON.stringify({ schema: LANES_REPORT_SCHEMA, ...report }, null, 2)}\n`,
    );
  if (values.csv !== undefined) deps.writeFile(values.csv, toCsv(rows));
  deps.stdout(renderLanesMarkdown(report));
  return 0;
}

async function demoCommand(args: string[], deps: CliDeps): Promise<number> {
  parse("demo", args, {});
  const resultsPath = join(tmpdir(), "llm-perf-gate-demo-results.json");
  // The mocks are this program again, as a process of their own each.
  const self = [process.execPath, fileURLToPath(import.meta.url)];
  const { results, commentKey } = await runDemo(
    { "results-path": resultsPath },
    pipelineDeps(deps),
    self,
  );
  deps.stdout(renderMarkdown(results, commentKey));
  deps.stderr(`results written to ${resultsPath}\n`);
  return 0;
}

export async function runCli(argv: string[], deps: CliDeps): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "mock":
        return await mockCommand(rest, deps);
      case "demo":
        return await demoCommand(rest, deps);
      case "measure":
        return await measureCommand(rest, deps);
      case "gate":
        return await gateCommand(rest, deps);
      case "sweep":
        return await sweepCommand(rest, deps);
      case "burst":
        return await burstCommand(rest, deps);
      case "lanes-report":
        return await lanesReportCommand(rest, deps);
      case undefined:
      case "help":
      case "--help":
      case "-h":
        deps.stdout(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new InputError(
          `unknown command "${command}"; accepted: demo, gate, measure, sweep, burst, lanes-report, mock, help`,
        );
    }
  } catch (error) {
    deps.stderr(`llm-perf-gate: ${errorMessage(error)}\n`);
    return error instanceof InputError ? 2 : 1;
  }
}

if (isEntryModule(import.meta.url)) {
  runCli(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    readFile: (path) => readFileSync(path, "utf8"),
    writeFile: (path, text) => writeFileSync(path, text),
  }).then((code) => {
    process.exitCode = code;
  });
}
