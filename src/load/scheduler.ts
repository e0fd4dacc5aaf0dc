// When each send happens: the precomputed schedule (ascending due times) and
// sends that fall due later (a session's next turn), each fired at its due
// time and never before it. A precise waker (a worker thread, load/waker.ts)
// or, without one, a timer sleeps until shortly before the earliest due send,
// then the event loop is polled (I/O is still served between polls). A timer
// may wake early — libuv measures its delay from the time the
// loop iteration began, which on a busy machine is already stale — so every
// wake reads the clock again and sleeps on if nothing is due yet.

export interface Clock {
  now(): number;
}

export const MONOTONIC: Clock = { now: () => performance.now() };

/** The timer functions the scheduler uses: the globals by default, a stand-in in tests. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  setImmediate(fn: () => void): unknown;
  clearImmediate(handle: unknown): void;
  /** A precise wake at a clock time (load/waker.ts), false if none was armed; without one, a timer and polling. */
  wakeAt?(atMs: number, fn: () => void): boolean;
  cancelWake?(): void;
}

/** The global timers, looked up at each call (so that node:test's mock timers apply). */
export const GLOBAL_TIMERS: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout | undefined),
  setImmediate: (fn) => setImmediate(fn),
  clearImmediate: (h) => clearImmediate(h as NodeJS.Immediate | undefined),
};

/**
 * libuv timers fire up to 1–2 ms late; 2 ms of polling keeps the send-skew
 * p99 under 1 ms at 1,000 req/s on 2 cores (bench/README.md), for more client
 * CPU. (Polling 5 ms at low rates did not help: on a busy machine the late
 * sends are the OS's.)
 */
export const SPIN_MS = 2;

/**
 * With a precise waker, the wake comes this long before the send and the
 * loop polls the rest: the wake's own latency (≈ 0.1 ms median on an idle
 * machine) is then absorbed, not added to the send.
 */
export const WAKE_LEAD_MS = 0.2;

export interface ScheduleSource {
  /** Sends on the precomputed schedule. */
  count: number;
  /** The due time of send i (clock ms, ascending in i). */
  dueMs(i: number): number;
  fire(i: number): void;
  /** Called once the scheduler sleeps before send i: work that should not delay the send (its body). */
  prepare?(i: number): void;
}

interface Later<T> {
  dueMs: number;
  item: T;
}

/** A binary min-heap of sends that fell due after the start, by due time. */
class LaterHeap<T> {
  private readonly items: Later<T>[] = [];
  get size(): number {
    return this.items.length;
  }
  peek(): Later<T> | undefined {
    return this.items[0];
  }
  push(entry: Later<T>): void {
    this.items.push(entry);
    for (let i = this.items.length - 1; i > 0 && this.due(i) < this.due((i - 1) >> 1); ) {
      this.swap(i, (i - 1) >> 1);
      i = (i - 1) >> 1;
    }
  }
  pop(): Later<T> | undefined {
    const top = this.items[0];
    const last = this.items.pop();
    if (this.items.length === 0 || last === undefined) return top;
    this.items[0] = last;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const m = [l, l + 1].reduce((best, c) => (this.due(c) < this.due(best) ? c : best), i);
      if (m === i) return top;
      this.swap(i, m);
      i = m;
    }
  }
  drain(): T[] {
    return this.items.splice(0).map((e) => e.item);
  }
  private due(i: number): number {
    return this.items[i]?.dueMs ?? Infinity;
  }
  private swap(i: number, j: number): void {
    const [a, b] = [this.items[i], this.items[j]];
    if (a === undefined || b === undefined) return;
    this.items[i] = b;
    this.items[j] = a;
  }
}

export class SendScheduler<T> {
  private next = 0;
  private readonly later = new LaterHeap<T>();
  private sleeping: unknown;
  private polling: unknown;
  private stopped = false;

  private readonly clock: Clock;
  private readonly source: ScheduleSource;
  private readonly fireLater: (item: T) => void;
  private readonly timers: Timers;
  private readonly spinMs: number;

  constructor(
    clock: Clock,
    source: ScheduleSource,
    fireLater: (item: T) => void,
    timers: Timers = GLOBAL_TIMERS,
    spinMs = SPIN_MS,
  ) {
    this.clock = clock;
    this.source = source;
    this.fireLater = fireLater;
    this.timers = timers;
    this.spinMs = spinMs;
  }

  start(): void {
    this.plan();
  }

  /** A send that falls due at dueMs (a session's next turn). */
  addLater(dueMs: number, item: T): void {
    if (this.stopped) return;
    this.later.push({ dueMs, item });
    this.plan();
  }

  /** Sends on the schedule not fired yet. */
  get pending(): number {
    return this.source.count - this.next + this.later.size;
  }

  /** Stops firing; returns what was never fired: schedule indices and later items. */
  stop(): { scheduled: number[]; later: T[] } {
    this.stopped = true;
    this.clearWake();
    const scheduled: number[] = [];
    while (this.next < this.source.count) scheduled.push(this.next++);
    return { scheduled, later: this.later.drain() };
  }

  private clearWake(): void {
    this.timers.clearTimeout(this.sleeping);
    this.timers.clearImmediate(this.polling);
    this.timers.cancelWake?.();
    this.sleeping = undefined;
    this.polling = undefined;
  }

  private nextFixedDueMs(): number {
    return this.next < this.source.count ? this.source.dueMs(this.next) : Infinity;
  }

  /** Fires everything due by now, in due order; then sleeps or polls until the next one. */
  private tick = (): void => {
    this.clearWake();
    const now = this.clock.now();
    for (;;) {
      if (this.stopped) return;
      const fixedMs = this.nextFixedDueMs();
      const later = this.later.peek();
      if (later !== undefined && later.dueMs < fixedMs && later.dueMs <= now) {
        this.later.pop();
        this.fireLater(later.item);
      } else if (fixedMs <= now) this.source.fire(this.next++);
      else break;
    }
    this.plan();
  };

  private plan(): void {
    const now = this.clock.now();
    if (this.stopped) return;
    this.clearWake();
    const fixedMs = this.nextFixedDueMs();
    const dueMs = Math.min(fixedMs, this.later.peek()?.dueMs ?? Infinity);
    if (dueMs === Infinity) return;
    const waitMs = dueMs - now;
    if (waitMs > WAKE_LEAD_MS && this.timers.wakeAt?.(dueMs - WAKE_LEAD_MS, this.tick)) {
      if (fixedMs === dueMs) this.source.prepare?.(this.next);
    } else if (waitMs > this.spinMs) {
      if (fixedMs === dueMs) this.source.prepare?.(this.next);
      this.sleeping = this.timers.setTimeout(this.tick, waitMs - this.spinMs);
    } else this.polling = this.timers.setImmediate(this.tick);
  }
}
