// Quality suites: YAML (a mapping with `defaults` and `cases`) or JSONL (one
// case per line; a line holding only `defaults` sets them). Validated against
// the JSON Schema we ship (schemas/quality-suite.schema.json) with ajv — its
// 2020-12 dialect, as the schema's $schema says — before any request is sent.

import { Ajv2020 } from "ajv/dist/2020.js";
import { parse as parseYaml } from "yaml";
import schema from "../../schemas/quality-suite.schema.json" with { type: "json" };
import { errorMessage, InputError } from "../common/errors.ts";
import { nonFiniteReason } from "../common/finite.ts";
import { compilePattern } from "../common/pattern.ts";
import { describeSchemaError as describe } from "../common/schema-errors.ts";
import BUILTIN_SUITE from "./builtin-suite.json" with { type: "json" };
import { type JsonSchema, validator } from "./validator.ts";

export interface ExpectedCall {
  name: string;
  /** Acceptable values per argument; "" among them means it may be omitted. */
  arguments?: Record<string, unknown>;
}

/** One check of a case, exactly as the suite schema allows it. */
export type Check =
  | { kind: "json_parse" }
  | { kind: "json_schema"; schema?: JsonSchema }
  | { kind: "json_path"; pointer: string; equals?: unknown; in?: unknown[]; regex?: string }
  | {
      kind: "tool_call";
      calls?: ExpectedCall[];
      min_calls?: number;
      max_calls?: number;
      finish_reasons?: string[];
    }
  | { kind: "no_tool_call" }
  | { kind: "finish_reason"; allowed: string[] }
  | { kind: "max_tokens_respected" }
  | {
      kind: "length";
      min_chars?: number;
      max_chars?: number;
      min_tokens?: number;
      max_tokens?: number;
      not_truncated?: boolean;
    }
  | { kind: "regex"; pattern: string; flags?: string }
  | { kind: "equals"; value: string; normalize?: boolean }
  | { kind: "contains"; values: string[]; normalize?: boolean }
  | { kind: "stream_consistency" }
  | { kind: "agreement"; mode?: "exact" | "normalized" | "json" | "tool_calls"; gate?: boolean };

export type CheckKind = Check["kind"];

export interface ToolSpec {
  type: "function";
  function: {
    name: string;
    description?: string;
    parameters?: JsonSchema;
    strict?: boolean;
  };
}

export interface QualityCase {
  id: string;
  tags: string[];
  messages: { role: string; content: unknown }[];
  tools?: ToolSpec[];
  tool_choice?: "none" | "auto" | "required" | { type: "function"; function: { name: string } };
  response_format?: {
    type: string;
    json_schema?: { name: string; schema: JsonSchema; strict?: boolean };
  };
  max_tokens: number;
  temperature: number;
  top_p: number;
  seed: number;
  stream: boolean | "both";
  repeats: number;
  extra_body: Record<string, unknown>;
  expect: Check[];
}

export interface Suite {
  name: string;
  cases: QualityCase[];
}

/** Sampling sent explicitly on every request unless a case says otherwise. */
const BUILTIN_DEFAULTS = {
  temperature: 0,
  top_p: 1,
  seed: 1234,
  stream: false,
  repeats: 1,
  tags: [],
  extra_body: {},
};

const ajv = new Ajv2020({ allErrors: false, strict: false });
/** A suite file's shape, as far as the schema checks it before the cases are merged with the defaults. */
interface SuiteFile {
  defaults?: Record<string, unknown> & { tags?: string[] };
  cases: (Record<string, unknown> & { id?: string; tags?: string[] })[];
}

const validateSuite = ajv.compile<SuiteFile>(schema);
const validateCase = ajv.compile<QualityCase>({ $ref: `${schema.$id}#/$defs/case` });

function parseText(text: string, source: string): unknown {
  const trimmed = text.trim();
  // JSONL: every non-empty line is a JSON object and there are several, or one that is not a suite.
  const lines = trimmed.split(/\r?\n/).filter((l) => l.trim() !== "");
  if (lines.length > 0 && lines.every((l) => l.trim().startsWith("{"))) {
    try {
      const rows: Record<string, unknown>[] = lines.map((l) => JSON.parse(l));
      const only = rows.length === 1 ? rows[0] : undefined;
      if (only && "cases" in only) return only;
      const defaults = rows.find((r) => Object.keys(r).length === 1 && "defaults" in r)?.defaults;
      return {
        ...(defaults ? { defaults } : {}),
        cases: rows.filter((r) => !("defaults" in r && Object.keys(r).length === 1)),
      };
    } catch {
      // not JSONL: fall through to YAML, which reports its own error
    }
  }
  try {
    return parseYaml(text);
  } catch (error) {
    throw new InputError(`quality-suite ${source}: not YAML or JSONL: ${errorMessage(error)}`);
  }
}

export function parseSuite(text: string, source: string): Suite {
  const data = parseText(text, source);
  const nonFinite = nonFiniteReason(data);
  if (nonFinite) throw new InputError(`quality-suite ${source}: ${nonFinite}`);
  return suiteFromData(data, source);
}

/** The built-in suite, shipped as a data file in the suite format. */
export function builtinSuite(): Suite {
  return suiteFromData(BUILTIN_SUITE, "builtin");
}

function suiteFromData(raw: unknown, source: string): Suite {
  if (!validateSuite(raw))
    throw new InputError(
      `quality-suite ${source}: ${describe(validateSuite.errors, "(the suite)")}`,
    );
  const { defaults = {}, cases } = raw;
  const seen = new Set<string>();
  const out = cases.map((c, i) => {
    const merged = {
      ...BUILTIN_DEFAULTS,
      ...defaults,
      ...c,
      tags: [...(defaults.tags ?? []), ...(c.tags ?? [])],
    };
    const id = typeof c.id === "string" ? c.id : `#${i + 1}`;
    if (!validateCase(merged))
      throw new InputError(
        `quality-suite ${source}: case "${id}": ${describe(validateCase.errors, "(the case)")}`,
      );
    if (seen.has(id))
      throw new InputError(`quality-suite ${source}: case id "${id}" is used twice`);
    seen.add(id);
    for (const check of merged.expect) checkReferences(merged, check, source);
    return merged;
  });
  return { name: source, cases: out };
}

/** Checks that need something from the request (tools, a schema) fail early, by case and check. */
function checkReferences(c: QualityCase, check: Check, source: string): void {
  const where = `quality-suite ${source}: case "${c.id}": check ${check.kind}`;
  if ((check.kind === "tool_call" || check.kind === "no_tool_call") && !c.tools) {
    throw new InputError(`${where} needs tools in the request`);
  }
  if (check.kind === "json_schema" && !check.schema && c.response_format?.type !== "json_schema") {
    throw new InputError(`${where} needs a schema, inline or from response_format json_schema`);
  }
  if (check.kind === "stream_consistency" && c.stream !== "both") {
    throw new InputError(`${where} needs stream: both`);
  }
  // Compiled now, so that a bad pattern or schema is named here, not mid-run.
  const compile = (what: string, build: () => unknown) => {
    try {
      build();
    } catch (error) {
      throw new InputError(`${where}: ${what}: ${errorMessage(error).split("\n")[0]}`);
    }
  };
  if (check.kind === "regex")
    compile("pattern is not a valid regular expression", () =>
      compilePattern(check.pattern, check.flags ?? ""),
    );
  if (check.kind === "json_path" && check.regex !== undefined) {
    const regex = check.regex;
    compile("regex is not a valid regular expression", () => compilePattern(regex, ""));
  }
  if (check.kind === "json_schema") {
    const schema = check.schema ?? c.response_format?.json_schema?.schema ?? {};
    compile("the schema cannot be compiled", () => validator(schema));
  }
  if (check.kind === "tool_call")
    for (const tool of c.tools ?? []) {
      const parameters = tool.function.parameters;
      if (parameters)
        compile(`tool "${tool.function.name}": its parameters schema cannot be compiled`, () =>
          validator(parameters),
        );
    }
  const calls = check.kind === "tool_call" ? (check.calls ?? []) : [];
  for (const call of calls) {
    if (!c.tools?.some((t) => t.function.name === call.name)) {
      throw new InputError(`${where}: expected call "${call.name}" is not among the case's tools`);
    }
  }
}
