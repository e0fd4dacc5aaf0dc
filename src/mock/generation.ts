// One generation on the mock: its shape decided up front (how many tokens,
// why it finishes, where a fault cuts it, its usage), then the engine's
// sequence that feeds the writer token by token as the engine decodes.

import { planAccuracy } from "./accuracy.ts";
import type { Sequence } from "./engine.ts";
import { planJudgeVerdict, planOpenEnded } from "./judge.ts";
import { blockHashes } from "./prefix-cache.ts";
import type { FaultKind, MockProfile } from "./profile.ts";
import type { GenerationRequest } from "./requests.ts";
import { planStructured, type StructuredPlan } from "./structured.ts";
import { naturalLength, TokenStream } from "./text.ts";
import type { Usage, Writer } from "./writers.ts";

/** The length of a refusal ("I can't help with that."). */
const REFUSAL_TOKENS = 8;

export interface Shape {
  /** JSON under response_format, or tool calls: their own pieces and finish reason. */
  plan: StructuredPlan | undefined;
  sampleSeed: number;
  /** Tokens the engine decodes (fewer than the output when a fault cuts the stream). */
  generated: number;
  /** Of them, the first ones: a reasoning model's thinking. */
  reasoning: number;
  finishReason: string;
  /** A fault that cuts the stream half-way. */
  cuts: boolean;
  usage: Usage;
}

export function shapeGeneration(
  profile: MockProfile,
  request: GenerationRequest,
  promptTokens: number,
  fault: FaultKind | undefined,
  nonce: () => number,
): Shape {
  // Temperature 0 is greedy: same prompt, same text. Otherwise the request's
  // seed or a seeded per-request nonce picks the sample.
  const sampleSeed = request.temperature === 0 ? 0 : (request.seed ?? nonce()) >>> 0;
  // Batch nondeterminism: now and then a greedy answer ends elsewhere than it did before.
  const q = profile.lengthNondeterminism;
  const redrawn = q > 0 && request.temperature === 0 && nonce() / 2 ** 32 < q;
  const natural = naturalLength(
    request.promptText,
    profile.naturalMinTokens,
    profile.naturalMaxTokens,
    redrawn ? nonce() >>> 0 || 1 : sampleSeed,
  );
  const limit = request.maxTokens ?? profile.maxModelLen - promptTokens;
  const ignoreEos = request.ignoreEos && profile.honorIgnoreEos;
  // JSON under response_format, tool calls, a judge's verdict and the built-in
  // accuracy and judge items' answers have their own, fixed length.
  const draw = () => nonce() / 2 ** 32;
  // A judge request is answered as a judge, whatever response_format asks.
  const plan =
    request.endpoint === "chat"
      ? (planJudgeVerdict(request.promptText, profile, draw) ??
        planStructured(
          {
            promptText: request.promptText,
            tools: request.tools,
            toolChoice: request.toolChoice,
            responseFormat: request.responseFormat,
          },
          profile,
        ) ??
        planAccuracy(request.promptText, profile, draw) ??
        planOpenEnded(request.promptText, profile, draw))
      : undefined;
  const answer = plan ? plan.pieces.length : ignoreEos ? limit : natural;
  // A reasoning model thinks first; its thinking counts in max_tokens.
  const wanted = profile.reasoningTokens + answer;
  const uncut = Math.min(wanted, limit);
  const cut =
    !plan && profile.honorStop && !fault
      ? stopCut(request, sampleSeed, profile.reasoningTokens, uncut)
      : undefined;
  const outputTokens = cut ?? uncut;
  const finishReason =
    fault === "finishError"
      ? "error" // as a server whose engine aborted the request sends it
      : fault === "refusal" || cut !== undefined
        ? "stop"
        : wanted > limit || (!plan && ignoreEos)
          ? "length"
          : (plan?.finishReason ?? "stop");
  // Faults that cut a stream do so half-way through the output.
  const cuts = fault === "truncated" || fault === "streamError" || fault === "malformed";
  // A refusal is a short sentence instead of the answer.
  const generated =
    fault === "refusal"
      ? Math.min(outputTokens, REFUSAL_TOKENS)
      : cuts
        ? Math.max(1, Math.ceil(outputTokens / 2))
        : outputTokens;
  // llama.cpp counts the end-of-sequence token, which it does not stream.
  const eos =
    profile.usageCountsEos && finishReason === "stop" && !cuts && fault !== "empty" ? 1 : 0;
  const completionTokens = fault === "empty" ? 0 : generated + eos;
  const reasoning =
    fault === "empty" || fault === "refusal" ? 0 : Math.min(profile.reasoningTokens, generated);
  return {
    plan,
    sampleSeed,
    generated,
    reasoning,
    finishReason,
    cuts,
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      ...(profile.reasoningTokens > 0
        ? { completion_tokens_details: { reasoning_tokens: reasoning } }
        : {}),
    },
  };
}

/** Where a stop sequence cuts the answer: the tokens before the one that completes it (undefined: none does). */
function stopCut(
  request: GenerationRequest,
  sampleSeed: number,
  skip: number,
  tokens: number,
): number | undefined {
  if (request.stop.length === 0) return undefined;
  const longest = Math.max(...request.stop.map((s) => s.length));
  const stream = new TokenStream(request.promptText, sampleSeed);
  let tail = "";
  for (let i = 0; i < tokens; i++) {
    const token = stream.next();
    if (i < skip) continue;
    const text = tail + token;
    if (request.stop.some((s) => text.includes(s))) return i;
    tail = text.slice(-longest);
  }
  return undefined;
}

/** The engine's sequence of one generation: tokens into chunks for the writer, then its end. */
export class Generation implements Sequence {
  readonly promptTokens: number;
  readonly promptBlocks: number[];
  outputTokens: number;
  /** Set once the writer exists (the engine calls back only from its timers, after it). */
  writer: Writer | undefined;
  /** The client went away: nothing more is written (the engine may keep going). */
  gone = false;
  finished = false;
  private pendingText = "";
  private pendingTokens = 0;
  private emitted = 0;
  private reasoningLeft: number;
  private readonly tokens: TokenStream;
  private readonly shape: Shape;
  private readonly fault: FaultKind | undefined;
  private readonly tokensPerChunk: number;

  constructor(
    profile: MockProfile,
    request: GenerationRequest,
    promptTokens: number,
    shape: Shape,
    fault: FaultKind | undefined,
  ) {
    this.promptTokens = promptTokens;
    this.promptBlocks = profile.prefixCache ? blockHashes(request.promptText) : [];
    this.outputTokens = shape.generated;
    this.shape = shape;
    this.fault = fault;
    this.tokensPerChunk = profile.tokensPerChunk;
    this.reasoningLeft = shape.reasoning;
    this.tokens = new TokenStream(request.promptText, shape.sampleSeed);
  }

  /** Truncated under load: ends early with finish_reason stop, its usage saying so (a plain answer only). */
  cutShort(tokens: number): void {
    if (this.fault || this.shape.plan || tokens >= this.outputTokens) return;
    const keep = Math.max(1, tokens);
    const usage = this.shape.usage;
    this.outputTokens = keep;
    this.shape.finishReason = "stop";
    usage.completion_tokens = keep;
    usage.total_tokens = this.promptTokens + keep;
  }

  /** As vLLM reports it (--enable-prompt-tokens-details), when the cache held any. */
  onPrefill(cachedTokens: number): void {
    if (cachedTokens > 0) this.shape.usage.prompt_tokens_details = { cached_tokens: cachedTokens };
  }

  onToken(): void {
    if (this.fault === "empty" || this.gone) return;
    if (this.fault === "refusal") {
      this.writer?.refusal(this.tokens.next());
      return;
    }
    if (this.reasoningLeft > 0) {
      this.reasoningLeft--;
      this.writer?.reasoning(this.tokens.next());
      return;
    }
    const plan = this.shape.plan;
    if (plan?.kind === "tool") {
      this.writer?.toolArgs(plan.pieces[this.emitted++] ?? "");
      return;
    }
    this.pendingText += plan ? (plan.pieces[this.emitted++] ?? "") : this.tokens.next();
    this.pendingTokens++;
    if (this.pendingTokens >= this.tokensPerChunk) {
      this.writer?.content(this.pendingText);
      this.pendingText = "";
      this.pendingTokens = 0;
    }
  }

  onFinish(): void {
    this.finished = true;
    if (this.gone) return;
    const { finishReason, usage } = this.shape;
    if (this.pendingTokens > 0) this.writer?.content(this.pendingText);
    if (this.fault === "truncated") this.writer?.cut();
    else if (this.fault === "streamError") this.writer?.fail();
    else if (this.fault === "malformed") this.writer?.garble(finishReason, usage);
    else this.writer?.finish(finishReason, usage);
  }
}
