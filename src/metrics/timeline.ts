// Time inside a trial: per time bucket (a second, or wider for long trials so
// there are at most MAX_BUCKETS), the requests offered and completed, the
// failures by class, and TTFT and ITL percentiles — so a stall, a warm-up
// tail or a mid-trial crash shows. Memory is bounded: each bucket keeps at
// most SAMPLES_PER_BUCKET values per metric (a uniform reservoir, seeded), so
// a bucket's percentiles are exact up to that many requests and a sample
// beyond it.

import { OUTCOMES, type Outcome } from "../common/outcomes.ts";
import type { Slo } from "../common/slo.ts";
import { outputTokens, type RequestRecord } from "../load/record.ts";
import { Rng } from "../workload/rng.ts";
import { meetsSlo, tpotMs } from "./recorder.ts";

export const MAX_BUCKETS = 120;
export const SAMPLES_PER_BUCKET = 500;
/** Replicas a timeline tells apart (their first answers kept): beyond them, a header's values are not counted. */
export const MAX_REPLICAS = 64;

export interface TimelineBucket {
  /** The bucket's start, seconds from the trial's start (the schedule's zero). */
  t_s: number;
  /** Requests due in the bucket, and requests that ended in it. */
  offered: number;
  completed: number;
  /** Of those that ended in it: failures by class (ok ones not listed). */
  failed: Partial<Record<Outcome, number>>;
  /** Of the requests due in the bucket: those that were ok and met the SLO (goodput); absent in older files. */
  good?: number;
  /** Of the ok requests due in the bucket (ms, from the scheduled send). */
  ttft_p50_ms: number | null;
  ttft_p95_ms: number | null;
  /** Gaps between output chunks of the ok requests due in the bucket. */
  itl_p95_ms: number | null;
  /** The server's gauges scraped in the bucket (mean); absent: not scraped. */
  running?: number | null;
  waiting?: number | null;
  /** The replica count sampled in the bucket (its last sample); absent: no replicas source. */
  replicas?: number;
  /** Replicas that answered ok requests due in the bucket (the replica header's values); absent: no header. */
  serving?: number;
}

/** A replica's first ok answer in a bucket: when it was due (ms from the trial's start) and its TTFT. */
type FirstAnswer = [dueMs: number, ttftMs: number];

/** A timeline's buckets as a shard writes them. */
export type TimelineState = {
  k: number;
  offered: number;
  completed: number;
  failed: Partial<Record<Outcome, number>>;
  ttft: number[];
  itl: number[];
  good?: number;
  served?: Record<string, FirstAnswer>;
}[];

export interface TrialTimeline {
  bucket_s: number;
  /** The last bucket holds everything from its start on (requests that ended after the schedule). */
  buckets: TimelineBucket[];
  /** Each replica's first ok answer (the replica header's value): when it was due (s) and its TTFT; absent: no header. */
  first_served?: { replica: string; t_s: number; ttft_ms: number }[];
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
  good: number;
  served: Map<string, FirstAnswer>;
  gauges: { running: number[]; waiting: number[]; replicas: number[] };
}

export class TimelineTally {
  /** The trial's start on the clock; set when the trial starts. */
  startMs = 0;
  private readonly bucketMs: number;
  /** Everything from this bucket on (late ends, a timeout's tail, later turns) goes into it. */
  private readonly lastBucket: number;
  private readonly buckets = new Map<number, Bucket>();
  private readonly rng = new Rng(0x7131);
  private readonly slo: Slo;
  /** The replicas seen so far: at most MAX_REPLICAS are told apart. */
  private readonly replicas = new Set<string>();

  /** Buckets of bucketS over a schedule of scheduleS (what comes after it falls in one more); good requests meet `slo`. */
  constructor(bucketS: number, scheduleS: number, slo: Slo = {}) {
    this.bucketMs = bucketS * 1000;
    this.lastBucket = Math.ceil(scheduleS / bucketS);
    this.slo = slo;
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
        good: 0,
        served: new Map(),
        gauges: { running: [], waiting: [], replicas: [] },
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
    const ttftMs = r.firstOutputMs - r.scheduledMs;
    due.ttft.add(ttftMs, this.rng);
    for (const gap of r.gapsMs) due.itl.add(gap, this.rng);
    if (meetsSlo(this.slo, r, tpotMs(r, outputTokens(r)), 0)) due.good++;
    if (r.replica !== undefined)
      this.served(due, r.replica, [r.scheduledMs - this.startMs, ttftMs]);
  };

  /** A replica's answer: the bucket keeps each replica's earliest due one. */
  private served(b: Bucket, replica: string, answer: FirstAnswer): void {
    if (!this.replicas.has(replica)) {
      if (this.replicas.size >= MAX_REPLICAS) return;
      this.replicas.add(replica);
    }
    const had = b.served.get(replica);
    if (!had || answer[0] < had[0]) b.served.set(replica, answer);
  }

  /** Its buckets as JSON (a shard's part of a trial): counts, and the sampled values. */
  state(): TimelineState {
    return [...this.buckets].map(([k, b]) => ({
      k,
      offered: b.offered,
      completed: b.completed,
      failed: b.failed,
      ttft: b.ttft.values,
      itl: b.itl.values,
      good: b.good,
      ...(b.served.size > 0 ? { served: Object.fromEntries(b.served) } : {}),
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
      b.good += s.good ?? 0;
      for (const [replica, answer] of Object.entries(s.served ?? {}))
        this.served(b, replica, answer);
    }
  }

  /** A scrape of the server's gauges, or a sample of its replica count, at atMs (on the trial's clock). */
  addGauges(
    atMs: number,
    running: number | undefined,
    waiting: number | undefined,
    replicas?: number,
  ): void {
    const b = this.at(atMs);
    if (running !== undefined) b.gauges.running.push(running);
    if (waiting !== undefined) b.gauges.waiting.push(waiting);
    if (replicas !== undefined) b.gauges.replicas.push(replicas);
  }

  /** Each replica's first ok answer over the trial, in the order they first answered. */
  private firstServed(keys: readonly number[]): TrialTimeline["first_served"] {
    const first = new Map<string, FirstAnswer>();
    for (const k of keys)
      for (const [replica, answer] of this.buckets.get(k)?.served ?? []) {
        const had = first.get(replica);
        if (!had || answer[0] < had[0]) first.set(replica, answer);
      }
    if (first.size === 0) return undefined;
    return [...first]
      .sort((a, b) => a[1][0] - b[1][0])
      .map(([replica, [dueMs, ttftMs]]) => ({
        replica,
        t_s: Math.round(dueMs) / 1000,
        ttft_ms: Math.round(ttftMs * 1000) / 1000,
      }));
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
      const replicas = b?.gauges.replicas.at(-1);
      buckets.push({
        t_s: (k * this.bucketMs) / 1000,
        offered: b?.offered ?? 0,
        completed: b?.completed ?? 0,
        failed: b?.failed ?? {},
        good: b?.good ?? 0,
        ttft_p50_ms: b?.ttft.percentile(50) ?? null,
        ttft_p95_ms: b?.ttft.percentile(95) ?? null,
        itl_p95_ms: b?.itl.percentile(95) ?? null,
        ...(running !== undefined ? { running } : {}),
        ...(waiting !== undefined ? { waiting } : {}),
        ...(replicas !== undefined ? { replicas } : {}),
        ...(this.replicas.size > 0 ? { serving: b?.served.size ?? 0 } : {}),
      });
    }
    const firstServed = this.firstServed(keys);
    return {
      bucket_s: this.bucketMs / 1000,
      buckets,
      ...(firstServed ? { first_served: firstServed } : {}),
    };
  }
}
