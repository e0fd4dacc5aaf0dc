// Where settings come from: a config file (YAML or JSON, no secrets), the
// action's inputs or the CLI's flags; later sources override earlier ones.

import { parse as parseYaml } from "yaml";
import { errorMessage, InputError } from "../common/errors.ts";
import { type RawSettings, SETTINGS, setting } from "./settings.ts";
import type { ReadFile } from "./workload.ts";

/**
 * The config file `config` names (YAML or JSON) as raw settings. Parsed with
 * YAML's failsafe schema, every scalar arrives as the text that was written
 * ("0x10" stays "0x10", "on" stays "on") and is validated like an input;
 * lists and mappings where a single value belongs are errors.
 */
export function readConfigFile(path: string, readFile: ReadFile): RawSettings {
  let parsed: unknown;
  try {
    parsed = parseYaml(readFile(path, "config file"), { schema: "failsafe" });
  } catch (error) {
    // The parser's first line only: the rest quotes the file, which may hold a secret.
    const reason = errorMessage(error).split("\n")[0];
    throw new InputError(
      `config = ${JSON.stringify(path)} cannot be read as YAML or JSON: ${reason}`,
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
    const value = fileValue(path, key, v, "kind" in known && known.kind === "lines");
    if (key === "header") refuseCredentialHeaders(path, value);
    raw[key] = value;
  }
  return raw;
}

/** Header names that carry credentials: those belong in the (masked) header input, not a file. */
const CREDENTIAL_HEADER = /auth|key|token|secret|passw|cookie|session|credential/i;

function refuseCredentialHeaders(path: string, value: string | string[] | undefined): void {
  const entries = value === undefined ? [] : Array.isArray(value) ? value : [value];
  for (const line of entries.flatMap((e) => e.split(/\r?\n/))) {
    const name = line.split(":")[0]?.trim() ?? "";
    if (CREDENTIAL_HEADER.test(name)) {
      throw new InputError(
        `config ${path}: header "${name}: …" looks like a credential and must not be in a file; pass it as the header input (or --header), which is masked and never written`,
      );
    }
  }
}

/** YAML's spellings of null: the setting is left unset. */
const NULLS = new Set(["", "~", "null", "Null", "NULL"]);

function fileValue(
  path: string,
  key: string,
  v: unknown,
  lines: boolean,
): string | string[] | undefined {
  if (typeof v === "string") return NULLS.has(v.trim()) ? undefined : v;
  if (lines && Array.isArray(v) && v.every((x) => typeof x === "string")) return v;
  const accepted = lines
    ? 'a string or a list of strings, one "Name: value" line each'
    : "a single value (a string or number), not a list or a mapping";
  // Described, not quoted: a mapping under `header` is where a token ends up.
  const given = Array.isArray(v) ? `a list of ${v.length}` : "a mapping";
  throw new InputError(`config ${path}: ${key} is ${given}, not accepted; expected ${accepted}`);
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

/**
 * Every secret value the settings and the environment hold: the secret
 * settings, the values of credential-like headers, and the API keys and
 * GitHub token read from the environment.
 */
export function secretsOf(raw: RawSettings, env: Record<string, string | undefined>): string[] {
  const secrets: string[] = [];
  for (const s of SETTINGS) {
    if (!("secret" in s && s.secret)) continue;
    const v = raw[s.name];
    if (typeof v === "string") secrets.push(v.trim());
  }
  const headers = raw.header;
  for (const line of (Array.isArray(headers) ? headers : headers ? [headers] : []).flatMap((h) =>
    h.split(/\r?\n/),
  )) {
    const colon = line.indexOf(":");
    if (colon > 0 && CREDENTIAL_HEADER.test(line.slice(0, colon))) {
      const value = line.slice(colon + 1).trim();
      secrets.push(value, ...value.split(/\s+/).filter((part) => part.length >= 8));
    }
  }
  for (const name of [
    "LLM_PERF_GATE_API_KEY",
    "OPENAI_API_KEY",
    "LLM_PERF_GATE_JUDGE_API_KEY",
    "GITHUB_TOKEN",
  ]) {
    const v = env[name];
    if (v) secrets.push(v.trim());
  }
  return secrets;
}
