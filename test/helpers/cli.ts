// The CLI in a process of its own, awaited without blocking this one (the
// mocks a test started must go on answering), killed past a bound.

import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { SETTINGS, type Setting } from "../../src/config/settings.ts";

export const CLI = join(import.meta.dirname, "../../src/cli.ts");

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCliProcess(
  args: string[],
  killAfterMs: number,
  nodeArgs: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
  script: string = CLI,
): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    // "close", not "exit": the output is whole only once its streams have closed.
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A CLI process's run with its wall time and peak resident memory. */
export async function runCliMeasured(
  args: string[],
  killAfterMs: number,
  rssFile: string,
): Promise<CliRun & { seconds: number; peakRssMb: number }> {
  rmSync(rssFile, { force: true });
  const started = performance.now();
  const run = await runCliProcess(args, killAfterMs, ["--import", PEAK_RSS], {
    ...process.env,
    LPG_TEST_PEAK_RSS_FILE: rssFile,
  });
  const seconds = (performance.now() - started) / 1000;
  // A process killed before its exit handler wrote nothing: NaN fails any bound.
  const peakRssMb = existsSync(rssFile) ? Number(readFileSync(rssFile, "utf8")) / 1024 : Number.NaN;
  return { ...run, seconds, peakRssMb };
}

const PEAK_RSS = join(import.meta.dirname, "peak-rss.ts");

const SWITCHES = new Set<string>(
  (SETTINGS as readonly Setting[]).filter((s) => s.kind === "boolean").map((s) => s.name),
);

/** Settings as CLI flags: a switch for a boolean set to "true", `--name value` for the rest. */
export function flagsOf(settings: Record<string, string>): string[] {
  return Object.entries(settings).flatMap(([name, value]) =>
    SWITCHES.has(name) ? (value === "true" ? [`--${name}`] : []) : [`--${name}`, value],
  );
}

/** What fs.readFileSync throws for a missing file: an error with code ENOENT. */
export function missingFile(path: string): Error {
  return Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), {
    code: "ENOENT",
  });
}
