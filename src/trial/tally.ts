// What a trial keeps of each measured request as it finishes, beyond the
// recorder's histograms: output tokens the tokenizer counts when the server
// sent no usage, how each session ended and its TTFT by turn, the prompt
// tokens meant and counted, and when the last request ended.

import { median } from "simple-statistics";
import type { RequestRecord } from "../load/record.ts";
import type { TrialRecorder } from "../metrics/recorder.ts";
import type { TrialContext } from "../requests/line.ts";
import { sessionTurn, turnsIn, type Workload } from "../workload/plan.ts";
import { countedBy, intendedPromptTokens } from "../workload/prompts.ts";

export interface SessionSummary {
  turns: number;
  /** Measured sessions (those that started in the window). */
  started: number;
  /** Every turn ok. */
  completed: number;
  /** Ended by a failed turn (its later turns never fell due). */
  failed: number;
  /** Median TTFT (ms, from when the turn was due) of the ok requests of each turn; null: none. */
  ttft_p50_ms_by_turn: (number | null)[];
}

export class TrialTally {
  lastEndMs = Number.NaN;
  readonly prompt: { intended: number; server: number; requests: number; countedBy: string };
  private readonly ttftByTurn: number[][];
  private readonly ended = { completed: 0, failed: 0 };
  /** A dataset's prompts are counted once each (a tokenizer's encode is not free). */
  private readonly intendedOf = new Map<number, number>();
  private readonly workload: Workload;
  private readonly recorder: TrialRecorder;

  constructor(workload: Workload, recorder: TrialRecorder) {
    this.workload = workload;
    this.recorder = recorder;
    this.ttftByTurn = Array.from({ length: workload.spec.sessions?.turns ?? 1 }, () => []);
    this.prompt = { intended: 0, server: 0, requests: 0, countedBy: countedBy(workload.spec) };
  }

  /** A measured request has its outcome. */
  add = (r: RequestRecord): void => {
    const { tokenizer, sessions } = this.workload.spec;
    if (tokenizer && r.usageCompletionTokens === undefined && r.text !== undefined)
      r.countedCompletionTokens = tokenizer.count(r.text);
    // Only a session's next turn needs the text; nothing else keeps it.
    if (!sessions) r.text = undefined;
    this.recorder.add(r);
    if (sessions) this.addTurn(r);
    // A later turn's prompt is its history too, which the workload cannot know ahead.
    if (r.usagePromptTokens !== undefined && this.workload.turnOf[r.index] === 0) {
      this.prompt.intended += this.intended(r.index);
      this.prompt.server += r.usagePromptTokens;
      this.prompt.requests++;
    }
    if (!(r.endMs <= this.lastEndMs)) this.lastEndMs = r.endMs;
  };

  private addTurn(r: RequestRecord): void {
    const { session, turn } = sessionTurn(this.workload, r.index);
    if (r.outcome !== "ok") {
      this.ended.failed++;
      return;
    }
    this.ttftByTurn[turn]?.push(r.firstOutputMs - r.scheduledMs);
    if (turn === turnsIn(this.workload, session) - 1) this.ended.completed++;
  }

  /** What the requests file adds to a request's record: its session, turn and token intents. */
  context(
    r: RequestRecord,
    start: Pick<TrialContext, "startMs" | "startUnixMs" | "slo">,
  ): TrialContext {
    const w = this.workload;
    const turn = w.turnOf[r.index] ?? 0;
    return {
      ...start,
      session: w.sessionOf[r.index] ?? r.index,
      turn,
      requestedOutputTokens: w.maxTokens[r.index] || null,
      intendedPromptTokens: turn === 0 ? this.intended(r.index) : null,
    };
  }

  private intended(i: number): number {
    const e = this.workload.datasetIndex[i] ?? -1;
    if (e < 0) return intendedPromptTokens(this.workload, i);
    const known = this.intendedOf.get(e);
    if (known !== undefined) return known;
    const counted = intendedPromptTokens(this.workload, i);
    this.intendedOf.set(e, counted);
    return counted;
  }

  /** How the trial's sessions went; null without sessions. */
  sessions(): SessionSummary | null {
    const w = this.workload;
    if (!w.spec.sessions) return null;
    return {
      turns: w.spec.sessions.turns,
      started: w.scheduledCount - w.warmupSessions,
      ...this.ended,
      ttft_p50_ms_by_turn: this.ttftByTurn.map((xs) =>
        xs.length === 0 ? null : Math.round(median(xs) * 1000) / 1000,
      ),
    };
  }
}
