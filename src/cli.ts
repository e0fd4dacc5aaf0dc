// The command line: `llm-perf-gate <command> [flags]` → the command (its
// flags read from the settings table) → its exit code. `runCli` takes its I/O
// as dependencies; run as a program, it uses the process's.

import { fileURLToPath } from "node:url";
import { parseFlags } from "./commands/flags.ts";
import { commandHelp, programHelp } from "./commands/help.ts";
import { type CliIo, COMMANDS } from "./commands/registry.ts";
import { startWatchdog } from "./commands/watchdog.ts";
import { isEntryModule } from "./common/entry.ts";
import { errorMessage, InputError } from "./common/errors.ts";
import { readInputFile } from "./common/files.ts";
import { writeOutputFile } from "./common/outputs.ts";
import { checkEveryGiven, commandSettings } from "./config/settings.ts";

export type CliDeps = Omit<CliIo, "self"> & Partial<Pick<CliIo, "self">>;

export async function runCli(argv: string[], deps: CliDeps): Promise<number> {
  const io: CliIo = { self: [process.execPath, fileURLToPath(import.meta.url)], ...deps };
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    io.stdout(programHelp(COMMANDS));
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  try {
    if (!command)
      throw new InputError(
        `unknown command "${name}"; accepted: ${COMMANDS.map((c) => c.name).join(", ")}, help`,
      );
    const flags = commandSettings(command.name);
    const { raw, help } = parseFlags(command.name, rest, flags, command.positional);
    if (help) {
      io.stdout(commandHelp(command, flags));
      return 0;
    }
    // The gate checks its own (its results file says why); the other commands here.
    if (command.name !== "gate") checkEveryGiven(raw);
    return await command.run(raw, io);
  } catch (error) {
    io.stderr(`llm-perf-gate: ${errorMessage(error)}\n`);
    return error instanceof InputError ? 2 : 1;
  }
}

if (isEntryModule(import.meta.url)) {
  runCli(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    readFile: readInputFile,
    writeFile: writeOutputFile,
    gate: { startWatchdog },
  }).then((code) => {
    process.exitCode = code;
  });
}
