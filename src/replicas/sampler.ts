// Samples an arm's replica count once a second beside a trial, on the
// trial's clock: one reading in flight at a time, never delaying a send. The
// first reading that fails or makes no sense ends the sampling: it is named
// once, and what needs the count is left out, never guessed.

import { errorMessage } from "../common/errors.ts";
import { type ReadDeps, readReplicas } from "./read.ts";
import { describeReplicasSource, type ReplicasSource } from "./source.ts";

export const SAMPLE_EVERY_MS = 1000;

/** What a trial's report keeps of its source: its name, and its error if it failed. */
export interface ReplicasRecord {
  source: string;
  samples: number;
  error: string | null;
}

export class ReplicaSampler {
  readonly samples: { atMs: number; replicas: number }[] = [];
  private error: string | null = null;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> = Promise.resolve();
  private stopped = false;
  private reading = false;
  private readonly source: ReplicasSource;
  private readonly deps: ReadDeps;
  private readonly now: () => number;

  constructor(source: ReplicasSource, deps: ReadDeps, now: () => number) {
    this.source = source;
    this.deps = deps;
    this.now = now;
  }

  /** One reading now, then one every SAMPLE_EVERY_MS until stop(). */
  start(): void {
    this.tick();
  }

  private tick = (): void => {
    if (this.stopped || this.error !== null) return;
    // A reading slower than a second skips a sample rather than queue one.
    if (!this.reading) {
      this.reading = true;
      this.inFlight = this.readOnce().finally(() => {
        this.reading = false;
      });
    }
    this.timer = setTimeout(this.tick, SAMPLE_EVERY_MS);
    this.timer.unref?.();
  };

  private async readOnce(): Promise<void> {
    const atMs = this.now();
    try {
      const replicas = await readReplicas(this.source, this.deps);
      if (!this.stopped) this.samples.push({ atMs, replicas });
    } catch (error) {
      this.error ??= `the replicas source ${describeReplicasSource(this.source)} ${errorMessage(error)}`;
    }
  }

  /** Ends the sampling; its record once the reading in flight ended. */
  async stop(): Promise<ReplicasRecord> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.inFlight;
    return {
      source: describeReplicasSource(this.source),
      samples: this.samples.length,
      error: this.error,
    };
  }
}
