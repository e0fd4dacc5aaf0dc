// The settings of one trial's measurement: where the requests go and what
// they ask (the `measure` command, both arms of the gate, every sweep point).

import { OUTCOMES } from "../common/outcomes.ts";
import { RUNTIMES } from "../common/runtimes.ts";
import { ARRIVAL_KINDS } from "../workload/arrivals.ts";
import { TRACE_FORMATS } from "../workload/trace.ts";
import type { Setting } from "./setting.ts";

const TOKENS = {
  kind: "text",
  what: "tokens: 512, a range 128..1024, or normal:512,64 (≤ 1,000,000)",
} as const;
const FILE = { kind: "text", what: "a file path" } as const;

export const REQUEST_SETTINGS = [
  {
    name: "model",
    scope: "trial",
    help: "Model name sent to both arms (or set baseline-model / candidate-model).",
    accepts: { kind: "text", what: "a model name" },
  },
  {
    name: "api-key",
    scope: "trial",
    secret: true,
    help: "Bearer token for both endpoints (else LLM_PERF_GATE_API_KEY or OPENAI_API_KEY).",
    accepts: { kind: "text", what: "a token" },
  },
  {
    name: "endpoint",
    scope: "trial",
    default: "chat",
    help: "chat (/chat/completions) or completions (/completions).",
    accepts: { kind: "choice", choices: ["chat", "completions"] },
  },
  {
    name: "header",
    scope: "trial",
    kind: "lines",
    help: "Extra request headers, one 'Name: value' per line.",
    accepts: { kind: "text", what: '"Name: value" lines' },
  },
  {
    name: "extra-body",
    scope: "trial",
    help: 'Extra JSON body fields for every request, e.g. {"top_k": 1}.',
    accepts: { kind: "text", what: "a JSON object" },
  },
  {
    name: "no-usage",
    scope: "trial",
    kind: "boolean",
    default: "false",
    help: "Stop sending stream_options.include_usage (for servers that reject it).",
    accepts: { kind: "boolean" },
  },
  {
    name: "temperature",
    scope: "trial",
    default: "0",
    help: "Sampling temperature.",
    accepts: { kind: "number", min: 0, max: 2 },
  },
  {
    name: "arrival",
    scope: "trial",
    default: "poisson",
    help: "The arrival process (the capacity sweep: poisson or constant).",
    accepts: { kind: "choice", choices: ARRIVAL_KINDS },
  },
  // The generator holds about 2,000 req/s on 2 cores (bench/README.md): far beyond that, nothing it measures would mean anything.
  {
    name: "rate",
    scope: "trial",
    help: "Requests per second (poisson, gamma, constant).",
    accepts: { kind: "number", above: 0, max: 10_000 },
  },
  {
    name: "burstiness",
    scope: "trial",
    default: "1",
    help: "Gamma shape: 1 = Poisson, < 1 burstier.",
    accepts: { kind: "number", above: 0 },
  },
  {
    name: "burst-size",
    scope: "trial",
    help: "Requests per burst (burst arrivals).",
    accepts: { kind: "number", integer: true, min: 1, max: 100_000 },
  },
  {
    name: "burst-interval",
    scope: "trial",
    help: "Time between bursts (burst arrivals).",
    accepts: { kind: "duration", above: 0, max: 3600 },
  },
  {
    name: "requests",
    scope: "trial",
    help: "Requests sent at once (all-at-once).",
    accepts: { kind: "number", integer: true, min: 1, max: 100_000 },
  },
  {
    name: "duration",
    scope: "trial",
    default: "30s",
    help: "Measurement window per trial.",
    accepts: { kind: "duration", above: 0, max: 86_400 },
  },
  {
    name: "warmup",
    scope: "trial",
    default: "2s",
    help: "Warm-up before each trial's window (sent, not recorded).",
    accepts: { kind: "duration", min: 0, max: 3600 },
  },
  {
    name: "seed",
    scope: "trial",
    default: "1",
    help: "Seed of the schedule and the prompts.",
    accepts: { kind: "number", integer: true, min: 0, max: 2 ** 32 - 1 },
  },
  {
    name: "input-len",
    scope: "trial",
    default: "256",
    help: "Synthetic prompt tokens.",
    accepts: TOKENS,
  },
  {
    name: "prefix-groups",
    scope: "trial",
    default: "0",
    help: "Shared prompt prefixes: G groups, each prompt one group's prefix then its own input-len tokens (0 = off).",
    accepts: { kind: "number", integer: true, min: 0, max: 100_000 },
  },
  {
    name: "prefix-len",
    scope: "trial",
    default: "512",
    help: "Tokens of each shared prefix.",
    accepts: { kind: "number", integer: true, min: 1, max: 1_000_000 },
  },
  {
    name: "prefix-pick",
    scope: "trial",
    default: "uniform",
    help: "Which prefix group a request picks.",
    accepts: { kind: "text", what: "uniform, zipf (exponent 1) or zipf:S (0 < S ≤ 10)" },
  },
  {
    name: "tokenizer",
    scope: "trial",
    help: "A model's tokenizer.json (or its directory): synthetic prompts of exactly their token lengths.",
    accepts: FILE,
  },
  {
    name: "turns",
    scope: "trial",
    default: "1",
    help: "Multi-turn sessions: the arrivals start sessions of this many turns, each with the whole history.",
    accepts: { kind: "number", integer: true, min: 1, max: 100 },
  },
  {
    name: "think-time",
    scope: "trial",
    default: "0s",
    help: "A later turn is due this long after the previous answer ended.",
    accepts: { kind: "duration", min: 0, max: 3600 },
  },
  {
    name: "turn-input-len",
    scope: "trial",
    help: "Tokens of each later turn's new user message (default: input-len).",
    accepts: TOKENS,
  },
  {
    name: "trace",
    scope: "trial",
    help: "Replay a trace (Azure LLM CSV, Mooncake JSONL, BurstGPT CSV): its arrival times and token lengths.",
    accepts: FILE,
  },
  {
    name: "trace-format",
    scope: "trial",
    default: "auto",
    help: "The trace's format.",
    accepts: { kind: "choice", choices: ["auto", ...TRACE_FORMATS] },
  },
  {
    name: "time-scale",
    scope: "trial",
    default: "1",
    help: "The trace's times × this (0.5 = twice as fast).",
    accepts: { kind: "number", above: 0, max: 1000 },
  },
  {
    name: "trace-start",
    scope: "trial",
    default: "0s",
    help: "Where in the trace each trial starts.",
    accepts: { kind: "duration", min: 0, max: 10 ** 9 },
  },
  {
    name: "max-requests",
    scope: "trial",
    help: "At most this many trace requests per trial.",
    accepts: { kind: "number", integer: true, min: 1, max: 2_000_000 },
  },
  {
    name: "output-len",
    scope: "trial",
    default: "128",
    help: "Requested output tokens (max_tokens); a dataset keeps its own unless set.",
    accepts: TOKENS,
  },
  {
    name: "max-tokens",
    scope: "trial",
    help: "Cap on every request's max_tokens.",
    accepts: { kind: "number", integer: true, min: 1, max: 1_000_000 },
  },
  {
    name: "ignore-eos",
    scope: "trial",
    kind: "boolean",
    default: "false",
    help: "Send ignore_eos: a fixed output length (fewer tokens = the 'short' outcome).",
    accepts: { kind: "boolean" },
  },
  {
    name: "dataset",
    scope: "trial",
    help: "Prompt file: JSONL of {messages, max_tokens?} or ShareGPT JSON.",
    accepts: FILE,
  },
  {
    name: "max-concurrency",
    scope: "trial",
    help: "Cap on requests in flight (closed loop; the wait counts as latency).",
    accepts: { kind: "number", integer: true, min: 1 },
  },
  {
    name: "slo",
    scope: "trial",
    help: "Goodput SLOs in ms, vLLM's syntax, and itl (a request's mean gap between output chunks).",
    accepts: { kind: "text", what: '"ttft:800 tpot:50 itl:50 e2el:2000" (ms)' },
  },
  {
    name: "timeout",
    scope: "trial",
    default: "60s",
    help: "Per-request timeout from the scheduled send time; later = censored.",
    accepts: { kind: "duration", above: 0, max: 86_400 },
  },
] as const satisfies readonly Setting[];

export const CHECK_SETTINGS = [
  {
    name: "max-skew-effect",
    scope: "trial",
    help: "Self-check: the largest shift the client's own late sends may cause in TTFT or E2EL at the gated percentile before the trial is re-run; in the gate a smaller shift only widens the verdict's interval (default: max-ttft-regression in the gate, 2.5% for measure).",
    accepts: { kind: "fraction", max: 1 },
  },
  {
    name: "max-offered-drift",
    scope: "trial",
    default: "10%",
    help: "Self-check: the largest difference between the requests scheduled in a window (≥ 1 s, ≥ 20 expected) and those sent in it: beyond it the offered load changed and the trial is re-run.",
    accepts: { kind: "fraction", max: 1 },
  },
  {
    name: "max-late-sends",
    scope: "trial",
    help: "Self-check, off unless set: the largest share of sends later than a tenth of the mean gap (at least 1 ms).",
    accepts: { kind: "fraction", max: 1 },
  },

  {
    name: "max-unsent",
    scope: "trial",
    default: "0",
    help: "Self-check: requests never sent in time.",
    accepts: { kind: "number", integer: true, min: 0 },
  },
  {
    name: "max-event-loop-delay-ms",
    scope: "trial",
    default: "20",
    help: "Self-check: p99 event-loop delay limit, ms.",
    accepts: { kind: "number", min: 0 },
  },
  {
    name: "max-client-cpu",
    scope: "trial",
    default: "0.95",
    help: "Self-check: client CPU as a share of one core.",
    accepts: { kind: "number", min: 0 },
  },
  {
    name: "max-send-skew-ms",
    scope: "trial",
    help: "Self-check, off unless set: an absolute limit on the p99 send skew, ms.",
    accepts: { kind: "number", min: 0 },
  },
  {
    name: "max-gc-share",
    scope: "trial",
    help: "Self-check, off unless set: GC pauses as a share of the window.",
    accepts: { kind: "number", min: 0, max: 1 },
  },
  {
    name: "max-error-rate",
    scope: "trial",
    default: "1%",
    help: "The largest failure rate of the baseline (gate) or the endpoint (measure) before it is broken; also either arm's quota-refusal limit.",
    accepts: { kind: "fraction", max: 1 },
  },
  {
    name: "reliability-exclude",
    scope: "trial",
    default: "rate_limited_quota",
    help: "Outcome classes that are not the server's failures: left out of the failure rates, reported.",
    accepts: { kind: "list", choices: [...OUTCOMES.filter((o) => o !== "ok"), "none"] },
  },
  {
    name: "metrics-url",
    scope: "trial",
    help: "The server's Prometheus metrics (measure; default the base URL's origin + /metrics); in the gate only none (scrape neither).",
    accepts: { kind: "text", what: "an http(s) URL, or none" },
  },
  {
    name: "metrics-interval",
    scope: "trial",
    default: "1s",
    help: "How often the servers' metrics are scraped during a trial (also before and after it).",
    accepts: { kind: "duration", min: 0.1, max: 60 },
  },
  {
    name: "metrics-runtime",
    scope: "trial",
    default: "auto",
    help: "Whose metric names the servers use (auto: from the names).",
    accepts: { kind: "choice", choices: ["auto", ...RUNTIMES] },
  },
] as const satisfies readonly Setting[];
