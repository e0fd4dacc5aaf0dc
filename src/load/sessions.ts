// Multi-turn sessions inside a trial: the first turns are on the schedule;
// each later turn is due think-time after the turn before it ended and
// carries the session's history (the user messages sent and the answers
// received). A failed turn, or the trial's hard stop, ends its session: its
// later turns never fall due.

import type { ChatMessage } from "../openai/target.ts";
import { sessionTurn, turnIndex, turnsIn, type Workload } from "../workload/plan.ts";
import { messagesFor, turnMessages } from "../workload/prompts.ts";
import type { RequestRecord } from "./record.ts";

/** What follows a finished turn: its session's next turn, or how many turns will never be due. */
export type AfterTurn = { next: { index: number; dueMs: number } } | { neverDue: number };

export class SessionTracker {
  /** Each live session's messages so far. */
  private readonly histories = new Map<number, ChatMessage[]>();
  /** A later turn's own user message, as sent (the history takes it once the answer is in). */
  private readonly sentUser = new Map<number, ChatMessage>();

  private readonly workload: Workload;
  private readonly thinkMs: number;

  constructor(workload: Workload, thinkMs: number) {
    this.workload = workload;
    this.thinkMs = thinkMs;
  }

  /** The messages request i sends: its own, after its session's history for a later turn. */
  messages(i: number): ChatMessage[] {
    const w = this.workload;
    if (w.turnOf[i] === 0) return messagesFor(w, i);
    const messages = turnMessages(w, i, this.histories.get(w.sessionOf[i] ?? -1) ?? []);
    const own = messages.at(-1);
    if (own) this.sentUser.set(i, own);
    return messages;
  }

  /** Records a finished turn; says what comes next in its session. */
  ended(r: RequestRecord, hardStopped: boolean): AfterTurn {
    const { session, turn } = sessionTurn(this.workload, r.index);
    const own = turnsIn(this.workload, session);
    if (turn + 1 >= own) {
      this.histories.delete(session);
      return { neverDue: 0 };
    }
    if (r.outcome !== "ok" || hardStopped) {
      this.histories.delete(session);
      this.sentUser.delete(r.index);
      return { neverDue: own - turn - 1 };
    }
    const history = this.histories.get(session) ?? [];
    const asked = turn === 0 ? messagesFor(this.workload, r.index) : this.takeSent(r.index);
    history.push(...asked, { role: "assistant", content: r.text ?? "" });
    this.histories.set(session, history);
    return {
      next: { index: turnIndex(this.workload, session, turn + 1), dueMs: r.endMs + this.thinkMs },
    };
  }

  private takeSent(i: number): ChatMessage[] {
    const m = this.sentUser.get(i);
    this.sentUser.delete(i);
    return m ? [m] : [];
  }
}
