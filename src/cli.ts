// The command line: `llm-perf-gate <command> [flags]`.
// Commands: mock (run the built-in mock server), demo (the quick start).

import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ParseArgsOptionsConfig, parseArgs } from "node:util";
import { ConfigError } from "./config/errors.ts";
import {
  GATE_KEYS,
  MEASURE_KEYS,
  mergeSettings,
  parseGateConfig,
  parseReportSettings,
  readConfigFile,
} from "./config/gate.ts";
import { parseMeasureConfig, type RawSettings } from "./config/measure.ts";
import { runDemo } from "./demo.ts";
import { runGate } from "./gate.ts";
import { measure } from "./measure.ts";
import {
  DEFAULT_PROFILE,
  type MockProfile,
  MockProfileError,
  mergeProfile,
  parseOverrides,
} from "./mock/profile.ts";
import { startMockServer } from "./mock/server.ts";
import { renderMarkdown } from "./report/markdown.ts";
import { formatMeasureReport, formatProgress } from "./report/measure-text.ts";
import { buildResults, writeResults } from "./report/results.ts";
import { lifecycleFor, stopOnSignals } from "./servers/lifecycle.ts";

/** A mistake in how the command was invoked; printed without a stack trace. */
class UsageError extends Error {
  override name = "UsageError";
}

const USAGE = `Usage: llm-perf-gate <command> [flags]

Commands:
  demo                          a short gate between two built-in mock servers (the candidate decodes 30 % slower)
  gate [--config FILE] [flags]  measure baseline and candidate in interleaved pairs and decide;
                                flags are the action's inputs (--baseline-url, --candidate-url, --model, …)
  measure --url URL --model NAME [flags]
                                measure one endpoint open-loop; prints a table, writes --out JSON
  mock [--port N] [--host H] [--profile FILE] [--set key=value ...]
                                run the built-in OpenAI-compatible mock server until SIGINT/SIGTERM
  help                          show this text
`;

function parse<T extends ParseArgsOptionsConfig>(command: string, args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: false, strict: true });
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`);
  }
}

function loadProfile(profilePath: string | undefined, sets: string[]): MockProfile {
  let profile = DEFAULT_PROFILE;
  if (profilePath !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(profilePath, "utf8"));
    } catch (error) {
      throw new UsageError(
        `--profile ${profilePath}: cannot read a JSON profile: ${(error as Error).message}`,
      );
    }
    profile = mergeProfile(profile, parsed, `--profile ${profilePath}`);
  }
  if (sets.length > 0) profile = mergeProfile(profile, parseOverrides(sets), "--set");
  return profile;
}

async function mockCommand(args: string[]): Promise<void> {
  const { values } = parse("mock", args, {
    port: { type: "string", default: "8000" },
    host: { type: "string", default: "127.0.0.1" },
    profile: { type: "string" },
    set: { type: "string", multiple: true, default: [] },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(
      `mock: --port ${values.port} is not accepted; expected an integer in [0, 65535]`,
    );
  }
  const profile = loadProfile(values.profile, values.set);
  const server = await startMockServer({ profile, port, host: values.host });
  console.log(`mock LLM server listening on ${server.url} (models: ${profile.models.join(", ")})`);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      console.log(`received ${signal}, stopping the mock server`);
      server.close().then(resolve, resolve);
    };
    process.once("SIGINT", () => stop("SIGINT"));
    process.once("SIGTERM", () => stop("SIGTERM"));
  });
}

async function measureCommand(args: string[]): Promise<number> {
  const { values } = parse("measure", args, {
    ...flagOptions(["url", "model", "api-key", ...MEASURE_KEYS]),
    out: { type: "string" },
    quiet: { type: "boolean" },
  });
  const config = parseMeasureConfig(
    toRaw(values as Record<string, string | boolean | string[] | undefined>),
    process.env,
  );
  const report = await measure(config, {
    ...(values.quiet ? {} : { onProgress: (p) => console.error(formatProgress(p)) }),
  });
  const out = values.out;
  if (out !== undefined) writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(formatMeasureReport(report));
  if (out !== undefined) console.log(`report written to ${out}`);
  return report.validity.valid ? 0 : 3;
}

function toRaw(values: Record<string, string | boolean | string[] | undefined>): RawSettings {
  const raw: RawSettings = {};
  for (const [key, value] of Object.entries(values)) {
    raw[key] = typeof value === "boolean" ? String(value) : value;
  }
  return raw;
}

const BOOLEAN_FLAGS = new Set(["ignore-eos", "no-usage", "job-summary", "quality-vllm-sampling"]);

/** Flags named as the settings: switches for the booleans, a list for header. */
function flagOptions(keys: readonly string[]): ParseArgsOptionsConfig {
  const options: ParseArgsOptionsConfig = {};
  for (const key of keys) {
    options[key] = BOOLEAN_FLAGS.has(key)
      ? { type: "boolean" }
      : { type: "string", multiple: key === "header" };
  }
  return options;
}

async function gateCommand(args: string[]): Promise<number> {
  const keys = [...GATE_KEYS, ...MEASURE_KEYS].filter((k) => k !== "github-token" && k !== "mode");
  const { values } = parse("gate", args, flagOptions(keys));
  const flags = toRaw(values as Record<string, string | boolean | string[] | undefined>);
  const configPath = flags.config as string | undefined;
  const raw = mergeSettings(
    configPath ? readConfigFile(configPath, (p) => readFileSync(p, "utf8")) : {},
    flags,
  );
  const config = parseGateConfig(raw, process.env);
  const log = (line: string) => console.error(line);
  const servers = lifecycleFor(config, log);
  const release = servers ? stopOnSignals(servers, log) : () => {};
  const outcome = await runGate(config, { log, ...(servers ? { servers } : {}) }).finally(release);
  const results = buildResults(config, outcome, process.env);
  writeResults(config.report.resultsPath, results);
  console.log(renderMarkdown(results, config.report.commentKey));
  console.error(`results written to ${config.report.resultsPath}`);
  return config.report.failOn.includes(results.verdict) ? 1 : 0;
}

async function demoCommand(args: string[]): Promise<void> {
  parse("demo", args, {});
  const { config, outcome } = await runDemo((line) => console.error(line));
  const results = buildResults(config, outcome, process.env);
  const settings = parseReportSettings({
    "results-path": join(tmpdir(), "llm-perf-gate-demo-results.json"),
  });
  writeResults(settings.resultsPath, results);
  console.log(renderMarkdown(results, settings.commentKey));
  console.error(`results written to ${settings.resultsPath}`);
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "mock":
        await mockCommand(rest);
        return 0;
      case "demo":
        await demoCommand(rest);
        return 0;
      case "measure":
        return await measureCommand(rest);
      case "gate":
        return await gateCommand(rest);
      case undefined:
      case "help":
      case "--help":
      case "-h":
        process.stdout.write(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(
          `unknown command "${command}"; accepted: demo, gate, measure, mock, help`,
        );
    }
  } catch (error) {
    if (
      error instanceof UsageError ||
      error instanceof MockProfileError ||
      error instanceof ConfigError
    ) {
      console.error(`llm-perf-gate: ${error.message}`);
      return 2;
    }
    console.error(`llm-perf-gate: ${(error as Error).message ?? error}`);
    return 1;
  }
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
