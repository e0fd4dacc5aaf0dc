// A sharded gate's edges: the plan's hash (of the configuration every shard
// and the merge must share), a shard's run and a merge's, the shards' results
// files found in the merge's directory (and its subdirectories, as an
// artifact download lays them out: one per artifact).

import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { errorMessage, InputError } from "../../common/errors.ts";
import type { Config } from "../../config/config.ts";
import type { GateRun } from "../../gate/gate-run.ts";
import { MergeError, mergeShards, type ShardFile } from "../../gate/merge.ts";
import type { GateDeps } from "../../gate/options.ts";
import { runShard } from "../../gate/shard.ts";
import type { CommandIo } from "../io.ts";
import { describeConfig } from "./describe.ts";

/** The configuration's hash: the plan every shard runs a slice of. */
export function planHash(config: Config): string {
  return createHash("sha256")
    .update(JSON.stringify(describeConfig(config)))
    .digest("hex");
}

const MAX_FILES = 1000;

/** The .json files in dir and its immediate subdirectories, sorted. */
export function shardPaths(dir: string): string[] {
  const list = (d: string) => readdirSync(d, { withFileTypes: true });
  let entries: ReturnType<typeof list>;
  try {
    entries = list(dir);
  } catch (error) {
    throw new InputError(
      `merge-from = ${JSON.stringify(dir)} cannot be listed: ${errorMessage(error)}; expected a directory of shard results files`,
    );
  }
  const paths: string[] = [];
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isFile() && e.name.endsWith(".json")) paths.push(path);
    else if (e.isDirectory())
      for (const f of list(path))
        if (f.isFile() && f.name.endsWith(".json")) paths.push(join(path, f.name));
    if (paths.length > MAX_FILES)
      throw new InputError(
        `merge-from = ${JSON.stringify(dir)} holds more than ${MAX_FILES} .json files; expected one per shard`,
      );
  }
  return paths.sort();
}

/** Each shard file read and parsed; one that cannot be is named. */
function readShards(dir: string, io: Pick<CommandIo, "readFile">): ShardFile[] {
  return shardPaths(dir).map((name) => {
    try {
      const data: unknown = JSON.parse(io.readFile(name, "results file"));
      return { name, data };
    } catch (error) {
      throw new InputError(
        `${name} cannot be read as a shard results file: ${errorMessage(error)}`,
      );
    }
  });
}

/** The merge of the shards in merge-from, decided; a set that does not merge is an InputError naming the file. */
export function mergeRun(
  config: Config,
  dir: string,
  io: Pick<CommandIo, "readFile">,
  now: Date,
): GateRun {
  const files = readShards(dir, io);
  try {
    return mergeShards(config.gate, planHash(config), files, { where: dir, now });
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
