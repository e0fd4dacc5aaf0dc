// The send scheduler on an injected clock: node:test's mock timers for the
// schedule itself, and timers that wake early (as libuv's do on a busy
// machine) to show that nothing is ever sent before its due time.

import assert from "node:assert/strict";
import { test } from "node:test";
import { type Clock, GLOBAL_TIMERS, SendScheduler, type Timers } from "../../src/load/scheduler.ts";

const mockClock: Clock = { now: () => Date.now() };
/** Mocked time stands still between ticks: polling would spin forever, so the tests sleep to the due time. */
const NO_POLLING = 0;

test("fires the schedule and later sends at their due times, in due order", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout", "setImmediate", "Date"], now: 0 });
  const fired: string[] = [];
  const dues = [10, 20, 20, 45];
  const scheduler = new SendScheduler<string>(
    mockClock,
    {
      count: dues.length,
      dueMs: (i) => dues[i] ?? Infinity,
      fire: (i) => {
        fired.push(`s${i}@${Date.now()}`);
        if (i === 0) scheduler.addLater(30, "turn-after-s0");
      },
    },
    (item) => fired.push(`${item}@${Date.now()}`),
    GLOBAL_TIMERS,
    NO_POLLING,
  );
  scheduler.start();
  for (let ms = 0; ms < 60; ms++) t.mock.timers.tick(1);
  assert.deepEqual(fired, ["s0@10", "s1@20", "s2@20", "turn-after-s0@30", "s3@45"]);
  assert.equal(scheduler.pending, 0);
});

test("a stop returns every send not fired yet, scheduled and later", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout", "setImmediate", "Date"], now: 0 });
  const fired: number[] = [];
  const scheduler = new SendScheduler<string>(
    mockClock,
    { count: 5, dueMs: (i) => 10 * (i + 1), fire: (i) => fired.push(i) },
    () => {},
    GLOBAL_TIMERS,
    NO_POLLING,
  );
  scheduler.start();
  scheduler.addLater(100, "late turn");
  t.mock.timers.tick(25);
  const never = scheduler.stop();
  assert.deepEqual(fired, [0, 1]);
  assert.deepEqual(never, { scheduled: [2, 3, 4], later: ["late turn"] });
  t.mock.timers.tick(200);
  assert.deepEqual(fired, [0, 1], "nothing fires after the stop");
});

test("timers that wake early never make a send early: the scheduler sleeps on", async () => {
  let nowMs = 0;
  const clock: Clock = { now: () => nowMs };
  const queue: { atMs: number; fn: () => void }[] = [];
  // Every timer fires 5 ms before it should (a stale loop time), yet time moves on by at least 0.5 ms.
  const early: Timers = {
    setTimeout: (fn, ms) => {
      const entry = { atMs: nowMs + Math.max(0.5, ms - 5), fn };
      queue.push(entry);
      return entry;
    },
    clearTimeout: (h) => {
      const i = queue.indexOf(h as (typeof queue)[number]);
      if (i >= 0) queue.splice(i, 1);
    },
    setImmediate: (fn) => {
      const entry = { atMs: nowMs + 0.5, fn };
      queue.push(entry);
      return entry;
    },
    clearImmediate: (h) => {
      const i = queue.indexOf(h as (typeof queue)[number]);
      if (i >= 0) queue.splice(i, 1);
    },
  };
  const sentAt: { due: number; at: number }[] = [];
  const scheduler = new SendScheduler<number>(
    clock,
    {
      count: 3,
      dueMs: (i) => 50 + 40 * i,
      fire: (i) => {
        sentAt.push({ due: 50 + 40 * i, at: nowMs });
        if (i === 0) scheduler.addLater(nowMs + 30, nowMs + 30);
      },
    },
    (dueMs) => sentAt.push({ due: dueMs, at: nowMs }),
    early,
  );
  scheduler.start();
  for (let steps = 0; queue.length > 0 && steps < 10_000; steps++) {
    queue.sort((a, b) => a.atMs - b.atMs);
    const next = queue.shift();
    if (!next) break;
    nowMs = Math.max(nowMs, next.atMs);
    next.fn();
  }
  assert.equal(sentAt.length, 4);
  for (const s of sentAt) assert.ok(s.at >= s.due, `sent at ${s.at} ms, due at ${s.due} ms`);
  for (const s of sentAt)
    assert.ok(s.at - s.due <= 1, `sent ${s.at - s.due} ms after its due time`);
});

test("a precise waker that wakes early never makes a send early, and it is what the scheduler sleeps on", () => {
  let nowMs = 0;
  const clock: Clock = { now: () => nowMs };
  let armed: { atMs: number; fn: () => void } | undefined;
  let immediate: (() => void) | undefined;
  let timeouts = 0;
  // The waker comes 0.3 ms early (past its lead); time moves 0.05 ms per poll or wake.
  const timers: Timers = {
    setTimeout: () => {
      timeouts++;
    },
    clearTimeout: () => {},
    setImmediate: (fn) => {
      immediate = fn;
    },
    clearImmediate: () => {
      immediate = undefined;
    },
    wakeAt: (atMs, fn) => {
      armed = { atMs: atMs - 0.3, fn };
      return true;
    },
    cancelWake: () => {
      armed = undefined;
    },
  };
  const dues = [10, 10.1, 35, 80];
  const sentAt: number[] = [];
  const scheduler = new SendScheduler<number>(
    clock,
    { count: dues.length, dueMs: (i) => dues[i] ?? Infinity, fire: () => sentAt.push(nowMs) },
    () => {},
    timers,
  );
  scheduler.start();
  let polls = 0;
  for (let steps = 0; steps < 10_000 && (armed || immediate); steps++) {
    if (immediate) {
      const fn = immediate;
      immediate = undefined;
      nowMs += 0.05;
      polls++;
      fn();
    } else if (armed) {
      const { atMs, fn } = armed;
      armed = undefined;
      nowMs = Math.max(nowMs + 0.05, atMs);
      fn();
    }
  }
  assert.equal(sentAt.length, dues.length);
  sentAt.forEach((at, i) => {
    const due = dues[i] ?? 0;
    assert.ok(at >= due && at - due < 0.1, `send ${i} at ${at} ms, due at ${due} ms`);
  });
  assert.equal(timeouts, 0, "no timer: the waker is slept on");
  assert.ok(polls <= dues.length * 12, `${polls} polls: only the last half millisecond is polled`);
});

test("a waker whose thread is gone refuses the wake: the scheduler sleeps on a timer instead", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout", "setImmediate", "Date"], now: 0 });
  const fired: number[] = [];
  let refused = 0;
  const scheduler = new SendScheduler<string>(
    mockClock,
    { count: 2, dueMs: (i) => 10 * (i + 1), fire: () => fired.push(Date.now()) },
    () => {},
    {
      ...GLOBAL_TIMERS,
      wakeAt: () => {
        refused++;
        return false;
      },
    },
    NO_POLLING,
  );
  scheduler.start();
  for (let ms = 0; ms < 30; ms++) t.mock.timers.tick(1);
  assert.deepEqual(fired, [10, 20]);
  assert.ok(refused >= 2, "the waker was asked first");
});
