// Starting, checking and stopping the variants around the trials.
// restart: never — start each once before the first trial (both may be up,
// only one is under load); per-trial — start before each of its trials and
// stop after (a shared GPU, or to include cold effects).

import { connect } from "node:net";
import { join } from "node:path";
import { ARMS, type Arm } from "../common/arms.ts";
import { compact } from "../common/format.ts";
import type { Target } from "../openai/target.ts";
import { DRAIN_GRACE_S, DRAIN_STREAM_TIMEOUT_S, type DrainProbe, probeDrain } from "./drain.ts";
import { type ReadinessAttempt, readinessWarning } from "./readiness.ts";
import { ManagedServer, ServerError } from "./server.ts";

export type RestartPolicy = "never" | "per-trial";
export const RESTART_POLICIES: readonly RestartPolicy[] = ["never", "per-trial"];

export interface ServerCommands {
  start: string;
  stop: string | undefined;
}

/** How the gate manages the variants' servers (none when no start command is given). */
export interface ServerSettings {
  commands: Partial<Record<Arm, ServerCommands>>;
  restart: RestartPolicy;
  readyTimeoutS: number;
  logDir: string;
}

/** What a gate run asks of the servers around its trials. */
export interface Servers {
  readonly starts: StartRecord[];
  /** Started before each of their trials (and stopped after), not once for the run. */
  readonly perTrial: boolean;
  beforeAll(): Promise<void>;
  beforeTrial(arm: Arm): Promise<void>;
  afterTrial(arm: Arm, what: string): Promise<void>;
  stopAll(): Promise<void>;
  /** Stops a started arm with `streams` long streams in flight; null: the gate did not start it. */
  drain?(arm: Arm, streams: number): Promise<DrainProbe | null>;
}

export interface LifecycleOptions {
  commands: Partial<Record<Arm, ServerCommands>>;
  targets: Record<Arm, Target>;
  restart: RestartPolicy;
  readyTimeoutS: number;
  logDir: string;
  log: (line: string) => void;
  pollMs?: number;
  graceMs?: number;
}

export interface StartRecord {
  arm: Arm;
  start: number;
  pid: number | undefined;
  log: string;
  time_to_ready_s: number | null;
  cold_ttft_ms: number | null;
  /** When /health first answered 200, s from the start (null: not before ready, or not yet). */
  health_ready_s?: number | null;
  /** Every readiness attempt after /health said ready, until the first completion succeeded. */
  readiness_attempts?: ReadinessAttempt[];
  /** How the process ended, once it has. */
  exit: string | null;
  /** The stop with streams in flight, when the drain probe ran at it. */
  drain?: DrainProbe;
  warnings: string[];
}

export class ServerLifecycle implements Servers {
  readonly starts: StartRecord[] = [];
  private readonly options: LifecycleOptions;
  private readonly live = new Map<Arm, { server: ManagedServer; record: StartRecord }>();
  private readonly started: ManagedServer[] = [];
  private graceOverrideMs: number | undefined;

  constructor(options: LifecycleOptions) {
    this.options = options;
  }

  get perTrial(): boolean {
    return this.options.restart === "per-trial";
  }

  get managed(): boolean {
    return Object.keys(this.options.commands).length > 0;
  }

  /** Before the first trial: with restart never, bring every managed arm up. */
  async beforeAll(): Promise<void> {
    if (this.options.restart !== "never") return;
    for (const arm of ARMS) await this.up(arm);
  }

  async beforeTrial(arm: Arm): Promise<void> {
    if (this.options.restart === "per-trial") await this.up(arm);
    this.assertAlive(arm, "before its trial");
  }

  /** After a trial: a server that died during it ends the run; per-trial stops it. */
  async afterTrial(arm: Arm, what: string): Promise<void> {
    this.assertAlive(arm, `during ${what}`);
    if (this.options.restart === "per-trial") await this.down(arm);
  }

  async drain(arm: Arm, streams: number): Promise<DrainProbe | null> {
    const entry = this.live.get(arm);
    if (!entry) return null;
    const { server } = entry;
    const stop = async () => {
      // A drain takes its time: the usual grace would SIGKILL a server for draining.
      await this.down(arm, this.graceOverrideMs ?? DRAIN_GRACE_S * 1000);
      return server.exit ?? { code: null, signal: null };
    };
    const probe = await probeDrain(
      this.options.targets[arm],
      streams,
      stop,
      DRAIN_STREAM_TIMEOUT_S,
    );
    entry.record.drain = probe;
    return probe;
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.live.keys()].map((arm) => this.down(arm)));
  }

  /**
   * The job is being cancelled: later stops give a server 2 s, not the usual
   * grace, between SIGTERM and SIGKILL (GitHub sends SIGTERM 7.5 s after SIGINT).
   */
  hurry(): void {
    this.graceOverrideMs = 2000;
  }

  /** A second signal: SIGKILL every process group the gate started, at once. */
  killAll(): void {
    for (const server of this.started) server.kill();
  }

  private assertAlive(arm: Arm, when: string): void {
    const entry = this.live.get(arm);
    if (entry && !entry.server.running) {
      entry.record.exit = entry.server.describeExit();
      throw entry.server.failure(`exited ${when} (${entry.record.exit})`);
    }
  }

  private async up(arm: Arm): Promise<void> {
    const commands = this.options.commands[arm];
    if (!commands || this.live.has(arm)) return;
    const n = this.starts.filter((s) => s.arm === arm).length + 1;
    const logPath = join(this.options.logDir, `${arm}-${n}.log`);
    const server = new ManagedServer({
      arm,
      startCommand: commands.start,
      stopCommand: commands.stop,
      target: this.options.targets[arm],
      logPath,
      ...(this.options.pollMs ? { pollMs: this.options.pollMs } : {}),
      ...(this.options.graceMs ? { graceMs: this.options.graceMs } : {}),
    });
    // A server left over from an earlier run would answer the readiness check
    // while this command fails: say so before starting it.
    const stale = await portAnswers(this.options.targets[arm]);
    server.start();
    this.started.push(server);
    const record: StartRecord = {
      arm,
      start: n,
      pid: server.pid,
      log: logPath,
      time_to_ready_s: null,
      cold_ttft_ms: null,
      exit: null,
      warnings: [],
    };
    this.starts.push(record);
    this.live.set(arm, { server, record });
    if (stale) {
      record.warnings.push(
        `${this.options.targets[arm].baseUrl} already answered before the start command ran: a stale server may be the one that answers`,
      );
      this.options.log(`${arm}: warning: ${record.warnings.at(-1)}`);
    }
    this.options.log(
      `${arm}: started (pid ${server.pid}), log ${logPath}; waiting until ready (≤ ${this.options.readyTimeoutS} s)`,
    );
    try {
      const ready = await server.waitReady(this.options.readyTimeoutS);
      record.time_to_ready_s = Math.round(ready.timeToReadyS * 1000) / 1000;
      record.cold_ttft_ms = Math.round(ready.coldTtftMs * 1000) / 1000;
      record.health_ready_s = ready.healthReadyS;
      record.readiness_attempts = ready.afterHealth;
      const lie = readinessWarning(ready.healthReadyS, ready.timeToReadyS, ready.afterHealth);
      if (lie) {
        record.warnings.push(lie);
        this.options.log(`${arm}: warning: ${lie}`);
      }
      this.options.log(
        `${arm}: ready after ${compact(record.time_to_ready_s)} s, cold-start TTFT ${compact(record.cold_ttft_ms)} ms`,
      );
    } catch (error) {
      await this.down(arm);
      throw error;
    }
  }

  private async down(arm: Arm, graceMs = this.graceOverrideMs): Promise<void> {
    const entry = this.live.get(arm);
    if (!entry) return;
    this.live.delete(arm);
    await entry.server.stop(graceMs);
    entry.record.exit ??= entry.server.describeExit();
  }
}

export { ServerError };

/** Whether something accepts connections at the target's host and port already. */
function portAnswers(target: Target): Promise<boolean> {
  const url = new URL(target.baseUrl);
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port });
    const done = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(300, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** The lifecycle the settings ask for, or undefined when the gate starts nothing. */
export function lifecycleFor(
  settings: ServerSettings,
  targets: Record<Arm, Target>,
  log: (line: string) => void,
): ServerLifecycle | undefined {
  if (Object.keys(settings.commands).length === 0) return undefined;
  return new ServerLifecycle({ ...settings, targets, log });
}
