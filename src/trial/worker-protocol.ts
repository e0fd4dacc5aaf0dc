// What crosses between a split trial's main thread and its workers: the
// trial's options as a structured clone (no functions: a tokenizer travels as
// what it was built from, and each worker builds its own), and the messages.

import type { RequestRecord } from "../load/record.ts";
import type { LoadSlice, Progress } from "../load/run.ts";
import type { TrialContext } from "../requests/line.ts";
import { tokenCounter } from "../workload/tokens.ts";
import { WORDS } from "../workload/words.ts";
import type { TrialOptions } from "./measure.ts";
import type { TrialPartState } from "./parts.ts";

/** The options without the tokenizer's functions; the tokenizer's name and source beside them. */
export interface PortableOptions {
  options: TrialOptions;
  tokenizer: { name: string; source: { tokenizerJson: object; configJson: object } } | null;
}

/** What a worker is given for one trial. */
export interface WorkerStart {
  portable: PortableOptions;
  slice: LoadSlice;
  /** Whether the main thread wants each request's line (a requests file) and progress. */
  lines: boolean;
  progress: boolean;
}

/**
 * trial: the next trial to build and wait in (a worker serves trials one at a
 * time, from a pool); startAtNs: the schedule's zero on process.hrtime, the clock every thread
 * shares; startUnixMs: the same instant in Unix time, as the main thread reads it.
 */
export type ToWorker =
  | { type: "trial"; start: WorkerStart }
  | { type: "start"; startAtNs: bigint; startUnixMs: number }
  | { type: "cancel" };

export type FromWorker =
  | { type: "ready" }
  | { type: "progress"; progress: Progress }
  | { type: "lines"; lines: [RequestRecord, TrialContext][] }
  | { type: "part"; state: TrialPartState }
  | { type: "error"; message: string };

/** The options a worker can be sent: no metrics scraping (the main thread's), the tokenizer as its source. */
export function portableOptions(options: TrialOptions): PortableOptions {
  const t = options.workload.tokenizer;
  return {
    options: {
      ...options,
      serverMetrics: null,
      replicas: null,
      workload: { ...options.workload, tokenizer: undefined },
    },
    tokenizer: t ? { name: t.name, source: t.source } : null,
  };
}

/** The options again, in the worker: its own tokenizer built from the source. */
export function revivedOptions({ options, tokenizer }: PortableOptions): TrialOptions {
  if (!tokenizer) return options;
  const { tokenizerJson, configJson } = tokenizer.source;
  const counter = tokenCounter(tokenizer.name, tokenizerJson, configJson, WORDS);
  return { ...options, workload: { ...options.workload, tokenizer: counter } };
}
