// `llm-perf-gate --help` and `llm-perf-gate <command> --help`, from the
// settings table: every flag of the command with its default, what it
// accepts and one line.

import { describeAccepts } from "../config/accepts.ts";
import type { Setting } from "../config/settings.ts";

export interface CommandHelp {
  name: string;
  /** How it is called, after the program name. */
  usage: string;
  /** One line. */
  summary: string;
}

const WIDTH = 100;

/** Wraps words to WIDTH, each line after the first indented. */
function wrap(text: string, indent: string): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && line.length + word.length + 1 > WIDTH - indent.length) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.join(`\n${indent}`);
}

/** One flag: "--name VALUE (alias --x)", then the line, what it accepts and the default. */
export function flagHelp(s: Setting): string {
  const value = s.kind === "boolean" ? "" : s.kind === "lines" ? " VALUE …" : " VALUE";
  const aliases = s.aliases?.length ? ` (or ${s.aliases.map((a) => `--${a}`).join(", ")})` : "";
  const accepts = describeAccepts(s.accepts);
  const def = s.default === undefined ? "" : ` Default ${s.default}.`;
  const text = `${s.help} Accepts ${accepts}.${def}${s.secret ? " A secret: masked, never printed or written." : ""}`;
  return `  --${s.name}${value}${aliases}\n      ${wrap(text, "      ")}`;
}

export function commandHelp(c: CommandHelp, flags: readonly Setting[]): string {
  const lines = [`Usage: llm-perf-gate ${c.usage}`, "", wrap(c.summary, ""), ""];
  if (flags.length > 0) {
    lines.push(
      "Flags (a switch takes --x, --x=true|false or --x true|false):",
      ...flags.map(flagHelp),
    );
  } else lines.push("No flags.");
  lines.push("  --help, -h\n      This text.", "");
  return lines.join("\n");
}

export function programHelp(commands: readonly CommandHelp[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    "Usage: llm-perf-gate <command> [flags]    (llm-perf-gate <command> --help: its flags)",
    "",
    "Commands:",
    ...commands.map((c) => `  ${c.name.padEnd(width)}${wrap(c.summary, " ".repeat(width + 2))}`),
    `  ${"help".padEnd(width)}this text`,
    "",
  ].join("\n");
}
