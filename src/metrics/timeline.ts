// Time inside a trial: per time bucket (a second, or wider for long trials so
// there are at most MAX_BUCKETS), the requests offered and completed, the
// failures by class, and TTFT and ITL percentiles — so a stall, a warm-up
// tail or a mid-trial crash shows. Memory is bounded: each bucket keeps at
// most SAMPLES_PER_BUCKET values per metric (a uniform reservoir, seeded), so
// a bucket's percentiles are exact up to that many requests and a sample
// beyond it.

import { OUTCOMES, type Outcome } from "../common/outcomes.ts";
import type { RequestRecord } from "../load/record.ts";
import { Rng } from "../workload/rng.ts";

export const MAX_BUCKETS = 120;
export const SAMPLES_PER_BUCKET = 500;

export interface TimelineBucket {
  /** The bucket's start, seconds from the trial's start (the schedule's zero). */
  t_s: number;
  /** Requests due in the bucket, and requests that ended in it. */
  offered: number;
  completed: number;
  /** Of those that ended in it: failures by class (ok ones not listed). */
  failed: Partial<Record<Outcome, number>>;
  /** Of the ok requests due in the bucket (ms, from the scheduled send). */
  ttft_p50_ms: number | null;
  ttft_p95_ms: number | null;
  /** Gaps between output chunks of the ok requests due in the bucket. */
  itl_p95_ms: number | null;
  /** The server's gauges scraped in the bucket (mean); absent: not scraped. */
  running?: number | null;
  waiting?: number | null;
}

/** A timeline's buckets as a shard writes them. */
export type TimelineState = {
  k: number;
  offered: number;
  completed: number;
  failed: Partial<Record<Outcome, number>>;
  ttft: number[];
  itl: number[];
}[];

export interface TrialTimeline {
  bucket_s: number;
  /** The last bucket holds everything from its start on (requests that ended after the schedule). */
  buckets: TimelineBucket[];
}

/** A bucket width that keeps a trial of this length within MAX_BUCKETS. */
export function bucketSeconds(trialS: number): number {
  return Math.max(1, Math.ceil(trialS / MAX_BUCKETS));
}

class Reservoir {
  readonly values: number[] = [];
  private seen = 0;

  add(v: number, rng: Rng): void {
    this.seen++;
    if (this.values.length < SAMPLES_PER_BUCKET) this.values.push(v);
    else {
      const k = Math.floor(rng.uniform() * this.seen);
      if (k < SAMPLES_PER_BUCKET) this.values[k] = v;
    }
  }

  /** Nearest-rank percentile (0–100); null when empty. */
  percentile(p: number): number | null {
    if (this.values.length === 0) return null;
    const sorted = [...this.values].sort((a, b) => a - b);
    const rank = Math.max(1, Math.ceil((p / 100) * sorted.length - 1e-9));
    return Math.round((sorted[rank - 1] ?? 0) * 1000) / 1000;
  }
}

interface Bucket {
  offered: number;
  completed: number;
  failed: Partial<Record<Outcome, number>>;
  ttft: Reservoir;
  itl: Reservoir;
  gauges: { running: number[]; waiting: number[] };
}

export class TimelineTally {
  /** The trial's start on the clock; set when the trial starts. */
  startMs = 0;
  private readonly bucketMs: number;
  /** Everything from this bucket on (late ends, a timeout's tail, later turns) goes into it. */
  private readonly lastBucket: number;
  private readonly buckets = new Map<number, Bucket>();
  private readonly rng = new Rng(0x7131);

  /** Buckets of bucketS over a schedule of scheduleS; what comes after it falls in one more. */
  constructor(bucketS: number, scheduleS: number) {
    this.bucketMs = bucketS * 1000;
    this.lastBucket = Math.ceil(scheduleS / bucketS);
  }

  private at(ms: number): Bucket {
    const k = Math.min(
      this.lastBucket,
      Math.max(0, Math.floor((ms - this.startMs) / this.bucketMs)),
    );
    let b = this.buckets.get(k);
    if (!b) {
      b = {
        offered: 0,
        completed: 0,
        failed: {},
        ttft: new Reservoir(),
        itl: new Reservoir(),
        gauges: { running: [], waiting: [] },
      };
      this.buckets.set(k, b);
    }
    return b;
  }

  /** A measured request with its outcome. */
  add = (r: RequestRecord): void => {
    const due = this.at(r.scheduledMs);
    due.offered++;
    if (!Number.isNaN(r.endMs)) {
      const ended = this.at(r.endMs);
      ended.completed++;
      if (r.outcome && r.outcome !== "ok")
        ended.failed[r.outcome] = (ended.failed[r.outcome] ?? 0) + 1;
    } else if (r.outcome && r.outcome !== "ok") {
      due.failed[r.outcome] = (due.failed[r.outcome] ?? 0) + 1;
    }
    if (r.outcome !== "ok") return;
    due.ttft.add(r.firstOutputMs - r.scheduledMs, this.rng);
    for (const gap of r.gapsMs) due.itl.add(gap, this.rng);
  };

  /** Its buckets as JSON (a shard's part of a trial): counts, and the sampled values. */
  state(): TimelineState {
    return [...this.buckets].map(([k, b]) => ({
      k,
      offered: b.offered,
      completed: b.completed,
      failed: b.failed,
      ttft: b.ttft.values,
      itl: b.itl.values,
    }));
  }

  /**
   * Adds a shard's buckets: counts add, samples join (a bucket's percentiles
   * are then over every shard's samples).
   */
  merge(state: TimelineState): void {
    for (const s of state) {
      const b = this.at(this.startMs + s.k * this.bucketMs);
      b.offered += s.offered;
      b.completed += s.completed;
      for (const o of OUTCOMES) {
        const n = s.failed[o];
        if (n) b.failed[o] = (b.failed[o] ?? 0) + n;
      }
      b.ttft.values.push(...s.ttft);
      b.itl.values.push(...s.itl);
    }
  }

  /** A scrape of the server's gauges at atMs (on the trial's clock). */
  addGauges(atMs: number, running: number | undefined, waiting: number | undefined): void {
    const b = this.at(atMs);
    if (running !== undefined) b.gauges.running.push(running);
    if (waiting !== undefined) b.gauges.waiting.push(waiting);
  }

  timeline(): TrialTimeline {
    const keys = [...this.buckets.keys()].sort((a, b) => a - b);
    const mean = (xs: number[]) =>
      xs.length === 0
        ? undefined
        : Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 100) / 100;
    const last = keys.at(-1) ?? -1;
    const buckets: TimelineBucket[] = [];
    // Every bucket from the first to the last, empty ones included: a stall is a gap.
    for (let k = keys[0] ?? 0; k <= last; k++) {
      const b = this.buckets.get(k);
      const running = b ? mean(b.gauges.running) : undefined;
      const waiting = b ? mean(b.gauges.waiting) : undefined;
      buckets.push({
        t_s: (k * this.bucketMs) / 1000,
        offered: b?.offered ?? 0,
        completed: b?.completed ?? 0,
        failed: b?.failed ?? {},
        ttft_p50_ms: b?.ttft.percentile(50) ?? null,
        ttft_p95_ms: b?.ttft.percentile(95) ?? null,
        itl_p95_ms: b?.itl.percentile(95) ?? null,
        ...(running !== undefined ? { running } : {}),
        ...(waiting !== undefined ? { waiting } : {}),
      });
    }
    return { bucket_s: this.bucketMs / 1000, buckets };
  }
}
