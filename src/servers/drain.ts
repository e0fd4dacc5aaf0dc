// Stopping a server the gate started is a probe: a few long streams are
// started, the stop runs while they are in flight, and each stream's end is
// recorded — completed (the server drained it) or cut, by class — with how
// the process ended and how long it took. Two arms' probes compared: a
// candidate that cuts streams the baseline completes, or ends uncleanly where
// the baseline did not, is a regression; cut on both is pre-existing.

import { Agent } from "undici";
import { plural } from "../common/format.ts";
import type { Outcome } from "../common/outcomes.ts";
import { sendOnce } from "../load/once.ts";
import { classify } from "../load/outcome.ts";
import type { RequestRecord } from "../load/record.ts";
import type { Target } from "../openai/target.ts";

export interface DrainStream {
  outcome: Outcome;
  /** It had streamed output when the stop began: the probe's evidence. */
  in_flight: boolean;
  output_chunks: number;
  finish_reason: string | null;
  /** What cut it, in the client's words. */
  detail: string | null;
}

/** How the process ended: its status, whether that is a clean stop, and how long it took. */
export interface StopExit {
  /** "exit code 0", "killed by SIGTERM", "exit code 134". */
  exit: string;
  /** Exit code 0, or ended by the SIGTERM it was sent; not a crash, an abort or the SIGKILL after the grace. */
  clean: boolean;
  /** From the stop's start until no process of its group was left. */
  seconds: number;
}

export interface DrainProbe extends StopExit {
  streams: DrainStream[];
}

/** Streams that long keep a server busy through its stop: about 20 s at 50 tokens/s. */
const STREAM_TOKENS = 1024;
/** How long the streams get to start before the stop runs anyway. */
const START_WAIT_MS = 30_000;
/** How long a stop may drain before its SIGKILL: the streams' time, and more. */
export const DRAIN_GRACE_S = 60;
/** Each stream's own limit: its start, the drain, and room to read its end. */
export const DRAIN_STREAM_TIMEOUT_S = START_WAIT_MS / 1000 + DRAIN_GRACE_S + 10;

/** A stream in flight that the stop ended without its answer (a timeout is the probe's, not the stop's). */
export const wasCut = (s: DrainStream): boolean =>
  s.in_flight && s.outcome !== "ok" && s.outcome !== "censored";

/** Signals a stop sends: a process ended by one of them stopped as asked. */
const STOP_SIGNALS: Record<number, string> = { 2: "SIGINT", 15: "SIGTERM" };

/**
 * The exit's words and whether it is clean, from the status Node reports: the
 * shell's, which is its command's (128 + n: the command was ended by signal n).
 */
export function exitOf(code: number | null, signal: string | null): Omit<StopExit, "seconds"> {
  if (signal)
    return { exit: `killed by ${signal}`, clean: signal === "SIGTERM" || signal === "SIGINT" };
  const bySignal = code !== null && code > 128 ? STOP_SIGNALS[code - 128] : undefined;
  if (bySignal) return { exit: `ended by ${bySignal} (exit code ${code})`, clean: true };
  return { exit: `exit code ${code}`, clean: code === 0 };
}

/** Until every stream has streamed output or ended, or waitMs passed. */
async function untilStreaming(records: readonly RequestRecord[], waitMs: number): Promise<void> {
  const until = performance.now() + waitMs;
  const started = (r: RequestRecord) => r.outputChunks > 0 || !Number.isNaN(r.endMs);
  while (performance.now() < until && !records.every(started)) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What cut a stream, in the client's words. */
function cutBy(r: RequestRecord, outcome: Outcome): string | null {
  if (outcome === "ok") return null;
  const said = r.transportError ?? r.streamError ?? r.protocolError;
  return said ?? (r.status !== 200 && r.status > 0 ? `HTTP ${r.status}` : null);
}

/**
 * `count` long streams on the target, then `stop` once each has streamed
 * output (or ended, or START_WAIT_MS passed); each stream's end once the stop
 * is done. timeoutS bounds every stream.
 */
export async function probeDrain(
  target: Target,
  count: number,
  stop: () => Promise<{ code: number | null; signal: string | null }>,
  timeoutS: number,
): Promise<DrainProbe> {
  const agent = new Agent({ headersTimeout: 0, bodyTimeout: 0, connections: count });
  const t = { ...target, ignoreEos: true };
  const records: RequestRecord[] = [];
  const ask = (i: number) => [
    { role: "user" as const, content: `Count from 1 to 2000, one number a line. (${i})` },
  ];
  const pending = Array.from({ length: count }, (_, i) =>
    sendOnce(t, agent, ask(i), STREAM_TOKENS, timeoutS * 1000, undefined, (r) => records.push(r)),
  );
  try {
    await untilStreaming(records, START_WAIT_MS);
    const inFlight = records.map((r) => Number.isNaN(r.endMs) && r.outputChunks > 0);
    const t0 = performance.now();
    const status = await stop();
    const seconds = Math.round(performance.now() - t0) / 1000;
    const done = await Promise.all(pending);
    return {
      ...exitOf(status.code, status.signal),
      seconds,
      streams: done.map((r, i) => {
        const outcome = classify(r);
        return {
          outcome,
          in_flight: inFlight[i] ?? false,
          output_chunks: r.outputChunks,
          finish_reason: r.finishReason ?? null,
          detail: cutBy(r, outcome),
        };
      }),
    };
  } finally {
    await agent.destroy();
  }
}

/** An arm's probe in a few words: "8 of 8 streams cut (truncated 8); exit code 134 after 0.2 s". */
export function describeDrain(p: DrainProbe): string {
  const inFlight = p.streams.filter((s) => s.in_flight);
  const cut = inFlight.filter(wasCut);
  const classes = new Map<Outcome, number>();
  for (const s of cut) classes.set(s.outcome, (classes.get(s.outcome) ?? 0) + 1);
  const by = [...classes].map(([o, n]) => `${o} ${n}`).join(", ");
  const streams =
    inFlight.length === 0
      ? "no stream was in flight at the stop"
      : `${cut.length} of ${plural(inFlight.length, "stream")} in flight cut${by ? ` (${by})` : ""}`;
  return `${streams}; ${p.exit}${p.clean ? "" : " (not a clean stop)"} after ${p.seconds} s`;
}

export type DrainVerdict = "pass" | "fail" | "inconclusive";

export interface DrainComparison {
  baseline: DrainProbe;
  candidate: DrainProbe;
  verdict: DrainVerdict;
  /** What was found, in words: a regression, a pre-existing cut, why nothing could be judged. */
  findings: string[];
}

const cutOf = (p: DrainProbe) => {
  const inFlight = p.streams.filter((s) => s.in_flight);
  return { cut: inFlight.filter(wasCut).length, of: inFlight.length };
};

/**
 * The candidate's stop against the baseline's: a larger share of its streams
 * in flight cut, or an unclean end where the baseline's was clean, fails;
 * cut or unclean on both is pre-existing (said, passed); no stream in flight
 * on either arm leaves it undecided.
 */
export function compareDrain(baseline: DrainProbe, candidate: DrainProbe): DrainComparison {
  const [b, c] = [cutOf(baseline), cutOf(candidate)];
  const findings: string[] = [];
  if (b.of === 0 || c.of === 0) {
    const arms = [b.of === 0 && "baseline", c.of === 0 && "candidate"]
      .filter(Boolean)
      .join(" and ");
    findings.push(
      `no stream was in flight when the ${arms} stopped (they ended before it, or never started): the drain cannot be judged`,
    );
    return { baseline, candidate, verdict: "inconclusive", findings };
  }
  const cutMore = c.cut / c.of > b.cut / b.of;
  const newlyUnclean = !candidate.clean && baseline.clean;
  const counts = `${b.cut} of ${b.of} → ${c.cut} of ${c.of}`;
  if (cutMore) findings.push(`drain.streams_cut: ${counts}`);
  if (newlyUnclean)
    findings.push(
      `the candidate's process ended ${candidate.exit} (the baseline's ${baseline.exit})`,
    );
  if (!cutMore && c.cut > 0) findings.push(`streams cut on both (${counts}): pre-existing`);
  if (!newlyUnclean && !candidate.clean)
    findings.push(
      `both processes ended uncleanly (${baseline.exit}, ${candidate.exit}): pre-existing`,
    );
  return { baseline, candidate, verdict: cutMore || newlyUnclean ? "fail" : "pass", findings };
}
