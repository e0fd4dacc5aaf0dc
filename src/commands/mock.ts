// `llm-perf-gate mock`: the built-in OpenAI-compatible mock server, until
// SIGINT or SIGTERM (or, started by another process, until its stdin closes).
// Exit 3 when its crashAfterRequests knob crashed it.

import { errorMessage, InputError } from "../common/errors.ts";
import { lines, type RawSettings, readBoolean, readNumber, value } from "../config/settings.ts";
import { DEFAULT_PROFILE, type MockProfile } from "../mock/profile.ts";
import { mergeProfile, parseOverrides } from "../mock/profile-merge.ts";
import { startMockServer } from "../mock/server.ts";
import { type CommandIo, listenForCancel } from "./io.ts";

function loadProfile(io: CommandIo, raw: RawSettings): MockProfile {
  let profile = DEFAULT_PROFILE;
  const path = typeof raw.profile === "string" ? raw.profile : undefined;
  if (path !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(io.readFile(path, "mock profile"));
    } catch (error) {
      throw new InputError(`--profile ${path}: cannot read a JSON profile: ${errorMessage(error)}`);
    }
    profile = mergeProfile(profile, parsed, `--profile ${path}`);
  }
  const sets = lines(raw, "set");
  if (sets.length > 0) profile = mergeProfile(profile, parseOverrides(sets), "--set");
  return profile;
}

export async function mockCli(raw: RawSettings, io: CommandIo): Promise<number> {
  const port = readNumber(raw, "port");
  const host = value(raw, "host") ?? "127.0.0.1";
  const profile = loadProfile(io, raw);
  const server = await startMockServer({ profile, port, host });
  // The signal handlers are in place before the URL is announced: a supervisor that reads
  // the line and stops the server at once gets a stop, not the default SIGTERM death.
  const stopped = new Promise<number>((resolve) => {
    const stop = (why: string) => {
      io.stdout(`received ${why}, stopping the mock server\n`);
      cancel.release();
      server.stop().then(
        () => resolve(profile.stopExitCode),
        () => resolve(profile.stopExitCode),
      );
    };
    const cancel = listenForCancel(io, { onFirst: stop });
    // Started by another process (the demo): it goes when that process goes, however it ends.
    if (readBoolean(raw, "stop-when-stdin-closes")) {
      process.stdin.on("close", () => stop("the end of standard input"));
      process.stdin.resume();
    }
    server.crashed.then(() => {
      io.stderr(
        `crashed at completion request ${profile.crashAfterRequests} (crashAfterRequests)\n`,
      );
      cancel.release();
      resolve(3);
    });
  });
  io.stdout(`mock LLM server listening on ${server.url} (models: ${profile.models.join(", ")})\n`);
  return await stopped;
}
