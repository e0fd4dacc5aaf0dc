// What each arm answered, briefly: an answer in words, the agreement of two
// answers, and the arm's answers at a glance (finish reasons, tool-call codes,
// reconnects, irregular deltas).

import type { Answer } from "./answer.ts";
import { deepEqual, normalizeText } from "./checks.ts";
import type { CaseRun } from "./run.ts";

function histogram(values: string[]): Record<string, number> {
  const h: Record<string, number> = {};
  for (const v of values) h[v] = (h[v] ?? 0) + 1;
  return h;
}

export function agree(mode: string, a: Answer, b: Answer): boolean {
  switch (mode) {
    case "normalized":
      return normalizeText(a.content) === normalizeText(b.content);
    case "json": {
      try {
        return deepEqual(JSON.parse(a.content), JSON.parse(b.content));
      } catch {
        return false;
      }
    }
    case "tool_calls": {
      const key = (x: Answer) =>
        x.toolCalls
          .map((t) => `${t.name}:${t.arguments}`)
          .sort()
          .join("|");
      return key(a) === key(b);
    }
    default:
      return a.content === b.content;
  }
}

const excerpt = (s: string, n = 120) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** What a server returned, briefly: an HTTP error with its body, else the content or tool calls. */
export function describeAnswer(a: Answer | undefined): string {
  if (!a) return "no answer";
  if (a.status < 200 || a.status >= 300)
    return a.status === 0
      ? "no response (connection failed)"
      : `HTTP ${a.status} ${JSON.stringify(excerpt(a.raw.trim()))}`;
  if (a.content) return JSON.stringify(excerpt(a.content));
  if (a.toolCalls.length > 0)
    return excerpt(a.toolCalls.map((t) => `${t.name}(${t.arguments})`).join(", "));
  return `empty answer (finish_reason ${a.finishReason ?? "none"})`;
}

export const firstFailing = (
  run: CaseRun | undefined,
  failed: (a: CaseRun["attempts"][number]) => boolean,
) => (run?.attempts.find(failed) ?? run?.attempts[0])?.answer;

/** Each arm's answers at a glance: finish reasons, tool-call codes, reconnects, irregular deltas. */
export function answersSummary(baseline: CaseRun[], candidate: CaseRun[]) {
  const all = (runs: CaseRun[]) => runs.flatMap((r) => r.attempts);
  const finishReasons = (runs: CaseRun[]) =>
    histogram(all(runs).map((a) => a.answer.finishReason ?? "none"));
  const toolCodes = (runs: CaseRun[]) =>
    histogram(
      all(runs).flatMap((a) =>
        a.results.flatMap((r) => r.codes.filter((c) => c.startsWith("tool."))),
      ),
    );
  const reconnects = (runs: CaseRun[]) => all(runs).reduce((n, a) => n + a.answer.reconnects, 0);
  const irregular = (runs: CaseRun[]) => [...new Set(all(runs).flatMap((a) => a.answer.irregular))];
  return {
    finish_reasons: { baseline: finishReasons(baseline), candidate: finishReasons(candidate) },
    tool_codes: { baseline: toolCodes(baseline), candidate: toolCodes(candidate) },
    irregular_deltas: { baseline: irregular(baseline), candidate: irregular(candidate) },
    reconnects: { baseline: reconnects(baseline), candidate: reconnects(candidate) },
  };
}
