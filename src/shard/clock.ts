// A machine's clock against a server's, from the server's `Date` header: the
// header's second changes at one moment of the server's clock, so a change
// seen between two answers brackets that moment on this machine's clock. A
// server may change its header late (uvicorn, under vLLM, every tenth tick of
// a 0.1 s loop), but it does so at the same moment for every client: shards
// that read the same server compare their clocks exactly to the bracket.

import { type Dispatcher, request } from "undici";
import { errorMessage } from "../common/errors.ts";
import { modelsUrl, requestHeaders, type Target } from "../openai/target.ts";

export interface ClockReading {
  /** The server's Date second minus this machine's clock at its change (ms); null: no change seen. */
  offset_ms: number | null;
  /** The offset is within ± this (ms): half the bracket. */
  within_ms: number | null;
  /** Answers read. */
  samples: number;
  /** Why there is no offset, when there is none. */
  note: string | null;
}

/** One answer: when it was asked and received on this clock (Unix ms), and its Date (Unix ms). */
export interface DateSample {
  sentMs: number;
  receivedMs: number;
  dateMs: number;
}

/**
 * The offset from the first change of the Date second: the server's clock
 * passed dateMs after it wrote the earlier answer (not before that answer was
 * asked) and before it wrote the later one (not after it was received).
 */
export function offsetOf(samples: readonly DateSample[]): ClockReading {
  for (let k = 1; k < samples.length; k++) {
    const [before, after] = [samples[k - 1], samples[k]];
    if (!before || !after || after.dateMs <= before.dateMs) continue;
    const earliest = before.sentMs;
    const latest = after.receivedMs;
    return {
      offset_ms: round(after.dateMs - (earliest + latest) / 2),
      within_ms: round((latest - earliest) / 2),
      samples: samples.length,
      note: after.dateMs - before.dateMs > 1000 ? "the Date header skipped a second" : null,
    };
  }
  return {
    offset_ms: null,
    within_ms: null,
    samples: samples.length,
    note: "no change of the Date second was seen",
  };
}

const round = (v: number) => Math.round(v * 100) / 100;

export interface ClockDeps {
  unixNowMs: () => number;
  dispatcher: Dispatcher;
}

/** Reads the target's Date header until its second changes (at most budgetMs, an answer every gapMs). */
export async function readClock(
  target: Target,
  deps: ClockDeps,
  budgetMs = 1500,
  gapMs = 5,
): Promise<ClockReading> {
  const headers = requestHeaders(target, false);
  const samples: DateSample[] = [];
  const endMs = deps.unixNowMs() + budgetMs;
  try {
    while (deps.unixNowMs() < endMs) {
      const sentMs = deps.unixNowMs();
      const res = await request(modelsUrl(target), {
        dispatcher: deps.dispatcher,
        headers: headers.authorization ? { authorization: headers.authorization } : {},
        signal: AbortSignal.timeout(budgetMs),
      });
      await res.body.dump();
      const receivedMs = deps.unixNowMs();
      const dateMs = Date.parse(String(res.headers.date ?? ""));
      if (!Number.isFinite(dateMs))
        return { ...offsetOf(samples), note: "the server's answers carry no Date header" };
      samples.push({ sentMs, receivedMs, dateMs });
      const reading = offsetOf(samples);
      if (reading.offset_ms !== null) return reading;
      await new Promise((r) => setTimeout(r, gapMs));
    }
  } catch (error) {
    return { ...offsetOf(samples), note: `the server could not be read: ${errorMessage(error)}` };
  }
  return offsetOf(samples);
}
