// Probes of the load generator itself over a trial: event-loop delay, GC
// pauses and client CPU. metrics/validity.ts judges them with the send skew.

import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { isMainThread } from "node:worker_threads";

let gcFunction: (() => void) | undefined;

/**
 * A full garbage collection, run before a trial and outside its measurement
 * (as benchmark harnesses do between iterations), so that a major GC that the
 * start-up left pending does not land in the window.
 */
export function collectGarbage(): void {
  if (!gcFunction) {
    setFlagsFromString("--expose-gc");
    gcFunction = runInNewContext("gc") as () => void;
  }
  gcFunction();
}

export interface ProbeReadings {
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  gc: { count: number; totalMs: number };
  cpu: { userMs: number; systemMs: number; wallMs: number; shareOfCore: number };
}

/**
 * The CPU the load generator spent: the process's on the main thread (its
 * waker and any in-process server included, as before workers), a worker's
 * own thread in a worker — each worker is judged on its own core.
 */
const cpuUsage = (since?: NodeJS.CpuUsage): NodeJS.CpuUsage =>
  isMainThread ? process.cpuUsage(since) : process.threadCpuUsage(since);

export interface Probes {
  stop(): ProbeReadings;
}

/** The event-loop monitor's timer period; its samples include this period, which is subtracted. */
const LOOP_RESOLUTION_MS = 10;

export function startProbes(): Probes {
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  loop.enable();
  let gcCount = 0;
  let gcMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcCount++;
      gcMs += entry.duration;
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  const cpu0 = cpuUsage();
  const wall0 = performance.now();
  return {
    stop() {
      loop.disable();
      for (const entry of observer.takeRecords()) {
        gcCount++;
        gcMs += entry.duration;
      }
      observer.disconnect();
      const cpu = cpuUsage(cpu0);
      const wallMs = performance.now() - wall0;
      const delayMs = (ns: number) =>
        Number.isFinite(ns) ? Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS) : 0;
      return {
        eventLoopDelayMs: {
          p50: delayMs(loop.percentile(50)),
          p99: delayMs(loop.percentile(99)),
          max: delayMs(loop.max),
        },
        gc: { count: gcCount, totalMs: gcMs },
        cpu: {
          userMs: cpu.user / 1000,
          systemMs: cpu.system / 1000,
          wallMs,
          shareOfCore: wallMs > 0 ? (cpu.user + cpu.system) / 1000 / wallMs : 0,
        },
      };
    },
  };
}
