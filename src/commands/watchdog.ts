// The event-loop watchdog: a worker thread that watches a heartbeat the main
// thread bumps every 200 ms. A loop blocked beyond the bound (a catastrophic
// regex, a parse that never yields) cannot end the run itself, so the worker
// does: it writes the results file — verdict error, naming the bound and the
// last thing the run logged — and kills the process.

import { Worker } from "node:worker_threads";

export interface Watchdog {
  /** The last thing the run did, in its log's words (already redacted). */
  phase(line: string): void;
  stop(): Promise<void>;
}

export interface WatchdogOptions {
  boundMs: number;
  resultsPath: string;
  /** The results file to write, its reason left as PLACEHOLDER. */
  template: string;
}

export const PLACEHOLDER = "@@watchdog-reason@@";
const BEAT_MS = 200;

/** Plain script, modules by getBuiltinModule: it runs as CommonJS or ESM, from the source or the bundle. */
const WORKER_SOURCE = `
const { parentPort, workerData } = process.getBuiltinModule("node:worker_threads");
const fs = process.getBuiltinModule("node:fs");
const { beat, boundMs, resultsPath, template, placeholder } = workerData;
let phase = "";
let seen = Atomics.load(beat, 0);
let since = Date.now();
parentPort.on("message", (m) => { phase = String(m).slice(0, 200); });
setInterval(() => {
  const now = Date.now();
  const count = Atomics.load(beat, 0);
  if (count !== seen) { seen = count; since = now; return; }
  if (now - since < boundMs) return;
  const reason = "the event loop was blocked for more than " + Math.round(boundMs / 1000) +
    " s" + (phase ? " (the run's last log line: " + phase + ")" : "") + ": the watchdog stopped the run";
  try {
    const text = template.split(placeholder).join(JSON.stringify(reason).slice(1, -1));
    fs.writeFileSync(resultsPath + ".watchdog", text);
    fs.renameSync(resultsPath + ".watchdog", resultsPath);
  } finally {
    fs.writeSync(2, "error: " + reason + "\\n");
    process.kill(process.pid, "SIGKILL");
  }
}, 250);
`;

export function startWatchdog(options: WatchdogOptions): Watchdog {
  const beat = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { ...options, beat, placeholder: PLACEHOLDER },
  });
  worker.unref();
  const timer = setInterval(() => Atomics.add(beat, 0, 1), BEAT_MS);
  timer.unref();
  return {
    phase: (line) => worker.postMessage(line),
    stop: async () => {
      clearInterval(timer);
      await worker.terminate();
    },
  };
}
