// One burst on every lane of a lanes file, now — from the CLI (`burst`) or a
// scheduled workflow (the action's `mode: burst`): the rows appended to the
// history (a local file, or a branch of the repository through the contents
// API), then the lanes report of the whole history.

import { InputError } from "../../common/errors.ts";
import { given, type RawSettings, value } from "../../config/settings.ts";
import { burstLanes } from "../../lanes/burst.ts";
import { type HistoryRow, parseHistory, toCsv, toJsonl } from "../../lanes/history.ts";
import { burstPlanWords } from "../../lanes/plan.ts";
import { type LanesReport, reduceHistory } from "../../lanes/reduce.ts";
import type { LanesSpec } from "../../lanes/spec.ts";
import { renderLanesMarkdown } from "../../report/lanes-markdown.ts";
import { type CommandIo, probeWritable, writeNamed } from "../io.ts";
import { readHistory, readLanes } from "./files.ts";

/** Where the history is kept: appends this run's rows, returns the whole history. */
export interface HistoryStore {
  append(rows: readonly HistoryRow[]): Promise<HistoryRow[]>;
  /** Where, in words ("llm-perf-gate-lanes.jsonl", "branch lanes:…"). */
  where: string;
}

/** The history as a file in the working directory. */
export function localHistory(
  io: Pick<CommandIo, "readFile" | "writeFile">,
  path: string,
): HistoryStore {
  return {
    where: path,
    append: async (rows) => {
      const old = readHistory(io, path).text;
      const next = old + toJsonl(rows);
      writeNamed(io, "lanes-history", path, next);
      return parseHistory(next, path);
    },
  };
}

export interface BurstOutcome {
  rows: HistoryRow[];
  all: HistoryRow[];
  report: LanesReport;
  /** One line: when, which window, how many passed. */
  summary: string;
}

/** The burst, appended to the history, and the report of the whole history. */
export async function burstOnce(
  spec: LanesSpec,
  store: HistoryStore,
  deps: { env: CommandIo["env"]; now?: () => Date },
): Promise<BurstOutcome> {
  const rows = await burstLanes(spec, { env: deps.env, ...(deps.now ? { date: deps.now } : {}) });
  const first = rows[0];
  const passed = rows.filter((r) => r.passed).length;
  const summary = `burst at ${first?.local_time} ${spec.windows.time_zone} (window ${first?.window ?? "none"}): ${passed}/${rows.length} passed`;
  const all = await store.append(rows);
  return { rows, all, report: reduceHistory(all, spec.rule), summary };
}

/** The lanes file and the history path a burst or a report names. */
export function lanesPaths(raw: RawSettings, command: string): { lanes: string; history: string } {
  const lanes = given(raw, "lanes");
  if (lanes === undefined)
    throw new InputError(
      `${command}: lanes is required: the lanes file (YAML, schemas/lanes.schema.json)`,
    );
  return { lanes, history: value(raw, "lanes-history") ?? "llm-perf-gate-lanes.jsonl" };
}

export async function burstCli(raw: RawSettings, io: CommandIo): Promise<number> {
  const paths = lanesPaths(raw, "burst");
  const spec = readLanes(io, paths.lanes);
  const csv = given(raw, "csv");
  // Found before the burst, and its folder: its rows must have somewhere to go.
  readHistory(io, paths.history);
  probeWritable(io, "--lanes-history", paths.history);
  probeWritable(io, "--csv", csv);
  const store = localHistory(io, paths.history);
  io.stderr(`${burstPlanWords(spec)}\n`);
  const outcome = await burstOnce(spec, store, io);
  if (csv !== undefined) writeNamed(io, "--csv", csv, toCsv(outcome.all));
  io.stderr(`${outcome.summary}; ${outcome.rows.length} rows appended to ${paths.history}\n`);
  io.stdout(renderLanesMarkdown(outcome.report));
  return 0;
}
