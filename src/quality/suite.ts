// Quality suites: YAML (a mapping with `defaults` and `cases`) or JSONL (one
// case per line; a line holding only `defaults` sets them). Validated against
// the JSON Schema we ship (schemas/quality-suite.schema.json) with ajv — its
// 2020-12 dialect, as the schema's $schema says — before any request is sent.

import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import { parse as parseYaml } from "yaml";
import schema from "../../schemas/quality-suite.schema.json" with { type: "json" };
import { ConfigError } from "../config/errors.ts";

export type CheckKind =
  | "json_parse"
  | "json_schema"
  | "json_path"
  | "tool_call"
  | "no_tool_call"
  | "finish_reason"
  | "max_tokens_respected"
  | "length"
  | "regex"
  | "equals"
  | "contains"
  | "stream_consistency"
  | "agreement";

export interface Check {
  kind: CheckKind;
  [param: string]: unknown;
}

export interface ToolSpec {
  type: "function";
  function: {
    name: string;
    description?: string;
    parameters?: Record<string, unknown>;
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
    json_schema?: { name: string; schema: Record<string, unknown>; strict?: boolean };
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
ajv.addSchema(schema);
const validateSuite = ajv.getSchema(schema.$id) as ValidateFunction;
const validateCase = ajv.getSchema(`${schema.$id}#/$defs/case`) as ValidateFunction;

function describe(errors: ErrorObject[] | null | undefined, whole: string): string {
  const e = errors?.[0];
  if (!e) return "invalid";
  const where = e.instancePath === "" ? whole : e.instancePath;
  const extra =
    e.keyword === "additionalProperties"
      ? ` (${(e.params as { additionalProperty: string }).additionalProperty})`
      : "";
  const allowed =
    e.keyword === "enum"
      ? `: ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(", ")}`
      : "";
  return `${where} ${e.message}${extra}${allowed}`;
}

function parseText(text: string, source: string): unknown {
  const trimmed = text.trim();
  // JSONL: every non-empty line is a JSON object and there are several, or one that is not a suite.
  const lines = trimmed.split(/\r?\n/).filter((l) => l.trim() !== "");
  if (lines.length > 0 && lines.every((l) => l.trim().startsWith("{"))) {
    try {
      const rows = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      if (rows.length === 1 && "cases" in (rows[0] as object)) return rows[0];
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
    throw new ConfigError(
      `quality-suite ${source}: not YAML or JSONL: ${(error as Error).message}`,
    );
  }
}

export function parseSuite(text: string, source: string): Suite {
  const raw = parseText(text, source);
  if (!validateSuite(raw))
    throw new ConfigError(
      `quality-suite ${source}: ${describe(validateSuite.errors, "(the suite)")}`,
    );
  const { defaults = {}, cases } = raw as {
    defaults?: Record<string, unknown>;
    cases: Record<string, unknown>[];
  };
  const seen = new Set<string>();
  const out = cases.map((c, i) => {
    const merged = {
      ...BUILTIN_DEFAULTS,
      ...defaults,
      ...c,
      tags: [...((defaults.tags as string[]) ?? []), ...((c.tags as string[]) ?? [])],
    };
    const id = typeof c.id === "string" ? c.id : `#${i + 1}`;
    if (!validateCase(merged))
      throw new ConfigError(
        `quality-suite ${source}: case "${id}": ${describe(validateCase.errors, "(the case)")}`,
      );
    if (seen.has(id))
      throw new ConfigError(`quality-suite ${source}: case id "${id}" is used twice`);
    seen.add(id);
    const q = merged as unknown as QualityCase;
    for (const check of q.expect) checkReferences(q, check, source);
    return q;
  });
  return { name: source, cases: out };
}

/** Checks that need something from the request (tools, a schema) fail early, by case and check. */
function checkReferences(c: QualityCase, check: Check, source: string): void {
  const where = `quality-suite ${source}: case "${c.id}": check ${check.kind}`;
  if ((check.kind === "tool_call" || check.kind === "no_tool_call") && !c.tools) {
    throw new ConfigError(`${where} needs tools in the request`);
  }
  if (check.kind === "json_schema" && !check.schema && c.response_format?.type !== "json_schema") {
    throw new ConfigError(`${where} needs a schema, inline or from response_format json_schema`);
  }
  if (check.kind === "stream_consistency" && c.stream !== "both") {
    throw new ConfigError(`${where} needs stream: both`);
  }
  if (check.kind === "regex") {
    try {
      new RegExp(check.pattern as string, (check.flags as string | undefined) ?? "");
    } catch (error) {
      throw new ConfigError(
        `${where}: pattern is not a valid regular expression: ${(error as Error).message}`,
      );
    }
  }
  for (const call of (check.calls as { name: string }[] | undefined) ?? []) {
    if (!c.tools?.some((t) => t.function.name === call.name)) {
      throw new ConfigError(`${where}: expected call "${call.name}" is not among the case's tools`);
    }
  }
}
