// The mock server's configuration: a latency model, output lengths and fault
// rates, and its defaults. profile-merge.ts turns a profile file (JSON) and
// `--set key=value` overrides into one validated MockProfile.

import { recordOf } from "../common/arrays.ts";

export const FAULT_KINDS = [
  "quota429",
  "capacity429",
  "http429",
  "http503",
  "http529",
  "http500",
  "empty",
  "truncated",
  "streamError",
  "malformed",
  "hang",
  "finishError",
  "refusal",
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface MockProfile {
  /** Model ids served; any other id gets 404. */
  models: string[];
  /** Seed for faults, jitter and sampled (temperature > 0, unseeded) text. */
  seed: number;
  /** Context window: prompt + max_tokens beyond it is a 400. */
  maxModelLen: number;
  /** Sequences decoded together; the rest wait in the queue. */
  maxBatch: number;
  /** The KV cache's size in tokens: what /metrics reports the running sequences' share of. */
  kvCacheTokens: number;
  /** Waiting requests beyond this are shed with 503 (0 = unbounded). */
  maxQueue: number;
  /** After a request was shed, every step is this much slower for recoveryLagS seconds (a slow recovery from overload). */
  recoveryLagS: number;
  recoveryScale: number;
  /** A sequence admitted while this many or more run is cut to truncateShare of its tokens and ends with finish_reason stop, saying nothing (0 = never). */
  truncateAboveRunning: number;
  truncateShare: number;
  /** Per request at temperature 0, the chance its natural length is drawn afresh: batch nondeterminism (two idle answers to one prompt differ). */
  lengthNondeterminism: number;
  /** Stopped (SIGTERM), the server finishes its streams for up to drainS seconds, refusing new requests with 503; 0: it cuts them at once. */
  drainS: number;
  /** The mock process's exit status when stopped (134: as a server that aborts). */
  stopExitCode: number;
  /** Fixed cost of a prefill step, plus a cost per prompt token in it. */
  prefillBaseMs: number;
  prefillPerTokenMs: number;
  /** A decode step costs decodeBaseMs + decodePerSeqMs × running sequences. */
  decodeBaseMs: number;
  decodePerSeqMs: number;
  /** Multipliers to make a variant slower (1.15 = 15 % slower) or faster. */
  prefillScale: number;
  decodeScale: number;
  /** Log-normal σ of each step's duration (0 = no jitter). */
  jitter: number;
  /** Range of the deterministic per-prompt natural output length, in tokens. */
  naturalMinTokens: number;
  naturalMaxTokens: number;
  /** Tokens per content chunk (> 1 models servers that batch tokens into one SSE event). */
  tokensPerChunk: number;
  /** A reasoning model: the first tokens of each generation stream as `reasoning_content` (they count in max_tokens and usage). */
  reasoningTokens: number;
  /** Speculative decoding: draft tokens proposed per decode step (0 = off), and the share accepted, in vLLM's counters on /metrics. */
  specDecodeTokens: number;
  specDecodeAcceptance: number;
  /** Interval of `: ping` comment lines on open streams (0 = none). */
  pingEveryMs: number;
  /** Periodic engine stall: every stallEveryS seconds the engine pauses for stallMs. */
  stallEveryS: number;
  stallMs: number;
  /** Seconds after start during which /v1/models answers but completions fail with 503. */
  loadingS: number;
  /** The server crashes (drops every connection and stops listening) at this completion request; 0 = never. */
  crashAfterRequests: number;
  /** Automatic prefix caching (vLLM's default): a prefill skips the cached 16-token blocks of a shared prefix. */
  prefixCache: boolean;
  /** The cache's size in blocks (LRU); 0 = none. */
  prefixCacheBlocks: number;
  /** false models a server that silently ignores `ignore_eos` (it stops at the natural length). */
  honorIgnoreEos: boolean;
  /** false: requests with tools get a 400, as from a server started without tool support. */
  supportsTools: boolean;
  /** false: response_format is ignored and plain text comes back. */
  supportsResponseFormat: boolean;
  /** Fractions of structured requests broken deterministically (by prompt): truncated JSON, a wrong tool name, arguments missing their required fields, a tool call leaked into content with tool_calls: [], finish_reason stop instead of tool_calls. */
  breakJson: number;
  breakToolName: number;
  breakToolArgs: number;
  leakToolCall: number;
  stopInsteadOfToolCalls: number;
  /**
   * How the server behaves where real servers differ (llama.cpp's llama-server
   * does each of the non-default ones): a role-only first chunk or none; usage
   * in a chunk of its own or in the finish chunk; completion_tokens counting
   * the end-of-sequence token it does not stream; an in-stream error as a
   * `data:` event (vLLM), an `error:` field (llama.cpp) or an `event: error`;
   * a connection dropped when the next request arrives on it after a streamed
   * response, though Keep-Alive was sent; any model name accepted; requests
   * whose client left keep running (a backlog the next trial meets).
   */
  roleChunk: boolean;
  usageInFinishChunk: boolean;
  usageCountsEos: boolean;
  streamErrorForm: StreamErrorForm;
  closeAfterResponse: boolean;
  anyModel: boolean;
  cancelOnDisconnect: boolean;
  /**
   * Contract deviations real servers show (each probed by the contract
   * suite): error bodies without `code`; a prompt + max_tokens over the
   * context as a 200 stream ending in an error instead of a 400; deltas that
   * repeat the text so far; 429s without `retry-after`; a /health that
   * answers healthStallMs late while requests run; `stop` and `n` ignored.
   */
  errorCode: boolean;
  contextErrorForm: ContextErrorForm;
  cumulativeDeltas: boolean;
  retryAfter: boolean;
  healthStallMs: number;
  honorStop: boolean;
  honorN: boolean;
  /**
   * A gateway's tokens-per-minute quota (0 = none): every answer announces
   * x-ratelimit-{limit,remaining,reset}-tokens, and a request asking for more
   * tokens (prompt + max_tokens) than remain in the last minute gets a plain
   * 429 — only its headers tell it is the quota.
   */
  rateLimitTokensPerMin: number;
  /** Which runtime the mock says it is (its version endpoint: vLLM's /version, SGLang's /get_server_info, TGI's /info, llama.cpp's /props), and its version. */
  runtimeName: RuntimeName;
  runtimeVersion: string;
  /**
   * GET /metrics: the engine's state in vLLM's names (a current V1 engine's),
   * in llama.cpp's server's (started with --metrics), or "off": 501, as
   * llama-server answers without --metrics.
   */
  metricsFormat: MetricsFormat;
  /**
   * The busy hour: UTC windows ("16:00-17:00", comma-separated) during which
   * every completion waits busyDelayMs in a queue before the engine sees it.
   */
  busyHours: string;
  busyDelayMs: number;
  /** When set, /v1 requests without `Authorization: Bearer <apiKey>` get 401 (as OpenAI answers). */
  apiKey: string;
  /**
   * The built-in accuracy suite's items (mock/accuracy.ts): the share it
   * answers right; the share of items whose right/wrong flips against a mock
   * without flips, the accuracy kept; the chance per request that an item's
   * right/wrong is drawn afresh (batch nondeterminism); the σ of the noise on
   * the logits of its reasoning tokens (quantization noise: a larger KL
   * divergence, an earlier first difference).
   */
  accuracy: number;
  accuracyFlips: number;
  accuracyNondeterminism: number;
  quantNoise: number;
  /**
   * The built-in judge suite's items (mock/judge.ts): the share answered
   * worse (a fact changed or cut off; the same items every run) and the
   * chance per request that an answer is reworded (equal quality). As a
   * judge: on a close call, the chance it names answer A (a position bias);
   * the weight of the answers' length ratio (a length bias); the σ of noise
   * on its rule's difference; whether it does what an answer tells it; the
   * share of replies in prose instead of the JSON asked for.
   */
  judgeWorse: number;
  judgeVariation: number;
  judgePositionBias: number;
  judgeLengthBias: number;
  judgeNoise: number;
  judgeFollowsInjection: boolean;
  judgeProse: number;
  /** false: `prompt_logprobs` is ignored (a server other than vLLM: it scores no given text). */
  promptLogprobs: boolean;
  /**
   * Fleet mode (mock/fleet.ts): replicas behind the one port, each its own
   * engine, and an autoscaler as Kubernetes' HPA. The ready replicas at start
   * and the fewest the scaler keeps; 0: no fleet, one server.
   */
  fleetReplicas: number;
  /** The most replicas the scaler runs. */
  fleetMaxReplicas: number;
  /**
   * What the scaler reads: "queue", running + waiting per ready replica; or
   * "gpu-busy", the percentage of ready replicas running anything, which
   * saturates at any load (a scaler on the wrong metric).
   */
  fleetMetric: FleetMetric;
  /** The metric's target per replica. */
  fleetTarget: number;
  /** The scaler's sync period. */
  fleetIntervalS: number;
  /** Scale-in goes only to the highest count wanted over this window (0: at once, flappy). */
  fleetStabilizationS: number;
  /** A new replica's cold start: pending this long before it takes traffic. */
  fleetScaleUpDelayS: number;
  /** A replica scaled in lets its streams finish ("drain") or drops them ("cut"). */
  fleetScaleIn: FleetScaleIn;
  /** Probability per completion request of each fault; their sum is at most 1. */
  faults: Record<FaultKind, number>;
}

export const STREAM_ERROR_FORMS = ["data", "field", "event"] as const;
export type StreamErrorForm = (typeof STREAM_ERROR_FORMS)[number];
export const METRICS_FORMATS = ["vllm", "llamacpp", "off"] as const;
export const CONTEXT_ERROR_FORMS = ["status", "stream"] as const;
export type ContextErrorForm = (typeof CONTEXT_ERROR_FORMS)[number];
export const RUNTIME_NAMES = ["none", "vllm", "sglang", "tgi", "llamacpp"] as const;
export type RuntimeName = (typeof RUNTIME_NAMES)[number];
export type MetricsFormat = (typeof METRICS_FORMATS)[number];
export const FLEET_METRICS = ["queue", "gpu-busy"] as const;
export type FleetMetric = (typeof FLEET_METRICS)[number];
export const FLEET_SCALE_INS = ["drain", "cut"] as const;
export type FleetScaleIn = (typeof FLEET_SCALE_INS)[number];

/** Whether a UTC time falls in one of the busyHours windows (a window may wrap midnight). */
export function inBusyHours(busyHours: string, at: Date): boolean {
  if (busyHours === "") return false;
  const minutes = at.getUTCHours() * 60 + at.getUTCMinutes();
  const of = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
  return busyHours.split(",").some((w) => {
    const [from = 0, to = 0] = w.split("-").map(of);
    return from <= to ? minutes >= from && minutes < to : minutes >= from || minutes < to;
  });
}

export const DEFAULT_PROFILE: MockProfile = {
  models: ["mock-llm"],
  seed: 1,
  maxModelLen: 8192,
  maxBatch: 64,
  kvCacheTokens: 131072,
  maxQueue: 0,
  recoveryLagS: 0,
  recoveryScale: 2,
  truncateAboveRunning: 0,
  truncateShare: 0.5,
  lengthNondeterminism: 0,
  drainS: 0,
  stopExitCode: 0,
  prefillBaseMs: 8,
  prefillPerTokenMs: 0.02,
  decodeBaseMs: 6,
  decodePerSeqMs: 0.25,
  prefillScale: 1,
  decodeScale: 1,
  jitter: 0.05,
  naturalMinTokens: 16,
  naturalMaxTokens: 256,
  tokensPerChunk: 1,
  reasoningTokens: 0,
  specDecodeTokens: 0,
  specDecodeAcceptance: 0.7,
  pingEveryMs: 0,
  stallEveryS: 0,
  stallMs: 0,
  loadingS: 0,
  crashAfterRequests: 0,
  prefixCache: true,
  prefixCacheBlocks: 4096,
  honorIgnoreEos: true,
  supportsTools: true,
  supportsResponseFormat: true,
  breakJson: 0,
  breakToolName: 0,
  breakToolArgs: 0,
  leakToolCall: 0,
  stopInsteadOfToolCalls: 0,
  roleChunk: true,
  usageInFinishChunk: false,
  usageCountsEos: false,
  streamErrorForm: "data",
  metricsFormat: "vllm",
  busyHours: "",
  busyDelayMs: 0,
  closeAfterResponse: false,
  anyModel: false,
  cancelOnDisconnect: true,
  errorCode: true,
  contextErrorForm: "status",
  cumulativeDeltas: false,
  retryAfter: true,
  healthStallMs: 0,
  honorStop: true,
  honorN: true,
  rateLimitTokensPerMin: 0,
  runtimeName: "none",
  runtimeVersion: "",
  apiKey: "",
  accuracy: 0.8,
  accuracyFlips: 0,
  accuracyNondeterminism: 0,
  quantNoise: 0,
  judgeWorse: 0,
  judgeVariation: 0,
  judgePositionBias: 0,
  judgeLengthBias: 0,
  judgeNoise: 0,
  judgeFollowsInjection: false,
  judgeProse: 0,
  promptLogprobs: true,
  fleetReplicas: 0,
  fleetMaxReplicas: 4,
  fleetMetric: "queue",
  fleetTarget: 8,
  fleetIntervalS: 1,
  fleetStabilizationS: 30,
  fleetScaleUpDelayS: 5,
  fleetScaleIn: "drain",
  faults: recordOf(FAULT_KINDS, () => 0),
};
