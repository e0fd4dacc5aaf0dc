// A quality regression in words: what the candidate breaks, how many cases
// (each counted once, whichever checks it fails), and one example with what
// the candidate actually returned.

import { plural } from "../common/format.ts";
import type { QualityReport } from "../quality/paired.ts";

/**
 * [code, the area it belongs to, what it means]. A key ending in ":" or "." (or
 * transport.http_) is a prefix; any other matches the whole code.
 */
const WORDS: [string, string, string][] = [
  ["json.invalid", "JSON output", "invalid JSON"],
  ["json.schema:", "JSON output", "JSON that breaks the schema at"],
  ["json.path_missing:", "JSON output", "JSON without the field"],
  ["json.path_mismatch:", "JSON output", "JSON with a wrong value at"],
  ["stream.json_invalid", "JSON output", "invalid JSON when streamed"],
  ["stream.tool_calls_differ", "tool calls", "other tool calls when streamed"],
  ["tool.missing", "tool calls", "no tool call"],
  ["tool.missing_required", "tool calls", "tool arguments without a required field"],
  ["tool.unexpected_param", "tool calls", "tool arguments with an unknown field"],
  ["tool.finish_reason", "tool calls", "a tool call without finish_reason tool_calls"],
  ["tool.count", "tool calls", "the wrong number of tool calls"],
  ["tool.empty_list", "tool calls", "an empty tool_calls list"],
  ["tool.unknown_name", "tool calls", "a call to a tool that does not exist"],
  ["tool.wrong_tool:", "tool calls", "the wrong tool, not"],
  ["tool.args_not_json", "tool calls", "tool arguments that are not JSON"],
  ["tool.args_schema:", "tool calls", "tool arguments that break the schema at"],
  ["tool.in_content", "tool calls", "a tool call written as text"],
  ["tool.unexpected_call", "tool calls", "a tool call where none was wanted"],
  ["tool.", "tool calls", "a malformed tool call:"],
  ["length.over_max_tokens", "output length", "more tokens than max_tokens"],
  ["length.truncated", "output length", "an answer cut off at max_tokens"],
  ["length.too_short", "output length", "too short an answer"],
  ["length.too_long", "output length", "too long an answer"],
  ["finish_reason:", "finish reasons", "finish_reason"],
  ["transport.http_connect", "its requests (HTTP errors)", "no connection"],
  ["transport.http_", "its requests (HTTP errors)", "HTTP"],
  ["transport.stream_error", "its streams", "an error inside the stream"],
  ["transport.too_large", "its streams", "an answer over 16 MiB"],
  ["transport.no_done", "its streams", "a stream without [DONE]"],
  ["transport.no_finish_reason", "its streams", "a stream without finish_reason"],
  ["transport.", "its streams", "a malformed stream:"],
  ["regex.no_match", "expected answers", "an answer that does not match the pattern"],
  ["text.not_equal", "expected answers", "another answer than expected"],
  ["text.missing:", "expected answers", "an answer without"],
];

function lookup(code: string): { area: string; words: string } {
  const isPrefix = (key: string) => /[:.]$/.test(key) || key === "transport.http_";
  const hit = WORDS.find(([key]) => (isPrefix(key) ? code.startsWith(key) : code === key));
  if (!hit) return { area: code, words: code };
  const [prefix, area, words] = hit;
  // The part after a ":" prefix (a JSON pointer, a status) completes the words; else the code does.
  const rest = code.slice(prefix.length);
  if (prefix.endsWith(":") || prefix === "transport.http_")
    return { area, words: `${words} ${rest}` };
  return { area, words: prefix.endsWith(".") ? `${words} ${code}` : words };
}

/** A failure code in words: "json.schema:/age" → "JSON that breaks the schema at /age". */
export const codeWords = (code: string): string => lookup(code).words;

/** The cases that fail the gate, each once: [id, its codes, what the candidate returned]. */
function failingCases(q: QualityReport): { id: string; codes: string[]; answer: string }[] {
  const out = new Map<string, { id: string; codes: string[]; answer: string }>();
  for (const c of q.strict.filter((x) => x.confirmed))
    out.set(c.id, { id: c.id, codes: c.codes, answer: c.answer });
  for (const reason of q.reasons) {
    const kind = q.kinds.find((k) => k.kind === reason.check);
    for (const f of kind?.flipped.filter((x) => x.direction === "b") ?? []) {
      const seen = out.get(f.id);
      if (seen) seen.codes = [...new Set([...seen.codes, ...f.codes])];
      else out.set(f.id, { id: f.id, codes: f.codes, answer: f.answer });
    }
  }
  return [...out.values()];
}

const and = (xs: string[]) =>
  xs.length <= 1 ? (xs[0] ?? "") : `${xs.slice(0, -1).join(", ")} and ${xs.at(-1)}`;

/**
 * "the candidate breaks JSON output: 3 cases that pass on the baseline fail
 * on it (of 33 compared), e.g. schema-person: invalid JSON — it returned …".
 */
export function qualitySentence(q: QualityReport): string {
  const failing = failingCases(q);
  const compared = q.cases - q.pre_existing.length;
  const agreement = q.reasons.find((r) => r.check === "agreement");
  const parts: string[] = [];
  const first = failing[0];
  if (first) {
    const areas = [...new Set(failing.flatMap((f) => f.codes.map((c) => lookup(c).area)))];
    const what = [...new Set(first.codes.map(codeWords))].slice(0, 2).join(", ");
    const n = failing.length;
    parts.push(
      `the candidate breaks ${and(areas)}: ${plural(n, "case")} that ${n === 1 ? "passes" : "pass"} on the baseline ${n === 1 ? "fails" : "fail"} on it (of ${compared} compared), e.g. ${first.id}: ${what} — it returned ${first.answer}`,
    );
  }
  if (agreement) {
    const n = agreement.cases.length;
    parts.push(
      `${plural(n, "answer")} ${n === 1 ? "differs" : "differ"} from the baseline's where the suite requires agreement: ${agreement.cases.join(", ")}`,
    );
  }
  return parts.join("; ");
}
