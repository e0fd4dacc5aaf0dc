// The command line: `llm-perf-gate <command> [flags]`.
// Commands: mock (run the built-in mock server), demo (the quick start).

import { readFileSync } from "node:fs";
import { type ParseArgsOptionsConfig, parseArgs } from "node:util";
import { formatDemo, runDemo } from "./demo.ts";
import {
  DEFAULT_PROFILE,
  type MockProfile,
  MockProfileError,
  mergeProfile,
  parseOverrides,
} from "./mock/profile.ts";
import { startMockServer } from "./mock/server.ts";

/** A mistake in how the command was invoked; printed without a stack trace. */
class UsageError extends Error {
  override name = "UsageError";
}

const USAGE = `Usage: llm-perf-gate <command> [flags]

Commands:
  demo                          start the built-in mock server and send one streaming request to it
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

async function demoCommand(args: string[]): Promise<void> {
  parse("demo", args, {});
  console.log(formatDemo(await runDemo()));
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
      case undefined:
      case "help":
      case "--help":
      case "-h":
        process.stdout.write(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}"; accepted: demo, mock, help`);
    }
  } catch (error) {
    if (error instanceof UsageError || error instanceof MockProfileError) {
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
