// A continuous-batching engine model. Requests wait in a queue, are admitted
// into a running set of at most maxBatch sequences, are prefilled (a step that
// costs more for longer prompts and during which nobody decodes), then decode
// one token per step, where each step takes longer the more sequences run.
// TTFT therefore grows with load and has a knee once the batch is full.

import { Rng } from "../workload/rng.ts";
import { type EngineGauges, EngineMetrics } from "./metrics.ts";
import { BLOCK_TOKENS, PrefixCache } from "./prefix-cache.ts";
import type { MockProfile } from "./profile.ts";

export interface Sequence {
  promptTokens: number;
  /** The prompt's block hashes, for the prefix cache. */
  promptBlocks?: readonly number[];
  /** Called at its prefill with how many prompt tokens the prefix cache held. */
  onPrefill?(cachedTokens: number): void;
  /** Tokens to generate before the sequence finishes. */
  outputTokens: number;
  /** Called at the end of each step that produced a token for this sequence. */
  onToken(): void;
  /** Called once after the last token. */
  onFinish(): void;
  /** Asked, at admission under load, to end after `tokens` tokens instead (truncateAboveRunning). */
  cutShort?(tokens: number): void;
}

interface Running {
  seq: Sequence;
  generated: number;
  cancelled: boolean;
  /** When it reached the engine, and when its last token was made. */
  arrivedMs: number;
  lastTokenMs: number;
}

export interface EngineStats {
  waiting: number;
  running: number;
  maxRunning: number;
  steps: number;
  /** Prompt tokens prefilled, and how many of them the prefix cache held. */
  promptTokens: number;
  cachedTokens: number;
}

/** Lateness (ms) of a timer that the engine absorbs by keeping its step grid. */
const CATCH_UP_MS = 5;

export class Engine {
  private readonly waiting: Sequence[] = [];
  private readonly arrivedMs = new Map<Sequence, number>();
  /** What a runtime would expose at GET /metrics. */
  readonly metrics = new EngineMetrics();
  private running: Running[] = [];
  private readonly rng: Rng;
  private readonly startMs: number;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private nextStartMs = 0;
  private maxRunning = 0;
  private steps = 0;
  private promptTokens = 0;
  private cachedTokens = 0;
  private readonly cache: PrefixCache | undefined;
  private closed = false;
  /** When a request was last shed (the queue was full): recovery runs slower from there. */
  private lastShedMs = Number.NEGATIVE_INFINITY;
  private readonly profile: MockProfile;
  private readonly now: () => number;

  constructor(profile: MockProfile, now: () => number = () => performance.now()) {
    this.profile = profile;
    this.now = now;
    this.rng = new Rng(profile.seed ^ 0xe9e9e);
    this.startMs = now();
    this.cache =
      profile.prefixCache && profile.prefixCacheBlocks > 0
        ? new PrefixCache(profile.prefixCacheBlocks)
        : undefined;
  }

  /** Queues a sequence; false when the queue limit sheds it. */
  submit(seq: Sequence): boolean {
    if (this.closed) return false;
    if (this.profile.maxQueue > 0 && this.waiting.length >= this.profile.maxQueue) {
      this.lastShedMs = this.now();
      return false;
    }
    this.waiting.push(seq);
    this.arrivedMs.set(seq, this.now());
    if (!this.busy) this.schedule(Math.max(this.now(), this.nextStartMs));
    return true;
  }

  /** Removes a sequence whose client went away. */
  cancel(seq: Sequence): void {
    const i = this.waiting.indexOf(seq);
    if (i >= 0) this.waiting.splice(i, 1);
    this.arrivedMs.delete(seq);
    const r = this.running.find((x) => x.seq === seq);
    if (r) {
      r.cancelled = true;
      this.running = this.running.filter((x) => x !== r);
    }
  }

  stats(): EngineStats {
    return {
      waiting: this.waiting.length,
      running: this.running.length,
      maxRunning: this.maxRunning,
      steps: this.steps,
      promptTokens: this.promptTokens,
      cachedTokens: this.cachedTokens,
    };
  }

  /** The state a scrape reads: queue, batch, and the share of the KV cache the batch holds. */
  gauges(): EngineGauges {
    const held = this.running.reduce((a, r) => a + r.seq.promptTokens + r.generated, 0);
    return {
      running: this.running.length,
      waiting: this.waiting.length,
      kvCacheUsage: Math.min(1, held / this.profile.kvCacheTokens),
    };
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.waiting.length = 0;
    this.running = [];
  }

  private schedule(startMs: number): void {
    this.busy = true;
    this.timer = setTimeout(() => this.step(startMs), Math.max(0, startMs - this.now()));
  }

  private step(plannedStartMs: number): void {
    if (this.closed) return;
    const now = this.now();
    // Keep the step grid when the timer fired a little late; restart it after a long block.
    let startMs = now - plannedStartMs <= CATCH_UP_MS ? plannedStartMs : now;
    startMs = this.afterStall(startMs);
    if (startMs > now + 0.5) {
      this.schedule(startMs);
      return;
    }
    if (this.waiting.length === 0 && this.running.length === 0) {
      this.busy = false;
      this.nextStartMs = startMs;
      return;
    }
    const admitted: Running[] = [];
    while (
      this.waiting.length > 0 &&
      this.running.length + admitted.length < this.profile.maxBatch
    ) {
      const seq = this.waiting.shift() as Sequence;
      const arrivedMs = this.arrivedMs.get(seq) ?? startMs;
      this.arrivedMs.delete(seq);
      this.metrics.queueTime.observe(Math.max(0, startMs - arrivedMs) / 1000);
      admitted.push({ seq, generated: 0, cancelled: false, arrivedMs, lastTokenMs: arrivedMs });
    }
    const p = this.profile;
    if (
      p.truncateAboveRunning > 0 &&
      this.running.length + admitted.length >= p.truncateAboveRunning
    )
      for (const r of admitted) r.seq.cutShort?.(Math.ceil(r.seq.outputTokens * p.truncateShare));
    let durationMs: number;
    let stepping: Running[];
    if (admitted.length > 0) {
      // Prefill step: the admitted prompts are processed and each yields its first token;
      // what the prefix cache holds is not computed again.
      let computed = 0;
      for (const r of admitted) {
        const hits = this.cache?.admit(r.seq.promptBlocks ?? []) ?? 0;
        const cached = Math.min(r.seq.promptTokens, hits * BLOCK_TOKENS);
        r.seq.onPrefill?.(cached);
        this.promptTokens += r.seq.promptTokens;
        this.cachedTokens += cached;
        this.metrics.promptTokens += r.seq.promptTokens;
        if (this.cache) {
          this.metrics.prefixQueries += r.seq.promptTokens;
          this.metrics.prefixHits += cached;
        }
        computed += r.seq.promptTokens - cached;
      }
      durationMs = (p.prefillBaseMs + p.prefillPerTokenMs * computed) * p.prefillScale;
      this.running.push(...admitted);
      stepping = admitted;
    } else {
      durationMs = (p.decodeBaseMs + p.decodePerSeqMs * this.running.length) * p.decodeScale;
      stepping = this.running;
    }
    this.maxRunning = Math.max(this.maxRunning, this.running.length);
    if (startMs - this.lastShedMs < p.recoveryLagS * 1000) durationMs *= p.recoveryScale;
    durationMs *= Math.exp(p.jitter * this.rng.normal());
    const endMs = startMs + durationMs;
    this.busy = true;
    this.timer = setTimeout(() => this.finishStep(stepping, endMs), Math.max(0, endMs - now));
  }

  private finishStep(stepping: Running[], endMs: number): void {
    if (this.closed) return;
    this.steps++;
    const finished = new Set<Running>();
    for (const r of stepping) {
      if (r.cancelled) continue;
      r.generated++;
      const m = this.metrics;
      m.generationTokens++;
      m.specDraftTokens += this.profile.specDecodeTokens;
      if (this.profile.specDecodeTokens > 0) m.specDrafts++;
      if (r.generated === 1) m.ttft.observe((endMs - r.arrivedMs) / 1000);
      else m.itl.observe((endMs - r.lastTokenMs) / 1000);
      r.lastTokenMs = endMs;
      r.seq.onToken();
      if (r.generated >= r.seq.outputTokens) finished.add(r);
    }
    if (finished.size > 0) {
      this.running = this.running.filter((r) => !finished.has(r));
      for (const r of finished) {
        this.metrics.finished++;
        this.metrics.e2e.observe((endMs - r.arrivedMs) / 1000);
        r.seq.onFinish();
      }
    }
    this.step(endMs);
  }

  /** Moves a start time out of a periodic stall window. */
  private afterStall(startMs: number): number {
    const { stallEveryS, stallMs } = this.profile;
    if (stallEveryS <= 0 || stallMs <= 0) return startMs;
    const periodMs = stallEveryS * 1000;
    const sinceStart = startMs - this.startMs;
    const windowStart = Math.floor(sinceStart / periodMs) * periodMs + periodMs - stallMs;
    // The stall occupies the last stallMs of each period.
    if (sinceStart >= windowStart) return this.startMs + windowStart + stallMs;
    return startMs;
  }
}

/**
 * The request rate the engine saturates at, for requests of promptTokens in
 * and outputTokens out: with the batch full (maxBatch running), each request
 * costs its share of (outputTokens − 1) full decode steps plus its own
 * prefill step (one request admitted per step, as a slot frees). The step
 * jitter's mean (e^(σ²/2)) is left out: below 0.2 % for σ ≤ 0.05. Beyond this
 * rate the queue grows without bound, so the TTFT SLO's knee lies just below
 * it; a prefillBaseMs of 0 makes the prediction independent of how many
 * requests share a prefill step.
 */
export function saturationRatePerS(
  profile: MockProfile,
  promptTokens: number,
  outputTokens: number,
): number {
  const p = profile;
  const decodeStepMs = (p.decodeBaseMs + p.decodePerSeqMs * p.maxBatch) * p.decodeScale;
  const decodeMs = (Math.max(0, outputTokens - 1) * decodeStepMs) / p.maxBatch;
  const prefillMs = (p.prefillBaseMs + p.prefillPerTokenMs * promptTokens) * p.prefillScale;
  return 1000 / (decodeMs + prefillMs);
}
