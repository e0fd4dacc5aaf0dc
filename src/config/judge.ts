// The judge suite's settings into its options: the items (built in, or a
// user's JSONL through the bounded reader), how many, the judge's endpoint
// and key, the calibration (built in, and a user's labelled pairs), and the
// rule — with a warning when the judge is one of the variants.

import { InputError } from "../common/errors.ts";
import {
  builtinJudgeSuite,
  DEFAULT_ITEMS_PER_FAMILY,
  FAMILY_COUNT,
  MAX_ITEMS_PER_FAMILY,
} from "../judge/builtin.ts";
import { PAIRS_PER_KIND } from "../judge/calibration.ts";
import { parseJudgeItems, parseLabelledPairs } from "../judge/file.ts";
import type { JudgeSuite } from "../judge/items.ts";
import type { JudgeCalibration, JudgeOptions } from "../judge/options.ts";
import type { Target } from "../openai/target.ts";
import { spreadItems } from "./accuracy.ts";
import { readChosenFile } from "./phases.ts";
import {
  defaulted,
  given,
  optionalNumber,
  type RawSettings,
  readBoolean,
  readNumber,
  requiredText,
} from "./settings.ts";
import { parseBaseUrl } from "./values.ts";
import type { ReadFile } from "./workload.ts";

/** The environment variable read for the judge's key when judge-api-key is not given. */
export const JUDGE_KEY_ENV = "LLM_PERF_GATE_JUDGE_API_KEY";

/** The suite the setting names: the built-in one large enough for `count` items, or a file's. */
function suiteOf(which: string, readFile: ReadFile, count: number | undefined): JudgeSuite {
  if (which === "builtin") {
    const most = MAX_ITEMS_PER_FAMILY * FAMILY_COUNT;
    if (count !== undefined && count > most)
      throw new InputError(
        `judge-items = ${count} is more than the built-in suite holds; accepted: at most ${most} with judge builtin (more with a file of your own)`,
      );
    return builtinJudgeSuite(Math.max(DEFAULT_ITEMS_PER_FAMILY, (count ?? 0) / FAMILY_COUNT));
  }
  return parseJudgeItems(readChosenFile("judge", which, "judge items", readFile), which);
}

function calibrationOf(raw: RawSettings, readFile: ReadFile): JudgeCalibration | null {
  const which = defaulted(raw, "judge-calibration");
  if (which === "none") return null;
  const labelled =
    which === "builtin"
      ? []
      : parseLabelledPairs(
          readChosenFile("judge-calibration", which, "judge pairs", readFile),
          which,
        );
  return { source: which, perKind: PAIRS_PER_KIND, labelled };
}

function judgeTarget(raw: RawSettings, env: Record<string, string | undefined>): Target {
  const what = "the judge's OpenAI base URL, e.g. https://api.openai.com/v1";
  return {
    baseUrl: parseBaseUrl("judge-url", requiredText(raw, "judge-url", what)),
    model: requiredText(raw, "judge-model", "the model name the judge serves"),
    endpoint: "chat",
    apiKey: given(raw, "judge-api-key") ?? (env[JUDGE_KEY_ENV] || undefined),
    headers: {},
    extraBody: {},
    includeUsage: false,
    ignoreEos: false,
    temperature: 0,
  };
}

/** Loopback names for one host: a judge at localhost is the variant at 127.0.0.1. */
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "0.0.0.0"]);

/** Whether two base URLs name one endpoint (the host's case, loopback's names and a default port aside). */
function sameEndpoint(a: string, b: string): boolean {
  const key = (u: URL) =>
    `${u.protocol}//${LOOPBACK.has(u.hostname) ? "loopback" : u.hostname}:${u.port || (u.protocol === "https:" ? "443" : "80")}${u.pathname.replace(/\/+$/, "")}`;
  return key(new URL(a)) === key(new URL(b));
}

/** A judge that is one of the variants grades its own answers: said, not refused. */
export function judgeNotes(
  judge: JudgeOptions | undefined,
  arms: Record<"baseline" | "candidate", Target>,
): string[] {
  if (!judge) return [];
  const same = (["baseline", "candidate"] as const).filter((arm) =>
    sameEndpoint(arms[arm].baseUrl, judge.judge.baseUrl),
  );
  if (same.length === 0) return [];
  return [
    `judge-url is the ${same.join(" and the ")}'s endpoint: the model grades its own answers (self-preference is a judge's worst bias) — a judge of another model family is more trustworthy`,
  ];
}

/** The judge's options (undefined: off). */
export function parseJudge(
  raw: RawSettings,
  env: Record<string, string | undefined>,
  readFile: ReadFile,
): JudgeOptions | undefined {
  // Every value is validated, used or not.
  const rule = {
    maxLoss: readNumber(raw, "max-judge-loss"),
    minAgreement: readNumber(raw, "judge-min-agreement"),
    minConsistency: readNumber(raw, "judge-min-consistency"),
  };
  const run = {
    concurrency: readNumber(raw, "judge-concurrency"),
    judgeTimeoutS: readNumber(raw, "judge-timeout"),
    floorShare: readNumber(raw, "judge-floor"),
    firstLook: readNumber(raw, "judge-first-look"),
    vllmSampling: readBoolean(raw, "quality-vllm-sampling"),
  };
  const count = optionalNumber(raw, "judge-items");
  const which = given(raw, "judge") ?? (given(raw, "judge-url") !== undefined ? "builtin" : "none");
  if (which === "none") return undefined;
  const suite = suiteOf(which, readFile, count);
  return {
    suite: count === undefined ? suite : spreadItems(suite, count),
    judge: judgeTarget(raw, env),
    calibration: calibrationOf(raw, readFile),
    ...run,
    ...rule,
  };
}
