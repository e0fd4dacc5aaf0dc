// One variant's server process, started by a user's shell command in its own
// process group with its output in a log file; ready only when /models lists
// the model AND a real one-token completion succeeds; stopped by the user's
// stop command or SIGTERM to the group, then SIGKILL after a grace period.

import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync, type WriteStream } from "node:fs";
import { dirname } from "node:path";
import { Agent } from "undici";
import type { Arm } from "../common/arms.ts";
import type { Target } from "../openai/target.ts";
import {
  type CompletionProbe,
  healthStatus,
  listModels,
  type ModelsAnswer,
  probeCompletion,
} from "./probe.ts";
import { type ReadinessAttempt, ReadinessWatch } from "./readiness.ts";

/** A server the gate started failed; the message is one line, the log tail apart. */
export class ServerError extends Error {
  override name = "ServerError";
  readonly arm: Arm;
  readonly logTail: string;

  constructor(arm: Arm, message: string, logTail: string) {
    super(message);
    this.arm = arm;
    this.logTail = logTail;
  }
}

export interface Readiness {
  /** From the start command to the first successful completion. */
  timeToReadyS: number;
  /** TTFT of that first real completion: the cold start. */
  coldTtftMs: number;
  /** When /health first answered 200 (s from the start); null: it never did before ready. */
  healthReadyS: number | null;
  /** Every attempt after /health said ready, until the first completion succeeded. */
  afterHealth: ReadinessAttempt[];
}

export interface ServerOptions {
  arm: Arm;
  startCommand: string;
  stopCommand: string | undefined;
  target: Target;
  logPath: string;
  /** Between readiness probes. */
  pollMs?: number;
  /** SIGTERM → SIGKILL. */
  graceMs?: number;
}

const TAIL_LINES = 20;

export class ManagedServer {
  readonly options: ServerOptions;
  private child: ChildProcess | undefined;
  private log: WriteStream | undefined;
  private startedMs = 0;
  private stopped = false;
  exit: { code: number | null; signal: string | null } | undefined;
  /** Resolves when the started command's exit (or its failure to start) is known. */
  private ended: Promise<void> = Promise.resolve();

  constructor(options: ServerOptions) {
    this.options = options;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.exit === undefined;
  }

  start(): void {
    mkdirSync(dirname(this.options.logPath), { recursive: true });
    this.log = createWriteStream(this.options.logPath, { flags: "a" });
    this.exit = undefined;
    this.stopped = false;
    this.startedMs = performance.now();
    // detached: the command and everything it starts form one process group we can stop.
    // The shell outlives the group's SIGTERM until its command ends, then exits with the
    // command's status: the server's own exit (134: an abort) rather than the shell's death.
    const child = spawn(
      "/bin/sh",
      ["-c", `trap 'exit $?' TERM INT\n${this.options.startCommand}`],
      {
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    child.stdout?.pipe(this.log, { end: false });
    child.stderr?.pipe(this.log, { end: false });
    this.ended = new Promise<void>((resolve) => {
      child.once("exit", (code, signal) => {
        this.exit = { code, signal };
        resolve();
      });
      child.once("error", (error) => {
        this.log?.write(`\n[llm-perf-gate] could not start: ${error.message}\n`);
        this.exit ??= { code: null, signal: null };
        resolve();
      });
    });
    this.child = child;
  }

  /** The last lines of the log, for error messages. */
  logTail(lines = TAIL_LINES): string {
    try {
      const text = readFileSync(this.options.logPath, "utf8").trimEnd();
      return text.split(/\r?\n/).slice(-lines).join("\n");
    } catch {
      return "(no log)";
    }
  }

  describeExit(): string {
    const e = this.exit;
    if (!e) return "running";
    return e.signal ? `killed by ${e.signal}` : `exit code ${e.code}`;
  }

  failure(what: string): ServerError {
    const { arm, logPath } = this.options;
    return new ServerError(arm, `${arm} server ${what}; log ${logPath}`, this.logTail());
  }

  async waitReady(timeoutS: number): Promise<Readiness> {
    const { target } = this.options;
    const pollMs = this.options.pollMs ?? 1000;
    const deadline = this.startedMs + timeoutS * 1000;
    const agent = new Agent({ headersTimeout: 0, bodyTimeout: 0 });
    let models: ModelsAnswer | undefined;
    let probe: CompletionProbe | undefined;
    const listed = () => models?.kind === "listed" && models.ids.includes(target.model);
    const watch = new ReadinessWatch(this.startedMs);
    try {
      for (;;) {
        if (this.exit) throw this.failure(`exited before it was ready (${this.describeExit()})`);
        const leftMs = deadline - performance.now();
        if (leftMs <= 0) {
          throw this.failure(
            `was not ready after ${timeoutS} s (${notReadyBecause(target, models, probe)})`,
          );
        }
        if (watch.healthAtS === null)
          watch.health(await healthStatus(target, agent, Math.min(2000, leftMs)));
        if (!listed()) {
          models = await listModels(target, agent, Math.min(10_000, leftMs));
          if (!listed()) watch.attempt("models", notReadyBecause(target, models, undefined));
        }
        if (listed()) {
          probe = await probeCompletion(target, agent, 1, Math.max(1000, leftMs));
          const ok = probe.outcome === "ok" && probe.ttftMs !== undefined;
          watch.attempt("completion", ok ? "ok" : probeWords(probe));
          if (ok && probe.ttftMs !== undefined) {
            return {
              timeToReadyS: (performance.now() - this.startedMs) / 1000,
              coldTtftMs: probe.ttftMs,
              healthReadyS: watch.healthAtS,
              afterHealth: watch.attempts,
            };
          }
        }
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    } finally {
      await agent.close();
    }
  }

  /** Stops the whole process group: the stop command if any, SIGTERM, then SIGKILL after the grace period. */
  /** SIGKILL to the whole group, now: the job is being killed, no grace is left. */
  kill(): void {
    this.signalGroup("SIGKILL");
  }

  async stop(graceOverrideMs?: number): Promise<void> {
    if (!this.child) return;
    const graceMs = graceOverrideMs ?? this.options.graceMs ?? 10_000;
    if (this.options.stopCommand && !this.stopped) {
      await new Promise<void>((resolve) => {
        execFile("/bin/sh", ["-c", this.options.stopCommand as string], { timeout: graceMs }, () =>
          resolve(),
        );
      });
    }
    this.stopped = true;
    this.signalGroup("SIGTERM");
    if (!(await this.groupGone(graceMs))) {
      this.signalGroup("SIGKILL");
      await this.groupGone(2000);
    }
    // The group is gone; the shell's exit event may trail it by a moment: its status is the stop's.
    await Promise.race([this.ended, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    this.log?.end();
  }

  /** Waits until no process of the group is left; false on timeout. */
  private async groupGone(timeoutMs: number): Promise<boolean> {
    const pid = this.child?.pid;
    if (pid === undefined) return true;
    const until = performance.now() + timeoutMs;
    for (;;) {
      try {
        process.kill(-pid, 0);
      } catch {
        return true;
      }
      if (performance.now() > until) return false;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // the group is already gone
    }
  }
}

/** A failed completion probe in a few words: "HTTP 503 model_loading". */
function probeWords(p: CompletionProbe): string {
  const status = p.status > 0 ? `HTTP ${p.status}` : p.outcome;
  return [status, p.errorCode ?? p.errorType].filter(Boolean).join(" ");
}

/** Why a started server is not ready yet, from its last answers. */
function notReadyBecause(
  target: Target,
  models: ModelsAnswer | undefined,
  probe: CompletionProbe | undefined,
): string {
  if (models === undefined || models.kind === "unreachable") return "nothing answers at its URL";
  if (models.kind === "http") return `GET /models answers HTTP ${models.status}`;
  if (models.kind === "not_json") return "GET /models does not answer JSON";
  if (!models.ids.includes(target.model))
    return `/models does not list ${target.model}; it lists: ${models.ids.join(", ") || "nothing"}`;
  if (probe?.outcome === "empty")
    return "/models lists the model, but a completion came back 200 with empty content";
  const what = probe ? `${probe.outcome}${probe.status ? ` (HTTP ${probe.status})` : ""}` : "";
  return `/models lists the model but a completion fails: ${what}`;
}
