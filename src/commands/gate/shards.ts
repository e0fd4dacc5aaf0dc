// A sharded gate's edges: the plan's hash (of the configuration every shard
// and the merge must share), a shard's run and a merge's, the shards' results
// files found in the merge's directory (and its subdirectories, as an
// artifact download lays them out: one per artifact).

import { createHash } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { errorMessage, InputError } from "../../common/errors.ts";
import type { Config } from "../../config/config.ts";
import { MAX_SHARDS } from "../../config/shard.ts";
import type { GateRun } from "../../gate/gate-run.ts";
import type { GateDeps } from "../../gate/options.ts";
import { suitesOf } from "../../gate/suites.ts";
import { headlineFor } from "../../report/headline.ts";
import type { RequestsFileSummary } from "../../requests/file.ts";
import { trustResults } from "../../results/trust.ts";
import { MergeError, mergeShards, type ShardFile } from "../../shard/merge.ts";
import { runShard } from "../../shard/run.ts";
import { sectionProblem } from "../../shard/schema.ts";
import type { CommandIo } from "../io.ts";
import { describeConfig } from "./describe.ts";

/**
 * The hash of the plan: what every shard must share with the merge — the
 * endpoints, workload, seed, trials, limits and rule — not how each job
 * reports (fail-on, comment) nor its credentials (a merge sends nothing).
 */
export function planHash(config: Config): string {
  const { servers, fail_on, idle_timeout_s, baseline, candidate, ...plan } = describeConfig(config);
  const target = ({ api_key, headers, metrics, ...t }: typeof baseline) => t;
  const described = { ...plan, baseline: target(baseline), candidate: target(candidate) };
  return createHash("sha256").update(JSON.stringify(described)).digest("hex");
}

/** Files more than this are not one per shard; bytes more than this are not shards' parts. */
const MAX_FILES = 2 * MAX_SHARDS;
const MAX_TOTAL_BYTES = 1024 * 1024 * 1024;

/** The .json files in dir and its immediate subdirectories, sorted, the run's own results file left out. */
export function shardPaths(dir: string, own: string): string[] {
  const source = `merge-from = ${JSON.stringify(dir)}`;
  const list = (d: string) => {
    try {
      return readdirSync(d, { withFileTypes: true });
    } catch (error) {
      throw new InputError(
        `${source}: ${d} cannot be listed: ${errorMessage(error)}; expected a directory of shard results files`,
      );
    }
  };
  const paths: string[] = [];
  for (const e of list(dir)) {
    const path = join(dir, e.name);
    if (e.isFile() && e.name.endsWith(".json")) paths.push(path);
    else if (e.isDirectory())
      for (const f of list(path))
        if (f.isFile() && f.name.endsWith(".json")) paths.push(join(path, f.name));
    if (paths.length > MAX_FILES)
      throw new InputError(
        `${source} holds more than ${MAX_FILES} .json files; expected one per shard (at most ${MAX_SHARDS})`,
      );
  }
  const bytes = paths.reduce((n, p) => n + statSync(p).size, 0);
  if (bytes > MAX_TOTAL_BYTES)
    throw new InputError(
      `${source} holds ${Math.round(bytes / 2 ** 20)} MiB of .json files; the shards' files may weigh 1024 MiB together`,
    );
  return paths.filter((p) => resolve(p) !== resolve(own)).sort();
}

/** A shard's file read, validated as a results file and as a shard section, and neutralized; with its requests file. */
function readShard(
  name: string,
  io: Pick<CommandIo, "readFile">,
): { file: ShardFile; requests: RequestsFileSummary | null } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(io.readFile(name, "results file"));
  } catch (error) {
    throw new InputError(`${name} cannot be read as a shard results file: ${errorMessage(error)}`);
  }
  if (typeof parsed !== "object" || parsed === null || !("shard" in parsed)) {
    const guard = trustedGuard(parsed);
    throw new InputError(
      `${name} is not a shard's results file (it has no shard section)${guard ? `: its run ended ${guard}` : ""}`,
    );
  }
  // Checked as written (neutralizing changes text, the schema's name too), then read neutralized.
  const problem = sectionProblem(parsed.shard);
  if (problem) throw new InputError(`${name} is not a shard's results file: ${problem}`);
  const results = trustResults(parsed, name, headlineFor);
  if (!results.shard) throw new Error("internal error: a shard section lost in reading");
  return {
    file: {
      name,
      section: results.shard,
      results: {
        trials: results.trials,
        preflight: results.preflight,
        suites: suitesOf(results),
      },
    },
    requests: results.requests_file ?? null,
  };
}

/** What a results file without a shard section says of how its run ended (a crashed shard's placeholder). */
function trustedGuard(parsed: unknown): string | null {
  try {
    const r = trustResults(parsed, "file", headlineFor);
    const g = r.guards[0];
    return g ? `${r.verdict}: ${g.message}` : null;
  } catch {
    return null;
  }
}

/** The merge of the shards in merge-from, decided, with the shards' requests files; a set that does not merge is an InputError naming the file. */
export function mergeRun(
  config: Config,
  dir: string,
  io: Pick<CommandIo, "readFile">,
  at: { now: Date; resultsPath: string },
): { run: GateRun; requestsFiles: RequestsFileSummary[] } {
  const read = shardPaths(dir, at.resultsPath).map((name) => readShard(name, io));
  const files = read.map((r) => r.file);
  try {
    const run = mergeShards(config.gate, planHash(config), files, { where: dir, now: at.now });
    // A merge sends no request: the evidence is in each shard's own requests file.
    return { run, requestsFiles: read.flatMap((r) => (r.requests ? [r.requests] : [])) };
  } catch (error) {
    if (error instanceof MergeError) throw new InputError(error.message);
    throw error;
  }
}

/** One shard's run, and what its results file adds for the merge. */
export function shardRun(config: Config, deps: GateDeps) {
  const shard = config.gate.shard;
  if (!shard) throw new Error("internal error: a shard run without a shard");
  return runShard(config.gate, shard, planHash(config), deps);
}
