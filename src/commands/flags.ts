// A command's flags, read the way the action reads its inputs: every flag is a
// setting of the table, `--name value` or `--name=value`; a switch is `--x`,
// `--x=true|false` or `--x true|false`; a value that starts with "-" (a
// negative number) is a value, and reaches the setting's own validation.

import { InputError } from "../common/errors.ts";
import type { RawSettings, Setting } from "../config/settings.ts";

const BOOLEAN_WORDS = new Set(["true", "false", "yes", "no", "on", "off", "1", "0"]);

/**
 * The flags of `command` (its settings) as raw settings; `help` when --help or
 * -h was given. `positional`: the setting a first bare argument gives.
 */
export function parseFlags(
  command: string,
  args: readonly string[],
  settings: readonly Setting[],
  positional?: string,
): { raw: RawSettings; help: boolean } {
  const byFlag = new Map<string, Setting>();
  for (const s of settings) for (const f of [s.name, ...(s.aliases ?? [])]) byFlag.set(f, s);
  const raw: RawSettings = {};
  let help = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--help" || arg === "-h") {
      help = true;
      continue;
    }
    if (positional !== undefined && raw[positional] === undefined && !arg.startsWith("-")) {
      raw[positional] = arg;
      continue;
    }
    if (!arg.startsWith("--") || arg === "--") {
      throw new InputError(
        `${command}: unexpected argument ${JSON.stringify(arg)}; flags are --name value (see ${command} --help)`,
      );
    }
    const eq = arg.indexOf("=");
    const flag = arg.slice(2, eq < 0 ? undefined : eq);
    const inline = eq < 0 ? undefined : arg.slice(eq + 1);
    const s = byFlag.get(flag);
    if (!s) throw new InputError(`${command}: unknown flag --${flag} (see ${command} --help)`);
    const next = args[i + 1];
    let value: string;
    if (inline !== undefined) value = inline;
    else if (s.kind === "boolean") {
      value = "true";
      if (next !== undefined && BOOLEAN_WORDS.has(next.toLowerCase())) {
        value = next;
        i++;
      }
    } else {
      const isFlag = next?.startsWith("--") && byFlag.has(next.slice(2).split("=")[0] ?? "");
      if (next === undefined || isFlag)
        throw new InputError(`${command}: --${flag} needs a value (see ${command} --help)`);
      value = next;
      i++;
    }
    const prev = raw[s.name];
    raw[s.name] =
      s.kind === "lines" ? [...(Array.isArray(prev) ? prev : prev ? [prev] : []), value] : value;
  }
  return { raw, help };
}
