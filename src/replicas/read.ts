// One reading of a replica count, bounded: a query or a page within a byte cap
// and a deadline, a command killed at its deadline with its output capped. A
// reading that is not a whole number of replicas is an error naming what came.

import { spawn } from "node:child_process";
import { request } from "undici";
import { readCappedBody } from "../common/body.ts";
import { parseExposition } from "../servermetrics/parse.ts";
import type { ReplicasSource } from "./source.ts";

/** A reading's deadline: a sampler reads once a second. */
export const READ_TIMEOUT_MS = 3000;
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const MAX_OUTPUT_BYTES = 4096;
/** More replicas than this is not a count but nonsense. */
const MAX_REPLICAS = 100_000;

/** GETs a URL's body as text (tests: a stand-in). */
export type FetchText = (url: string, timeoutMs: number) => Promise<string>;
/** Runs a shell command and gives its standard output (tests: a stand-in). */
export type RunCommand = (command: string, timeoutMs: number) => Promise<string>;

export interface ReadDeps {
  fetchText: FetchText;
  runCommand: RunCommand;
}

export const fetchText: FetchText = async (url, timeoutMs) => {
  // One deadline for the whole reading, connecting included (a blackholed host).
  const res = await request(url, {
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw new Error(`answered HTTP ${res.statusCode}`);
  }
  return (await readCappedBody(res.body, MAX_BODY_BYTES, timeoutMs)).toString("utf8");
};

export const runCommand: RunCommand = (command, timeoutMs) =>
  new Promise((resolve, reject) => {
    // Its own process group: a pipeline's children (kubectl … | jq) end with it.
    const child = spawn("sh", ["-c", command], {
      stdio: ["ignore", "pipe", "ignore"],
      detached: true,
    });
    let out = "";
    const timer = setTimeout(() => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
      child.stdout.destroy();
      reject(new Error(`did not end within ${timeoutMs} ms`));
    }, timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => {
      if (out.length < MAX_OUTPUT_BYTES) out += chunk.toString("utf8");
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`exited with status ${code}`));
    });
  });

export const REAL_READ: ReadDeps = { fetchText, runCommand };

/** What came, as an error quotes it: short, one line. */
const quoted = (text: string) => JSON.stringify(text.trim().replace(/\s+/g, " ").slice(0, 40));

/** A count: a whole number of replicas, or an error naming what came. */
function countOf(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 0 || value > MAX_REPLICAS)
    throw new Error(`${what}, not a count of replicas (a whole number from 0 to ${MAX_REPLICAS})`);
  return value;
}

/** An instant query's answer: one number (a scalar, or a vector's values summed). */
function promValue(body: string): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new Error(`answered ${quoted(body)}, not Prometheus's JSON`);
  }
  const data = isRecord(parsed) && parsed.status === "success" ? parsed.data : undefined;
  if (!isRecord(data)) throw new Error(`answered ${quoted(body)}, not a successful query`);
  const values =
    data.resultType === "scalar"
      ? [data.result]
      : Array.isArray(data.result)
        ? data.result.map((r: unknown) => (isRecord(r) ? r.value : undefined))
        : [];
  if (values.length === 0)
    throw new Error("answered no series (does the query name the deployment?)");
  const sum = values.reduce<number>(
    (s, v) => s + (Array.isArray(v) ? Number(v[1]) : Number.NaN),
    0,
  );
  return countOf(
    sum,
    `answered ${quoted(JSON.stringify(values.map((v) => (Array.isArray(v) ? v[1] : v))))}`,
  );
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The metric's samples summed over the page. */
function metricValue(page: string, name: string): number {
  const families = [...parseExposition(page, (n) => n === name).families.values()];
  const samples = families.flatMap((f) => f.samples.filter((s) => s.name === name));
  if (samples.length === 0) throw new Error(`has no metric ${name}`);
  const sum = samples.reduce((s, x) => s + x.value, 0);
  return countOf(sum, `has ${name} = ${sum}`);
}

/** One reading of the source; throws an error that names what went wrong (not the source: the caller names it). */
export async function readReplicas(source: ReplicasSource, deps: ReadDeps): Promise<number> {
  if (source.kind === "prom") return promValue(await deps.fetchText(source.url, READ_TIMEOUT_MS));
  if (source.kind === "metric")
    return metricValue(await deps.fetchText(source.url, READ_TIMEOUT_MS), source.name);
  const out = await deps.runCommand(source.command, READ_TIMEOUT_MS);
  const text = out.trim();
  if (!/^[0-9]+$/.test(text)) throw new Error(`printed ${quoted(out)}, not an integer`);
  return countOf(Number(text), `printed ${quoted(out)}`);
}
