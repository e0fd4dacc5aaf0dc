// What every command needs from its process, passed in (tests pass their
// own): output, the environment, files, signals and the exit; and what every
// command does with them — secrets redacted from everything it prints, a
// first signal that cancels and a second that exits, output paths checked
// before any work.

import { errorMessage, InputError } from "../common/errors.ts";
import type { ReadFile } from "../common/files.ts";
import { checkWritable } from "../common/outputs.ts";
import { type Redact, redactor } from "../common/redact.ts";
import type { OpenWriteStream } from "../requests/file.ts";

export type Env = Record<string, string | undefined>;

export interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Env;
  readFile: ReadFile;
  writeFile(path: string, text: string): void;
  /** Throws when a path could not be written, without touching it (the file system's check by default). */
  checkWritable?: (path: string) => void;
  /** SIGINT and SIGTERM (PROCESS_SIGNALS by default). */
  signals?: Signals;
  /** Ends the process after a second signal (process.exit by default). */
  exit?: (code: number) => void;
  /** The wall clock. */
  now?: () => Date;
  /** Opens a file to stream into (the requests file): the real file system by default. */
  openWriteStream?: OpenWriteStream;
}

/** Where cancellation comes from: the runner's SIGINT and SIGTERM, in production. */
export interface Signals {
  /** Calls onSignal on each signal; returns what stops listening. */
  listen(onSignal: (signal: NodeJS.Signals) => void): () => void;
}

export const PROCESS_SIGNALS: Signals = {
  listen(onSignal) {
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    return () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    };
  },
};

/** The exit code of a process ended by a signal. */
export const signalExitCode = (signal: string): number => (signal === "SIGINT" ? 130 : 143);

/** The same io with every secret redacted from what it prints. */
export function redacting(
  io: CommandIo,
  secrets: readonly string[],
): CommandIo & { redact: Redact } {
  const redact = redactor(secrets);
  return {
    ...io,
    redact,
    stdout: (text) => io.stdout(redact(text)),
    stderr: (text) => io.stderr(redact(text)),
  };
}

export interface Cancellation {
  /** Aborted at the first signal (its reason: the signal's name). */
  signal: AbortSignal;
  /** Stops listening. */
  release(): void;
}

/**
 * The first signal cancels (onFirst runs, then the signal aborts): the
 * command stops starting work and writes what it has. A second one (GitHub's
 * SIGTERM 7.5 s after its SIGINT) runs onSecond and exits at once.
 */
export function listenForCancel(
  io: Pick<CommandIo, "signals" | "exit">,
  hooks: { onFirst?(signal: string): void; onSecond?(signal: string): void } = {},
): Cancellation {
  const controller = new AbortController();
  let count = 0;
  const release = (io.signals ?? PROCESS_SIGNALS).listen((signal) => {
    if (++count === 1) {
      hooks.onFirst?.(signal);
      controller.abort(signal);
      return;
    }
    hooks.onSecond?.(signal);
    (io.exit ?? ((code) => process.exit(code)))(signalExitCode(signal));
  });
  return { signal: controller.signal, release };
}

/** Runs `body` with a cancellation that is released however it ends. */
export async function withCancel<T>(
  io: Pick<CommandIo, "signals" | "exit">,
  hooks: Parameters<typeof listenForCancel>[1],
  body: (cancel: Cancellation) => Promise<T>,
): Promise<T> {
  const cancel = listenForCancel(io, hooks);
  try {
    return await body(cancel);
  } finally {
    cancel.release();
  }
}

/**
 * Checks that an output path can be written, before the first request:
 * `flag` names it. A file already there is left as it is (a good report from
 * an earlier run stays until this one has its own).
 */
export function probeWritable(
  io: Pick<CommandIo, "checkWritable">,
  flag: string,
  path: string | undefined,
): void {
  if (path === undefined) return;
  try {
    (io.checkWritable ?? checkWritable)(path);
  } catch (error) {
    throw new InputError(
      `${flag} ${JSON.stringify(path)} cannot be written: ${errorMessage(error)}`,
    );
  }
}

/** Writes an output whole; a failure (a full disk, a removed folder) names the flag and the path. */
export function writeNamed(
  io: Pick<CommandIo, "writeFile">,
  flag: string,
  path: string,
  text: string,
): void {
  try {
    io.writeFile(path, text);
  } catch (error) {
    throw new Error(`${flag} ${JSON.stringify(path)} could not be written: ${errorMessage(error)}`);
  }
}
