// The judge suite's settings: open-ended answers on both variants, judged
// pairwise by a calibrated model judge (docs/judge.md).

import type { Setting } from "./setting.ts";

export const JUDGE_SETTINGS = [
  {
    name: "judge",
    scope: "gate",
    help: "Open-ended items answered by both variants and judged pairwise, in both orders, by the judge model: builtin (400 generated items in four families, each with a reference), none, or a JSONL file of items (default: builtin when judge-url is set, else none).",
    accepts: { kind: "text", what: "builtin, none or a file path" },
  },
  {
    name: "judge-url",
    scope: "gate",
    help: "The judge's OpenAI base URL (any OpenAI-compatible chat completions endpoint); setting it turns the judge on. One equal to a variant's is allowed, with a warning: a model grading itself.",
    accepts: { kind: "text", what: "an http(s) base URL, e.g. https://api.openai.com/v1" },
  },
  {
    name: "judge-model",
    scope: "gate",
    help: "The judge's model name (required with the judge).",
    accepts: { kind: "text", what: "a model name" },
  },
  {
    name: "judge-api-key",
    scope: "gate",
    secret: true,
    help: "Bearer token for the judge (else LLM_PERF_GATE_JUDGE_API_KEY; a variant's key is never sent to it).",
    accepts: { kind: "text", what: "a token" },
  },
  {
    name: "judge-items",
    scope: "gate",
    help: "The most of the suite's items the looks may judge, spread over its families (default: all of a file's, 1,600 built in; the built-in suite generates up to 10,000).",
    accepts: { kind: "number", integer: true, min: 10, max: 100_000 },
  },
  {
    name: "judge-first-look",
    scope: "gate",
    default: "200",
    help: "Items at the judge suite's first look; then looks at twice as many, up to judge-items: the suite stops at the first look that decides (each look spends a share of the rule's α).",
    accepts: { kind: "number", integer: true, min: 10, max: 100_000 },
  },
  {
    name: "judge-concurrency",
    scope: "gate",
    default: "8",
    help: "Requests in flight at once: to the judge, and to each variant answering the items.",
    accepts: { kind: "number", integer: true, min: 1, max: 256 },
  },
  {
    name: "judge-timeout",
    scope: "gate",
    default: "60s",
    help: "The judge's per-request timeout (a verdict not back in time is asked once more, then unjudged).",
    accepts: { kind: "duration", above: 0, max: 3600 },
  },
  {
    name: "max-judge-loss",
    scope: "gate",
    default: "5%",
    help: "The tolerated net share of items the candidate loses (losses − wins over the items judged, in points), tested as a margin: the gate fails when the bound shows more than half of it and the estimate more than all of it.",
    accepts: { kind: "fraction", max: 1, positive: true },
  },
  {
    name: "judge-floor",
    scope: "gate",
    default: "25%",
    help: "The share of the items the baseline answers a second time, judged against its first answers: the judge's own A/A (0 for none).",
    accepts: { kind: "fraction", max: 1 },
  },
  {
    name: "judge-calibration",
    scope: "gate",
    default: "builtin",
    help: "Pairs whose better answer is known, judged before the judge is trusted: builtin (80 pairs: a reference's answer against itself with a fact changed, truncated, shuffled, padded, or carrying an injected instruction), none (the judge's verdict is shown, never gated), or a JSONL file of your labelled pairs (judged beside the built-in ones; agreement and Cohen's κ reported).",
    accepts: { kind: "text", what: "builtin, none or a file path" },
  },
  {
    name: "judge-min-agreement",
    scope: "gate",
    default: "80%",
    help: "The calibration's floor: the judge names the known better answer in at least this share of its judgements (and prefers no kind of worse answer in more than the rest); under it the judge cannot fail the gate.",
    accepts: { kind: "fraction", max: 1 },
  },
  {
    name: "judge-min-consistency",
    scope: "gate",
    default: "70%",
    help: "The calibration's floor: the judge names the same answer in both orders in at least this share of the pairs; under it the judge cannot fail the gate.",
    accepts: { kind: "fraction", max: 1 },
  },
] as const satisfies readonly Setting[];
