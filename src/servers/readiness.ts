// A readiness that lies: the health route says ready before the model can
// answer. While the gate waits for a started server (its own check: /models
// lists the model and a real completion succeeds), it also asks the health
// route, and from the first 200 there it keeps every attempt's outcome until
// the first completion succeeds — the gap a load balancer that trusts the
// health route would route requests into.

import { compact, plural } from "../common/format.ts";

/** One readiness attempt after the health route said ready. */
export interface ReadinessAttempt {
  /** Seconds from the start command. */
  at_s: number;
  what: "models" | "completion";
  /** "ok", "HTTP 503 model_loading", "nothing answers"… */
  outcome: string;
}

/** Attempts kept after the health route said ready: the first ones tell the story. */
const MAX_ATTEMPTS = 20;

export class ReadinessWatch {
  /** When the health route first answered 200 (s from the start); null: not yet, or never. */
  healthAtS: number | null = null;
  readonly attempts: ReadinessAttempt[] = [];
  private readonly startedMs: number;

  constructor(startedMs: number) {
    this.startedMs = startedMs;
  }

  private nowS(): number {
    return Math.round(performance.now() - this.startedMs) / 1000;
  }

  health(status: number | null): void {
    if (this.healthAtS === null && status === 200) this.healthAtS = this.nowS();
  }

  attempt(what: ReadinessAttempt["what"], outcome: string): void {
    if (this.healthAtS === null || this.attempts.length >= MAX_ATTEMPTS) return;
    this.attempts.push({ at_s: this.nowS(), what, outcome });
  }
}

/** The gap between the health route's ready and the first answer, when something failed in it. */
export function readinessWarning(
  healthAtS: number | null,
  readyAtS: number,
  attempts: readonly ReadinessAttempt[],
): string | null {
  if (healthAtS === null) return null;
  const failed = attempts.filter((a) => a.outcome !== "ok");
  if (failed.length === 0) return null;
  const kinds = new Map<string, number>();
  for (const a of failed) {
    const key = `${a.what} ${a.outcome}`;
    kinds.set(key, (kinds.get(key) ?? 0) + 1);
  }
  const seen = [...kinds].map(([k, n]) => (n > 1 ? `${k} ×${n}` : k)).join(", ");
  return `a readiness that lies: /health answered 200 at ${compact(healthAtS)} s, but the first completion succeeded ${compact(readyAtS - healthAtS)} s later (${plural(failed.length, "attempt")} failed in between: ${seen}) — a load balancer trusting /health would send requests into that gap`;
}
