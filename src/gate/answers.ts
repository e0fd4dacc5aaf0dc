// Items answered by an arm apart from the trials (accuracy's, the judge's):
// the arm's server made ready, the items run at a bounded concurrency, the
// server checked after, and each exchange written to the requests file as a
// run of its own, labelled by what it was.

import type { Exchange } from "../accuracy/http.ts";
import { exchangeOutcome } from "../accuracy/http.ts";
import type { AccuracyRunOptions, ArmReplies, AskedItem } from "../accuracy/run.ts";
import { runItems } from "../accuracy/run.ts";
import type { Arm } from "../common/arms.ts";
import { plural } from "../common/format.ts";
import { apartLine, type RequestLine } from "../requests/line.ts";
import type { GateDeps, GateOptions } from "./options.ts";
import type { SuiteContext } from "./suite.ts";

/** A run not made. */
export const NO_REPLIES: ArmReplies = { replies: [], seconds: 0, logprobs: false, startUnixMs: 0 };

/** A run's exchanges as requests-file lines: one more run of the gate (`trial`), labelled by what it was. */
export function writeLines(
  write: (line: RequestLine) => void,
  trial: number,
  run: {
    arm: Arm;
    label: string;
    startUnixMs: number;
    sent: {
      id: string;
      exchange: Exchange;
      error: string | null;
      finishReason: string | null;
      maxTokens: number;
    }[];
  },
  indexOf: Map<string, number>,
): void {
  const tag = { trial, label: run.label, arm: run.arm, pair: null, attempt: null };
  for (const r of run.sent) {
    const e = r.exchange;
    write(
      apartLine(
        tag,
        {
          index: indexOf.get(r.id) ?? 0,
          sentMs: e.sentMs,
          headersMs: e.headersMs,
          endMs: e.endMs,
          status: e.status,
          outcome: exchangeOutcome(e, r.error),
          finishReason: r.finishReason,
          error: r.error,
          promptTokens: e.promptTokens,
          completionTokens: e.completionTokens,
          requestedTokens: r.maxTokens,
          resends: e.attempts - 1,
        },
        run.startUnixMs,
      ),
    );
  }
}

/** What a suite's answering runs share. */
export interface AnswerRun {
  /** The suite's name, in the log and the requests file's labels. */
  suite: string;
  concurrency: number;
  runOptions: (arm: Arm) => AccuracyRunOptions;
  /** Each item's place in its suite (the requests file's index). */
  indexOf: Map<string, number>;
}

/** One arm answers `list` (`what`: "" the first time, else why again); nothing after a cancel. */
export async function answerOn(
  options: GateOptions,
  deps: GateDeps,
  at: SuiteContext,
  run: AnswerRun,
  one: { arm: Arm; list: readonly AskedItem[]; what: string },
): Promise<ArmReplies> {
  const { arm, list, what } = one;
  // After a cancel no server is started for a run that will not be made.
  if (deps.signal?.aborted || list.length === 0) return NO_REPLIES;
  await deps.servers?.beforeTrial(arm);
  at.log(
    `${run.suite}: ${plural(list.length, "item")} on the ${arm}${what}, ${run.concurrency} at a time`,
  );
  const replies = await (deps.runItems ?? runItems)(options[arm].target, list, run.runOptions(arm));
  await deps.servers?.afterTrial(arm, `the ${run.suite} suite`);
  if (deps.requestLine && !deps.signal?.aborted) {
    const tokens = new Map(list.map((i) => [i.id, i.maxTokens]));
    const sent = replies.replies.map((r) => ({ ...r, maxTokens: tokens.get(r.id) ?? 0 }));
    const label = `${run.suite} ${arm}${what ? " again" : ""}`;
    writeLines(
      deps.requestLine,
      at.nextTrial(),
      { arm, label, startUnixMs: replies.startUnixMs, sent },
      run.indexOf,
    );
  }
  return replies;
}
