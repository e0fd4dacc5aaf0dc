// Where settings come from: a config file (YAML or JSON, no secrets), the
// action's inputs or the CLI's flags; later sources override earlier ones.

import { parse as parseYaml } from "yaml";
import { errorMessage, InputError } from "../common/errors.ts";
import type { ReadFile } from "./measure.ts";
import { type RawSettings, SETTINGS, setting } from "./settings.ts";

/** The config file `config` names (YAML or JSON) as raw settings. */
export function readConfigFile(path: string, readFile: ReadFile): RawSettings {
  let parsed: unknown;
  try {
    parsed = parseYaml(readFile(path));
  } catch (error) {
    throw new InputError(
      `config = ${JSON.stringify(path)} cannot be read as YAML or JSON: ${errorMessage(error)}`,
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new InputError(
      `config ${path}: expected a mapping of settings (kebab-case keys, as the inputs)`,
    );
  }
  const raw: RawSettings = {};
  for (const [key, v] of Object.entries(parsed)) {
    const known = setting(key);
    if (known === undefined || known.scope === "endpoint") {
      const accepted = SETTINGS.filter((s) => s.scope !== "endpoint")
        .map((s) => s.name)
        .sort();
      throw new InputError(
        `config ${path}: unknown setting "${key}"; accepted: ${accepted.join(", ")}`,
      );
    }
    if ("secret" in known && known.secret) {
      throw new InputError(
        `config ${path}: "${key}" must not be in a file; pass it as an input or in the environment`,
      );
    }
    raw[key] = Array.isArray(v) ? v.map(String) : v === null ? undefined : String(v);
  }
  return raw;
}

/** Later sources override earlier ones; empty values do not override. */
export function mergeSettings(...sources: RawSettings[]): RawSettings {
  const merged: RawSettings = {};
  for (const source of sources) {
    for (const [key, v] of Object.entries(source)) {
      const empty = v === undefined || (Array.isArray(v) ? v.length === 0 : v.trim() === "");
      if (!empty) merged[key] = v;
    }
  }
  return merged;
}
