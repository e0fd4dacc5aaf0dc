// The workload settings of a trial — the arrival process (or a replayed
// trace), the prompts (synthetic, a dataset, shared prefixes, sessions) and
// their token counts — validated into a WorkloadSpec before any request is
// sent. A file a setting names is read here and its problems named with it.

import { dirname, join } from "node:path";
import { errorMessage, InputError } from "../common/errors.ts";
/** Reads a file a setting names; its problems are reported with the setting. */
import type { ReadFile } from "../common/files.ts";
import { ARRIVAL_KINDS, type ArrivalSpec } from "../workload/arrivals.ts";
import { parseDataset } from "../workload/dataset.ts";
import type { WorkloadSpec } from "../workload/plan.ts";
import { shapeArrivals, shapeMeanRate, shapeSeconds } from "../workload/shape.ts";
import { tokenCounter } from "../workload/tokens.ts";
import { parseTrace, TRACE_FORMATS, type Trace } from "../workload/trace.ts";
import { WORDS } from "../workload/words.ts";
import { parseRate } from "./rate.ts";
import {
  defaulted,
  given,
  optionalNumber,
  type RawSettings,
  readBoolean,
  readChoice,
  readNumber,
  refuseGiven,
  requiredNumber,
  requiredText,
  type SettingName,
  value,
} from "./settings.ts";
import { parseLengthSpec } from "./values.ts";

export type { ReadFile };

/** A rate-driven process at a flat rate, or on a shape. */
function rateDriven(raw: RawSettings, kind: "poisson" | "gamma" | "constant"): ArrivalSpec {
  const rate = parseRate(
    "rate",
    requiredText(raw, "rate", `requests per second (or a shape) for ${kind} arrivals`),
  );
  const burstiness = readNumber(raw, "burstiness");
  if ("segments" in rate)
    return {
      kind: "shaped",
      process: kind,
      burstiness,
      segments: rate.segments,
      ratePerS: shapeMeanRate(rate.segments),
    };
  return kind === "gamma"
    ? { kind, ratePerS: rate.ratePerS, burstiness }
    : { kind, ratePerS: rate.ratePerS };
}

function parseArrival(raw: RawSettings): ArrivalSpec {
  const kind = readChoice(raw, "arrival", ARRIVAL_KINDS);
  switch (kind) {
    case "poisson":
    case "constant":
    case "gamma":
      return rateDriven(raw, kind);
    case "burst":
      return {
        kind,
        burstSize: requiredNumber(raw, "burst-size", "requests per burst for burst arrivals"),
        burstIntervalS: requiredNumber(
          raw,
          "burst-interval",
          "time between bursts for burst arrivals",
        ),
      };
    case "all-at-once":
      return {
        kind,
        count: requiredNumber(raw, "requests", "how many requests all-at-once sends"),
      };
  }
}

function parseDatasetFile(path: string, readFile: ReadFile): WorkloadSpec["dataset"] {
  let content: string;
  try {
    content = readFile(path, "dataset");
  } catch (error) {
    throw new InputError(
      `dataset = ${JSON.stringify(path)} cannot be read: ${errorMessage(error)}`,
    );
  }
  return { name: path, entries: parseDataset(content, `dataset ${path}`) };
}

/** A trace replaces the arrival process and the lengths: settings for those are refused with it. */
const NOT_WITH_TRACE: SettingName[] = [
  "arrival",
  "rate",
  "burstiness",
  "burst-size",
  "burst-interval",
  "requests",
  "input-len",
  "output-len",
  "dataset",
  "prefix-groups",
];

function parseReplay(
  raw: RawSettings,
  readFile: ReadFile,
  trialS: number,
): { arrival: ArrivalSpec; trace: Trace } | undefined {
  const path = given(raw, "trace");
  if (path === undefined) {
    refuseGiven(
      raw,
      ["trace-format", "time-scale", "trace-start", "max-requests"],
      (name, v) => `${name} = ${v} is used only with a trace (set trace, or remove ${name})`,
    );
    return undefined;
  }
  refuseGiven(
    raw,
    NOT_WITH_TRACE,
    (name, v) =>
      `${name} = ${v} is not used with a trace: its rows give the arrivals and the lengths (remove ${name})`,
  );
  const format = readChoice(raw, "trace-format", ["auto", ...TRACE_FORMATS]);
  let content: string;
  try {
    content = readFile(path, "trace");
  } catch (error) {
    throw new InputError(`trace = ${JSON.stringify(path)} cannot be read: ${errorMessage(error)}`);
  }
  const trace = parseTrace(content, path, format);
  const timeScale = readNumber(raw, "time-scale");
  const startS = readNumber(raw, "trace-start");
  const maxRequests = optionalNumber(raw, "max-requests");
  // What one trial replays: rows from trace-start until the trial's end, at most max-requests.
  const endMs = startS * 1000 + (trialS * 1000) / timeScale;
  const count = Math.min(
    trace.rows.filter((r) => r.offsetMs >= startS * 1000 && r.offsetMs < endMs).length,
    maxRequests ?? Number.POSITIVE_INFINITY,
  );
  if (count === 0)
    throw new InputError(
      `trace ${path}: no row between trace-start ${startS} s and the trial's end (${Number(((endMs - startS * 1000) / 1000).toPrecision(4))} s of the trace at time-scale ${timeScale}); the trace spans ${Number(((trace.rows.at(-1)?.offsetMs ?? 0) / 1000).toPrecision(4))} s`,
    );
  return {
    trace,
    arrival: {
      kind: "trace",
      name: path,
      timeScale,
      startS,
      maxRequests,
      ratePerS: count / trialS,
    },
  };
}

/** tokenizer: a tokenizer.json, or a model directory holding one (and maybe tokenizer_config.json). */
function parseTokenizer(raw: RawSettings, readFile: ReadFile): WorkloadSpec["tokenizer"] {
  const path = given(raw, "tokenizer");
  if (path === undefined) return undefined;
  const file = path.endsWith(".json") ? path : join(path, "tokenizer.json");
  const read = (p: string): object => {
    const parsed = JSON.parse(readFile(p, "tokenizer"));
    if (typeof parsed !== "object" || parsed === null) throw new Error("not a JSON object");
    return parsed;
  };
  let json: object;
  try {
    json = read(file);
  } catch (error) {
    throw new InputError(
      `tokenizer = ${JSON.stringify(path)}: ${file} cannot be read as a tokenizer.json: ${errorMessage(error)} (expected a tokenizer.json file or a model directory holding one)`,
    );
  }
  let config: object = {};
  try {
    config = read(join(dirname(file), "tokenizer_config.json"));
  } catch {
    // Optional: tokenizer.json alone is enough to count.
  }
  try {
    return tokenCounter(path, json, config, WORDS);
  } catch (error) {
    throw new InputError(
      `tokenizer = ${JSON.stringify(path)}: ${file} is not a tokenizer this tool can read: ${errorMessage(error)}`,
    );
  }
}

/** Multi-turn sessions (turns, think-time, turn-input-len): synthetic prompts only. */
function parseSessions(
  raw: RawSettings,
  dataset: WorkloadSpec["dataset"],
  withTrace: boolean,
): WorkloadSpec["sessions"] {
  const turns = readNumber(raw, "turns");
  if (turns === 1) {
    refuseGiven(
      raw,
      ["think-time", "turn-input-len"],
      (name, v) => `${name} = ${v} is used only with turns above 1 (set turns, or remove ${name})`,
    );
    return undefined;
  }
  if (withTrace)
    throw new InputError(
      `turns = ${turns} is not used with a trace: its rows are single requests (remove turns)`,
    );
  if (dataset && !dataset.entries.some((e) => e.later.length > 0))
    throw new InputError(
      `turns = ${turns} needs conversations of several user turns: dataset ${dataset.name} has none (a ShareGPT file's conversations are sessions; JSONL lines are single requests)`,
    );
  const later = given(raw, "turn-input-len") ?? defaulted(raw, "input-len");
  return {
    turns,
    thinkS: readNumber(raw, "think-time"),
    laterInputLen: parseLengthSpec("turn-input-len", later),
  };
}

/** Shared prefixes (prefix-groups, prefix-len, prefix-pick): synthetic prompts only. */
function parsePrefix(raw: RawSettings, withDataset: boolean): WorkloadSpec["prefix"] {
  const groups = readNumber(raw, "prefix-groups");
  if (groups === 0) {
    // Not ignored without a word: they shape nothing without groups.
    refuseGiven(
      raw,
      ["prefix-len", "prefix-pick"],
      (name, v) =>
        `${name} = ${v} is not used without prefix-groups: set prefix-groups, or remove ${name}`,
    );
    return undefined;
  }
  if (withDataset)
    throw new InputError(
      `prefix-groups = ${groups} is not used with a dataset: its prompts are its own (remove prefix-groups, or the dataset)`,
    );
  const tokens = readNumber(raw, "prefix-len");
  const pick = defaulted(raw, "prefix-pick").trim();
  const zipf = pick.match(/^zipf(?::(\d+(?:\.\d+)?))?$/);
  if (pick !== "uniform" && !zipf)
    throw new InputError(
      `prefix-pick = ${JSON.stringify(pick)} is not accepted; expected uniform, zipf (exponent 1) or zipf:S (e.g. zipf:1.2)`,
    );
  const zipfS = zipf ? Number(zipf[1] ?? 1) : 0;
  if (zipf && !(zipfS > 0 && zipfS <= 10))
    throw new InputError(
      `prefix-pick = ${JSON.stringify(pick)} is not accepted; the zipf exponent must be in (0, 10]`,
    );
  return { groups, tokens, zipfS };
}

/** The window's length: `duration`, or a shape's own length (a duration given must agree with it). */
function windowSeconds(raw: RawSettings, arrival: ArrivalSpec): number {
  const durationS = readNumber(raw, "duration");
  if (arrival.kind !== "shaped") return durationS;
  const shapeS = shapeSeconds(arrival.segments);
  if (given(raw, "duration") !== undefined && Math.abs(durationS - shapeS) > 1e-9)
    throw new InputError(
      `duration = ${durationS} s and the rate's shape (${Number(shapeS.toPrecision(6))} s) disagree; expected the duration to be the shape's length (or remove duration: a shaped rate sets the window)`,
    );
  return shapeS;
}

/** Requests in one trial, warm-up included: each needs a little memory until it ends. */
export const MAX_REQUESTS_PER_TRIAL = 2_000_000;

/** A trial's requests, warm-up included, must fit in memory; the sweep's trials are checked by it. */
function checkTrialSize(w: WorkloadSpec): void {
  const a = w.arrival;
  const seconds = w.warmupS + w.durationS;
  if (a.kind === "swept") return;
  const expected =
    a.kind === "all-at-once"
      ? a.count * (w.warmupS > 0 ? 2 : 1)
      : a.kind === "burst"
        ? (a.burstSize * seconds) / a.burstIntervalS
        : a.kind === "shaped"
          ? (a.segments[0]?.fromPerS ?? 0) * w.warmupS + shapeArrivals(a.segments)
          : a.ratePerS * seconds;
  // The window's own share: a rate so low that it schedules nothing there measures nothing.
  const inWindow =
    a.kind === "shaped" ? shapeArrivals(a.segments) : (expected * w.durationS) / seconds;
  const rateDriven = a.kind !== "burst" && a.kind !== "all-at-once" && a.kind !== "trace";
  if (rateDriven && inWindow < 1) {
    throw new InputError(
      `rate × duration = ${inWindow.toPrecision(2)} requests in the measured window is not accepted; expected at least 1 (raise the rate or lengthen the duration)`,
    );
  }
  if (expected > MAX_REQUESTS_PER_TRIAL) {
    throw new InputError(
      `rate × (warmup + duration) = ${Math.round(expected).toLocaleString("en-US")} requests per trial is not accepted; expected at most ${MAX_REQUESTS_PER_TRIAL.toLocaleString("en-US")} (lower the rate or shorten the trial)`,
    );
  }
}

/**
 * The workload of one trial. `swept`: a rate sweep's — the sweep chooses each
 * point's rate, so no rate is read (and none may be given).
 */
export function parseWorkload(
  raw: RawSettings,
  readFile: ReadFile,
  swept?: "poisson" | "constant",
): WorkloadSpec {
  const ignoreEos = readBoolean(raw, "ignore-eos");
  const datasetPath = given(raw, "dataset");
  const dataset = datasetPath === undefined ? undefined : parseDatasetFile(datasetPath, readFile);
  // A dataset keeps its own output lengths unless output-len is given.
  const outputLen = dataset ? given(raw, "output-len") : value(raw, "output-len");
  const warmupS = readNumber(raw, "warmup");
  const replay = swept
    ? undefined
    : parseReplay(raw, readFile, warmupS + readNumber(raw, "duration"));
  const arrival: ArrivalSpec = swept
    ? { kind: "swept", process: swept }
    : (replay?.arrival ?? parseArrival(raw));
  const workload: WorkloadSpec = {
    arrival,
    warmupS,
    durationS: windowSeconds(raw, arrival),
    seed: readNumber(raw, "seed"),
    inputLen: parseLengthSpec("input-len", defaulted(raw, "input-len")),
    outputLen: outputLen === undefined ? undefined : parseLengthSpec("output-len", outputLen),
    maxTokens: optionalNumber(raw, "max-tokens"),
    ignoreEos,
    dataset,
    promptRound: 0,
    textSalt: 0,
    prefix: parsePrefix(raw, dataset !== undefined),
    trace: replay?.trace,
    sessions: parseSessions(raw, dataset, replay !== undefined),
    tokenizer: parseTokenizer(raw, readFile),
  };
  checkTrialSize(workload);
  return workload;
}
