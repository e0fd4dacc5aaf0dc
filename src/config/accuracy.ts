// The accuracy suite's settings into its options: the items (built in, or a
// user's JSONL through the bounded reader), how many, and the rule.

import {
  builtinAccuracySuite,
  DEFAULT_ITEMS_PER_FAMILY,
  FAMILY_COUNT,
  MAX_ITEMS_PER_FAMILY,
} from "../accuracy/builtin.ts";
import { parseAccuracyItems } from "../accuracy/file.ts";
import type { AccuracySuite } from "../accuracy/items.ts";
import type { AccuracyOptions } from "../accuracy/options.ts";
import { InputError, rejectValue } from "../common/errors.ts";
import { readChosenFile } from "./phases.ts";
import {
  defaulted,
  optionalNumber,
  type RawSettings,
  readBoolean,
  readNumber,
} from "./settings.ts";
import type { ReadFile } from "./workload.ts";

/** The first `count` items, taken from each family in turn (the suite's order within a family). */
export function spreadItems<S extends { name: string; items: { id: string; family: string }[] }>(
  suite: S,
  count: number,
): S {
  if (count >= suite.items.length) return suite;
  const families = [...Map.groupBy(suite.items, (i) => i.family).values()];
  const taken = new Set<string>();
  for (let k = 0; taken.size < count; k++)
    for (const list of families) {
      const item = list[k];
      if (item && taken.size < count) taken.add(item.id);
    }
  return { ...suite, items: suite.items.filter((i) => taken.has(i.id)) };
}

/** The suite the setting names: the built-in one large enough for `count` items, or a file's. */
function suiteOf(which: string, readFile: ReadFile, count: number | undefined): AccuracySuite {
  if (which === "builtin") {
    const most = MAX_ITEMS_PER_FAMILY * FAMILY_COUNT;
    if (count !== undefined && count > most)
      throw new InputError(
        `accuracy-items = ${count} is more than the built-in suite holds; accepted: at most ${most} with accuracy builtin (more with a file of your own)`,
      );
    return builtinAccuracySuite(Math.max(DEFAULT_ITEMS_PER_FAMILY, (count ?? 0) / FAMILY_COUNT));
  }
  return parseAccuracyItems(readChosenFile("accuracy", which, "accuracy items", readFile), which);
}

/** accuracy-concurrency: auto, or a whole number from 1 to 256. */
function parseAccuracyConcurrency(raw: RawSettings): number | "auto" {
  const text = defaulted(raw, "accuracy-concurrency").trim();
  if (text === "auto") return "auto";
  const n = Number(text);
  if (!/^[0-9]+$/.test(text) || n < 1 || n > 256)
    throw rejectValue("accuracy-concurrency", text, "auto, or a whole number from 1 to 256");
  return n;
}

export function parseAccuracy(raw: RawSettings, readFile: ReadFile): AccuracyOptions | undefined {
  // Every value is validated, used or not.
  const rule = {
    maxDrop: readNumber(raw, "max-accuracy-drop"),
    maxFlipRate: optionalNumber(raw, "max-flip-rate") ?? null,
    maxKld: optionalNumber(raw, "max-kld") ?? null,
  };
  const run = {
    concurrency: parseAccuracyConcurrency(raw),
    firstLook: readNumber(raw, "accuracy-first-look"),
    floorShare: readNumber(raw, "accuracy-floor"),
    topLogprobs: readNumber(raw, "accuracy-top-logprobs"),
    vllmSampling: readBoolean(raw, "quality-vllm-sampling"),
  };
  const count = optionalNumber(raw, "accuracy-items");
  const which = defaulted(raw, "accuracy");
  if (which === "none") return undefined;
  const suite = suiteOf(which, readFile, count);
  return { suite: count === undefined ? suite : spreadItems(suite, count), ...run, ...rule };
}
