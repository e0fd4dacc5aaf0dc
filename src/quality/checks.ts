// The checks of a quality case against one answer. Each failure has a code
// (`tool.missing`, `json.schema:/items/0`, …) and a tier: strict — what a
// healthy server never breaks (transport, JSON under response_format, tool
// wire format and schema under a required/named tool_choice or strict,
// completion_tokens ≤ max_tokens), any new confirmed failure fails the gate —
// or graded (right tool, right values, right answer), judged by a test.

import { isRecord } from "../common/arrays.ts";
import { compilePattern } from "../common/pattern.ts";
import type { Answer, ToolCall } from "./answer.ts";
import type { Check, QualityCase } from "./suite.ts";
import { validator } from "./validator.ts";

export type Tier = "strict" | "graded";

export interface CheckResult {
  /** The check's kind, or "transport" for the implicit one. */
  kind: string;
  pass: boolean;
  codes: string[];
  tier: Tier;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text.trim()) };
  } catch {
    return { ok: false };
  }
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (!isRecord(a) || !isRecord(b)) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => deepEqual(a[k], b[k]));
}

/** RFC 6901 JSON Pointer. */
export function resolvePointer(doc: unknown, pointer: string): { found: boolean; value?: unknown } {
  if (pointer === "") return { found: true, value: doc };
  let cur: unknown = doc;
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(cur) && /^(0|[1-9]\d*)$/.test(token) && Number(token) < cur.length)
      cur = cur[Number(token)];
    else if (isRecord(cur) && Object.hasOwn(cur, token)) cur = cur[token];
    else return { found: false };
  }
  return { found: true, value: cur };
}

export function normalizeText(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/[.!?]+$/, "");
}

/** Content that is a tool call in disguise: leaked JSON or tags instead of tool_calls. */
export function looksLikeToolCall(content: string): boolean {
  return (
    /<tool_call>|<\|python_tag\|>|\[TOOL_CALLS\]/.test(content) ||
    /"name"\s*:\s*"[^"]+"[\s\S]*"(arguments|parameters)"\s*:/.test(content)
  );
}

function jsonResponseFormat(c: QualityCase): boolean {
  return c.response_format?.type === "json_object" || c.response_format?.type === "json_schema";
}

/** Tool calls are strict when the request forces one (required / named) or a tool is strict. */
function toolsAreStrict(c: QualityCase): boolean {
  return (
    c.tool_choice === "required" ||
    (typeof c.tool_choice === "object" && c.tool_choice !== null) ||
    (c.tools ?? []).some((t) => t.function.strict === true)
  );
}

function transportCheck(a: Answer): CheckResult {
  const codes =
    a.status >= 200 && a.status < 300 ? a.transport : [`transport.http_${a.status || "connect"}`];
  return {
    kind: "transport",
    pass: codes.length === 0,
    codes: [...new Set(codes)],
    tier: "strict",
  };
}

function toolCallCodes(
  c: QualityCase,
  check: Extract<Check, { kind: "tool_call" }>,
  a: Answer,
): { strict: string[]; graded: string[] } {
  const strict: string[] = [];
  const graded: string[] = [];
  const calls = a.toolCalls;
  if (calls.length === 0) {
    strict.push(looksLikeToolCall(a.content) ? "tool.in_content" : "tool.missing");
    return { strict, graded };
  }
  const named = typeof c.tool_choice === "object" && c.tool_choice !== null;
  const allowedFinish = check.finish_reasons ?? (named ? ["tool_calls", "stop"] : ["tool_calls"]);
  if (!allowedFinish.includes(a.finishReason ?? "")) strict.push("tool.finish_reason");
  const parsed: (Record<string, unknown> | undefined)[] = [];
  for (const call of calls) {
    if (!call.id) strict.push("tool.no_id");
    if (call.type !== undefined && call.type !== "function") strict.push("tool.type");
    const tool = c.tools?.find((t) => t.function.name === call.name);
    if (!tool) {
      strict.push("tool.unknown_name");
      parsed.push(undefined);
      continue;
    }
    const args = parseJson(call.arguments === "" ? "{}" : call.arguments);
    if (
      !args.ok ||
      typeof args.value !== "object" ||
      args.value === null ||
      Array.isArray(args.value)
    ) {
      strict.push("tool.args_not_json");
      parsed.push(undefined);
      continue;
    }
    parsed.push(args.value as Record<string, unknown>);
    const schema = tool.function.parameters;
    if (!schema) continue;
    const validate = validator(schema);
    if (!validate(args.value)) {
      for (const e of validate.errors ?? []) {
        if (e.keyword === "required") strict.push("tool.missing_required");
        else if (e.keyword === "additionalProperties") strict.push("tool.unexpected_param");
        else strict.push(`tool.args_schema:${e.instancePath || "/"}`);
      }
    }
  }
  const { min_calls: min, max_calls: max } = check;
  if ((min !== undefined && calls.length < min) || (max !== undefined && calls.length > max))
    graded.push("tool.count");
  const expected = check.calls ?? [];
  // Order-insensitive: exact matches first, then the remaining expected calls
  // take any unused call of the same name (a value mismatch) or none (wrong tool).
  const used = new Set<number>();
  const pending: typeof expected = [];
  for (const want of expected) {
    const i = calls.findIndex(
      (call, k) =>
        !used.has(k) &&
        call.name === want.name &&
        argumentMismatch(want.arguments ?? {}, parsed[k]) === undefined,
    );
    if (i >= 0) used.add(i);
    else pending.push(want);
  }
  for (const want of pending) {
    const i = calls.findIndex((call, k) => !used.has(k) && call.name === want.name);
    if (i < 0) {
      graded.push(`tool.wrong_tool:${want.name}`);
      continue;
    }
    used.add(i);
    graded.push(
      `tool.value_mismatch:${argumentMismatch(want.arguments ?? {}, parsed[i]) ?? want.name}`,
    );
  }
  return { strict, graded };
}

/** The first argument whose value is not acceptable; "" among acceptable values means it may be omitted. */
function argumentMismatch(
  want: Record<string, unknown>,
  got: Record<string, unknown> | undefined,
): string | undefined {
  for (const [param, acceptable] of Object.entries(want)) {
    const options = Array.isArray(acceptable) ? acceptable : [acceptable];
    const value = got?.[param];
    if (value === undefined) {
      if (!options.includes("")) return param;
      continue;
    }
    const ok = options.some((o) =>
      typeof o === "string" && typeof value === "string"
        ? normalizeText(o) === normalizeText(value)
        : deepEqual(o, value),
    );
    if (!ok) return param;
  }
  return undefined;
}

function sameToolCalls(a: ToolCall[], b: ToolCall[]): boolean {
  const key = (c: ToolCall) => {
    const args = parseJson(c.arguments || "{}");
    return JSON.stringify([c.name, args.ok ? args.value : c.arguments]);
  };
  return a.length === b.length && deepEqual(a.map(key).sort(), b.map(key).sort());
}

/** The failure codes of one check on one answer ("agreement" is decided across arms). */
function checkCodes(c: QualityCase, check: Check, a: Answer, other: Answer | undefined): string[] {
  const codes: string[] = [];
  switch (check.kind) {
    case "json_parse":
      if (!parseJson(a.content).ok) codes.push("json.invalid");
      break;
    case "json_schema": {
      const doc = parseJson(a.content);
      const schema = check.schema ?? c.response_format?.json_schema?.schema ?? {};
      if (!doc.ok) codes.push("json.invalid");
      else {
        const validate = validator(schema);
        if (!validate(doc.value))
          codes.push(`json.schema:${validate.errors?.[0]?.instancePath || "/"}`);
      }
      break;
    }
    case "json_path": {
      const doc = parseJson(a.content);
      const at = doc.ok ? resolvePointer(doc.value, check.pointer) : { found: false };
      if (!doc.ok) codes.push("json.invalid");
      else if (!at.found) codes.push(`json.path_missing:${check.pointer}`);
      else {
        const v = at.value;
        const bad =
          ("equals" in check && !deepEqual(check.equals, v)) ||
          (check.in !== undefined && !check.in.some((x) => deepEqual(x, v))) ||
          (check.regex !== undefined &&
            !compilePattern(check.regex, "").test(typeof v === "string" ? v : JSON.stringify(v)));
        if (bad) codes.push(`json.path_mismatch:${check.pointer}`);
      }
      break;
    }
    case "no_tool_call":
      if (a.toolCalls.length > 0) codes.push("tool.unexpected_call");
      else if (a.toolCallsPresent) codes.push("tool.empty_list");
      else if (looksLikeToolCall(a.content)) codes.push("tool.in_content");
      break;
    case "finish_reason":
      if (!check.allowed.includes(a.finishReason ?? ""))
        codes.push(`finish_reason:${a.finishReason ?? "none"}`);
      break;
    case "max_tokens_respected":
      if (a.completionTokens !== undefined && a.completionTokens > c.max_tokens)
        codes.push("length.over_max_tokens");
      break;
    case "length": {
      const chars = a.content.length;
      const tokens = a.completionTokens ?? 0;
      if (check.min_chars !== undefined && chars < check.min_chars) codes.push("length.too_short");
      if (check.max_chars !== undefined && chars > check.max_chars) codes.push("length.too_long");
      if (check.min_tokens !== undefined && tokens < check.min_tokens)
        codes.push("length.too_short");
      if (check.max_tokens !== undefined && tokens > check.max_tokens)
        codes.push("length.too_long");
      if (check.not_truncated && a.finishReason === "length") codes.push("length.truncated");
      break;
    }
    case "regex":
      if (!compilePattern(check.pattern, check.flags ?? "").test(a.content))
        codes.push("regex.no_match");
      break;
    case "equals": {
      const n = check.normalize ? normalizeText : (t: string) => t;
      if (n(a.content) !== n(check.value)) codes.push("text.not_equal");
      break;
    }
    case "contains": {
      const n = check.normalize ? normalizeText : (t: string) => t;
      for (const v of check.values)
        if (!n(a.content).includes(n(v))) codes.push(`text.missing:${v}`);
      break;
    }
    case "stream_consistency":
      if (other) {
        const jsonBoth = parseJson(a.content).ok && parseJson(other.content).ok;
        if (!sameToolCalls(a.toolCalls, other.toolCalls)) codes.push("stream.tool_calls_differ");
        if (jsonResponseFormat(c) && !jsonBoth) codes.push("stream.json_invalid");
      }
      break;
    case "tool_call":
    case "agreement":
      break; // tool_call splits its codes by tier in runChecks; agreement is across arms
  }
  return [...new Set(codes)];
}

/** The tier of a check's failures on this case. */
function tierOf(c: QualityCase, check: Check): Tier {
  switch (check.kind) {
    case "json_parse":
    case "json_schema":
      return jsonResponseFormat(c) ? "strict" : "graded";
    case "max_tokens_respected":
      return "strict";
    default:
      return "graded";
  }
}

/** Runs the implicit transport check and every `expect` check of a case on one answer. */
export function runChecks(c: QualityCase, a: Answer, other?: Answer): CheckResult[] {
  const results: CheckResult[] = [transportCheck(a)];
  for (const check of c.expect) {
    if (check.kind === "agreement") continue; // decided when baseline and candidate are compared
    let codes: string[];
    if (check.kind === "tool_call") {
      const split = toolCallCodes(c, check, a);
      // Wire-format codes are strict only where the request forces a call.
      if (toolsAreStrict(c)) {
        if (split.strict.length > 0)
          results.push({ kind: "tool_call", pass: false, codes: split.strict, tier: "strict" });
        codes = split.graded;
      } else {
        codes = [...split.strict, ...split.graded];
      }
      codes = [...new Set(codes)];
    } else {
      codes = checkCodes(c, check, a, other);
    }
    results.push({ kind: check.kind, pass: codes.length === 0, codes, tier: tierOf(c, check) });
  }
  return results;
}
