// The accuracy suite's settings: what the model answers, on both variants
// (docs/accuracy.md).

import type { Setting } from "./setting.ts";

export const ACCURACY_SETTINGS = [
  {
    name: "accuracy",
    scope: "gate",
    default: "builtin",
    help: "Task-accuracy items with exact answers on both variants (temperature 0, a fixed seed), in looks that stop at the first that decides; a drop beyond max-accuracy-drop fails the gate: builtin (up to 4,800 generated items in six families), none, or a JSONL file of items.",
    accepts: { kind: "text", what: "builtin, none or a file path" },
  },
  {
    name: "accuracy-items",
    scope: "gate",
    help: "The most of the suite's items the looks may run, spread over its families (default: all of a file's, 4,800 built in; the built-in suite generates up to 12,000).",
    accepts: { kind: "number", integer: true, min: 10, max: 100_000 },
  },
  {
    name: "accuracy-first-look",
    scope: "gate",
    default: "300",
    help: "Items at the accuracy suite's first look, each arm; then looks at twice as many, up to accuracy-items: the suite stops at the first look that decides (each look spends a share of the rule's α).",
    accepts: { kind: "number", integer: true, min: 10, max: 100_000 },
  },
  {
    name: "max-accuracy-drop",
    scope: "gate",
    default: "2%",
    help: "The tolerated drop in accuracy, in points (2% = 2 points), tested as a margin: the gate fails when the bound shows more than half of it and the estimate more than all of it.",
    accepts: { kind: "fraction", max: 1 },
  },
  {
    name: "max-flip-rate",
    scope: "gate",
    help: "A limit on the share of items whose right/wrong flips on the candidate beyond the baseline's own re-run (default: none; flips are reported either way).",
    accepts: { kind: "fraction", max: 1 },
  },
  {
    name: "max-kld",
    scope: "gate",
    help: "A budget on the mean KL divergence per token (nats) up to and including the first token where the answers differ, from the servers' top logprobs (default: none).",
    accepts: { kind: "number", above: 0, max: 100 },
  },
  {
    name: "accuracy-concurrency",
    scope: "gate",
    default: "auto",
    help: "Accuracy items in flight at once on each variant (the same on both); auto: the fewer of the slots the two servers say they run at once (llama.cpp's /props, SGLang's /get_server_info, TGI's /info), at most 64, else 16 (vLLM says none).",
    accepts: { kind: "text", what: "auto, or a whole number from 1 to 256" },
  },
  {
    name: "accuracy-floor",
    scope: "gate",
    default: "25%",
    help: "The share of the items the baseline answers a second time: its own flips, the floor the candidate's are read against (0 for none).",
    accepts: { kind: "fraction", max: 1 },
  },
  {
    name: "accuracy-top-logprobs",
    scope: "gate",
    default: "5",
    help: "top_logprobs asked with each accuracy item, for the token-level divergence (0: none asked).",
    accepts: { kind: "number", integer: true, min: 0, max: 20 },
  },
] as const satisfies readonly Setting[];
