// The mock's structured output: JSON under response_format (an instance of
// the given schema) and tool calls (arguments from the tool's parameters
// schema, string values taken from the prompt's capitalised words). Knobs
// break a deterministic fraction of such requests — chosen by a hash of the
// prompt, so re-runs break the same cases — the ways real upgrades did.

import type { TokenLogprobs } from "../accuracy/divergence.ts";
import { at } from "../common/arrays.ts";
import { hashString, mixSeeds, Rng } from "../workload/rng.ts";
import { WORDS } from "../workload/words.ts";
import type { MockProfile } from "./profile.ts";
import type { GenerationRequest } from "./requests.ts";

export type StructuredRequest = Pick<
  GenerationRequest,
  "promptText" | "tools" | "toolChoice" | "responseFormat"
>;

export type QualityKnobs = Pick<
  MockProfile,
  | "supportsResponseFormat"
  | "breakJson"
  | "breakToolName"
  | "breakToolArgs"
  | "leakToolCall"
  | "stopInsteadOfToolCalls"
>;

type Tool = NonNullable<GenerationRequest["tools"]>[number];

export interface StructuredPlan {
  /** content: JSON text; tool: one tool call whose arguments are streamed. */
  kind: "content" | "tool";
  /** One token each. */
  pieces: string[];
  toolName: string;
  finishReason: "stop" | "tool_calls";
  /** A leaked call: the message also carries `tool_calls: []`. */
  emptyToolCalls: boolean;
  /** Each piece's logprobs, when the plan has its own (an accuracy item's answer). */
  logprobs?: TokenLogprobs[];
}

function broken(knob: number, prompt: string, what: string): boolean {
  return knob > 0 && hashString(`${what}\u0000${prompt}`) / 2 ** 32 < knob;
}

/** Capitalised words of the prompt (not sentence-initial), candidates for string arguments. */
function entities(prompt: string): string[] {
  return [...prompt.matchAll(/(?<![.!?]\s|^)\b([A-Z][a-zA-Z]+)/g)].map((m) => at(m, 1));
}

/** A value that satisfies a (simple) JSON Schema. */
export function instanceOf(
  schema: Record<string, unknown> | undefined,
  rng: Rng,
  names: string[],
): unknown {
  const s = schema ?? {};
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if ("const" in s) return s.const;
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case "object": {
      const props = (s.properties ?? {}) as Record<string, Record<string, unknown>>;
      const required = new Set((s.required as string[] | undefined) ?? Object.keys(props));
      const out: Record<string, unknown> = {};
      for (const [key, sub] of Object.entries(props))
        if (required.has(key)) out[key] = instanceOf(sub, rng, names);
      return out;
    }
    case "array": {
      const n = Math.max(1, (s.minItems as number | undefined) ?? 1);
      return Array.from({ length: n }, () =>
        instanceOf(s.items as Record<string, unknown>, rng, names),
      );
    }
    case "integer":
      return Math.max((s.minimum as number | undefined) ?? 0, 7);
    case "number":
      return Math.max((s.minimum as number | undefined) ?? 0, 3.5);
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return names.shift() ?? at(WORDS, rng.int(0, WORDS.length - 1));
  }
}

function splitInto(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces.length > 0 ? pieces : [""];
}

function chooseTool(r: StructuredRequest): Tool | undefined {
  const tools = r.tools ?? [];
  if (tools.length === 0 || r.toolChoice === "none") return undefined;
  const choice = r.toolChoice;
  if (typeof choice === "object") return tools.find((t) => t.name === choice.name);
  const prompt = r.promptText.toLowerCase();
  const mentioned = tools.find(
    (t) =>
      prompt.includes(t.name.toLowerCase()) ||
      prompt.includes(t.name.replaceAll("_", " ").toLowerCase()),
  );
  if (mentioned) return mentioned;
  return r.toolChoice === "required" ? tools[0] : undefined;
}

/** The plan for a request that asks for structure, or undefined for plain text. */
export function planStructured(
  r: StructuredRequest,
  knobs: QualityKnobs,
): StructuredPlan | undefined {
  const rng = new Rng(mixSeeds(hashString(r.promptText), 0x57c));
  const names = entities(r.promptText);
  const tool = chooseTool(r);
  if (tool) {
    let args = instanceOf(
      tool.parameters ?? { type: "object", properties: {} },
      rng,
      names,
    ) as Record<string, unknown>;
    if (broken(knobs.breakToolArgs, r.promptText, "args")) args = {};
    const name = broken(knobs.breakToolName, r.promptText, "name") ? `${tool.name}_v2` : tool.name;
    const argsText = JSON.stringify(args);
    if (broken(knobs.leakToolCall, r.promptText, "leak")) {
      return {
        kind: "content",
        pieces: splitInto(JSON.stringify({ name, arguments: args }), 4),
        toolName: name,
        finishReason: "stop",
        emptyToolCalls: true,
      };
    }
    return {
      kind: "tool",
      pieces: splitInto(argsText, 8),
      toolName: name,
      finishReason: broken(knobs.stopInsteadOfToolCalls, r.promptText, "finish")
        ? "stop"
        : "tool_calls",
      emptyToolCalls: false,
    };
  }
  const format = r.responseFormat?.type;
  if (knobs.supportsResponseFormat && (format === "json_object" || format === "json_schema")) {
    const value =
      format === "json_schema"
        ? instanceOf(r.responseFormat?.schema, rng, names)
        : { answer: names[0] ?? "ok" };
    let text = JSON.stringify(value);
    if (broken(knobs.breakJson, r.promptText, "json"))
      text = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
    return {
      kind: "content",
      pieces: splitInto(text, 4),
      toolName: "",
      finishReason: "stop",
      emptyToolCalls: false,
    };
  }
  return undefined;
}
