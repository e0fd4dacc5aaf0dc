// The gate's settings — action inputs, `gate` flags and a config file share
// one set of names — validated into one Config before any request is sent.

import type { CapacityOptions } from "../capacity/report.ts";
import { ARMS, type Arm } from "../common/arms.ts";
import { COMMENT_POLICIES, type PublishSettings } from "../common/comment.ts";
import { errorMessage, InputError, rejectValue } from "../common/errors.ts";
import { PERCENTILE_KEYS, type PercentileKey } from "../common/percentiles.ts";
import { DECISION_RULES } from "../compare/decide.ts";
import { ORDERS } from "../compare/plan.ts";
import { VERDICTS, type Verdict } from "../compare/verdict.ts";
import type { GateOptions } from "../gate/options.ts";
import type { QualityOptions } from "../gate/quality.ts";
import { builtinSuite, parseSuite } from "../quality/suite.ts";
import { RESTART_POLICIES, type ServerSettings } from "../servers/lifecycle.ts";
import { defaulted, given, type RawSettings, type SettingName, settingsIn } from "./settings.ts";
import { checkSweepLoad, parseSweepSettings, withStandInRate } from "./sweep.ts";
import { parseOutcomeList, parseTrialOptions, type ReadFile, readTextFile } from "./trial.ts";
import { parseBoolean, parseChoice, parseDurationS, parseFraction, parseNumber } from "./values.ts";

export type Mode = "run" | "measure" | "report" | "burst";
const MODES: readonly Mode[] = ["run", "measure", "report", "burst"];

/** What happens after the gate: the results file, the step's outcome, the comment and summary. */
export interface ReportSettings extends PublishSettings {
  failOn: Verdict[];
  resultsPath: string;
}

export interface Config {
  mode: Mode;
  gate: GateOptions;
  servers: ServerSettings;
  report: ReportSettings;
}

/** One arm's measurement settings: the shared ones plus its URL, model and key. */
function armSettings(raw: RawSettings, arm: Arm): RawSettings {
  const shared: RawSettings = {};
  for (const s of settingsIn("trial")) shared[s.name] = raw[s.name];
  const url = given(raw, `${arm}-url`);
  if (url === undefined)
    throw new InputError(
      `${arm}-url is required: the ${arm} endpoint's OpenAI base URL, e.g. http://127.0.0.1:8000/v1`,
    );
  const model = given(raw, `${arm}-model`) ?? given(raw, "model");
  if (model === undefined)
    throw new InputError(`model (or ${arm}-model) is required: the model name the ${arm} serves`);
  // One metrics URL names one server: a shared one can only turn scraping off.
  const sharedMetrics = given(raw, "metrics-url");
  if (sharedMetrics !== undefined && sharedMetrics !== "none")
    throw new InputError(
      `metrics-url = ${sharedMetrics} would scrape one server for both arms; set baseline-metrics-url and candidate-metrics-url (or metrics-url none to scrape neither)`,
    );
  return {
    ...shared,
    url,
    model,
    "api-key": given(raw, `${arm}-api-key`) ?? given(raw, "api-key"),
    "metrics-url": given(raw, `${arm}-metrics-url`) ?? sharedMetrics,
  };
}

/** An arm's error about url, model or api-key names the arm's setting. */
function forArm<T>(arm: Arm, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof InputError && /^(url|model|api-key|metrics-url)\b/.test(error.message)) {
      throw new InputError(`${arm}-${error.message}`);
    }
    throw error;
  }
}

export function parseMode(raw: RawSettings): Mode {
  return parseChoice("mode", defaulted(raw, "mode"), MODES);
}

export function parseReportSettings(raw: RawSettings): ReportSettings {
  const failOn = defaulted(raw, "fail-on")
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((v) => parseChoice("fail-on", v, VERDICTS));
  const commentKey = defaulted(raw, "comment-key");
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(commentKey)) {
    throw rejectValue(
      "comment-key",
      commentKey,
      "1–64 letters, digits, dots, dashes or underscores",
    );
  }
  return {
    failOn,
    comment: parseChoice("comment", defaulted(raw, "comment"), COMMENT_POLICIES),
    commentKey,
    jobSummary: parseBoolean("job-summary", defaulted(raw, "job-summary")),
    resultsPath: defaulted(raw, "results-path"),
  };
}

function parseServerSettings(raw: RawSettings): ServerSettings {
  const commands: ServerSettings["commands"] = {};
  for (const arm of ARMS) {
    const start = given(raw, `${arm}-start`);
    const stop = given(raw, `${arm}-stop`);
    if (stop !== undefined && start === undefined) {
      throw new InputError(
        `${arm}-stop is set without ${arm}-start: the gate only stops what it started`,
      );
    }
    if (start !== undefined) commands[arm] = { start, stop };
  }
  return {
    commands,
    restart: parseChoice("restart", defaulted(raw, "restart"), RESTART_POLICIES),
    readyTimeoutS: parseDurationS("ready-timeout", defaulted(raw, "ready-timeout"), { above: 0 }),
    logDir: defaulted(raw, "server-log-dir"),
  };
}

function parseQuality(raw: RawSettings, readFile: ReadFile): QualityOptions | undefined {
  // The rule is checked even with no suite: every value is validated, used or not.
  const rule = {
    alpha: parseNumber("quality-alpha", defaulted(raw, "quality-alpha"), { above: 0, max: 0.5 }),
    minEffect: parseFraction("quality-min-effect", defaulted(raw, "quality-min-effect")),
    largeEffect: parseFraction("quality-large-effect", defaulted(raw, "quality-large-effect")),
    confirmReruns: parseNumber("quality-confirm-reruns", defaulted(raw, "quality-confirm-reruns"), {
      integer: true,
      min: 0,
      max: 10,
    }),
  };
  const vllmSampling = parseBoolean(
    "quality-vllm-sampling",
    defaulted(raw, "quality-vllm-sampling"),
  );
  const which = defaulted(raw, "quality-suite");
  if (which === "none") return undefined;
  let suite = builtinSuite();
  if (which !== "builtin") {
    let content: string;
    try {
      content = readFile(which);
    } catch (error) {
      throw new InputError(
        `quality-suite = ${JSON.stringify(which)} cannot be read: ${errorMessage(error)}; accepted: a file path, builtin or none`,
      );
    }
    suite = parseSuite(content, which);
  }
  return { suite, vllmSampling, rule };
}

/** Settings that only a capacity gate uses: given without it, they would be silently ignored. */
const CAPACITY_ONLY = [
  "sync-requests",
  "offline-requests",
  "sweep-points",
  "capacity-resolution",
  "min-attainment",
  "max-duration",
  "max-capacity-drop",
  "gate-rate-fraction",
] as const;

function parseCapacity(raw: RawSettings): CapacityOptions | undefined {
  if (!parseBoolean("capacity", defaulted(raw, "capacity"))) {
    const stray = CAPACITY_ONLY.find((name) => given(raw, name) !== undefined);
    if (stray !== undefined) {
      throw new InputError(
        `${stray} is set, but capacity is not: it is used only by a capacity gate (set capacity: true, or remove ${stray})`,
      );
    }
    return undefined;
  }
  checkSweepLoad(raw, "with capacity");
  return {
    sweep: parseSweepSettings(raw),
    maxCapacityDrop: parseFraction("max-capacity-drop", defaulted(raw, "max-capacity-drop"), 0.99),
    rateFraction: parseNumber("gate-rate-fraction", defaulted(raw, "gate-rate-fraction"), {
      above: 0,
      max: 2,
    }),
  };
}

function parsePercentile(raw: RawSettings): PercentileKey {
  const written = defaulted(raw, "percentile");
  const key = written === "p99.9" ? "p999" : written;
  const found = PERCENTILE_KEYS.find((p) => p === key);
  if (found === undefined)
    throw rejectValue("percentile", written, "one of p50, p90, p95, p99, p99.9");
  return found;
}

export function parseConfig(
  raw: RawSettings,
  env: Record<string, string | undefined> = {},
  readFile: ReadFile = readTextFile,
): Config {
  const optionalFraction = (name: SettingName, max: number) => {
    const v = given(raw, name);
    return v === undefined ? undefined : parseFraction(name, v, max);
  };
  const trials = parseNumber("trials", defaulted(raw, "trials"), {
    integer: true,
    min: 1,
    max: 100,
  });
  const maxTrialsGiven = given(raw, "max-trials");
  const maxTrials =
    maxTrialsGiven === undefined
      ? trials
      : parseNumber("max-trials", maxTrialsGiven, { integer: true, min: 1, max: 100 });
  if (maxTrials < trials)
    throw new InputError(
      `max-trials = ${maxTrials} is not accepted; expected at least trials (${trials})`,
    );
  // Named by the arm already ("model (or baseline-model) is required"): outside forArm.
  const arms = { baseline: armSettings(raw, "baseline"), candidate: armSettings(raw, "candidate") };
  // The sweep chooses the rates: the arms are parsed with a stand-in, replaced before any trial.
  const capacity = parseCapacity(raw);
  if (capacity) {
    arms.baseline = withStandInRate(arms.baseline);
    arms.candidate = withStandInRate(arms.candidate);
  }
  const percentile = parsePercentile(raw);
  const ttftTolerance = parseFraction(
    "max-ttft-regression",
    defaulted(raw, "max-ttft-regression"),
    10,
  );
  // The self-checks judge lateness at the gated percentile, against a quarter of its tolerance.
  const checks = { percentile, maxSkewEffect: ttftTolerance / 4 };
  const tpot = optionalFraction("max-tpot-regression", 10);
  const e2el = optionalFraction("max-e2el-regression", 10);
  return {
    mode: parseMode(raw),
    gate: {
      baseline: forArm("baseline", () => parseTrialOptions(arms.baseline, env, readFile, checks)),
      candidate: forArm("candidate", () =>
        parseTrialOptions(arms.candidate, env, readFile, checks),
      ),
      trials,
      maxTrials,
      order: parseChoice("order", defaulted(raw, "order"), ORDERS),
      cooldownS: parseDurationS("cooldown", defaulted(raw, "cooldown"), { min: 0 }),
      maxReruns: parseNumber("max-reruns", defaulted(raw, "max-reruns"), {
        integer: true,
        min: 0,
        max: 10,
      }),
      idleTimeoutS: parseDurationS("idle-timeout", defaulted(raw, "idle-timeout"), { min: 0 }),
      decision: {
        percentile,
        tolerances: {
          goodput: parseFraction("max-goodput-drop", defaulted(raw, "max-goodput-drop"), 0.99),
          ttft: ttftTolerance,
          itl: parseFraction("max-itl-regression", defaulted(raw, "max-itl-regression"), 10),
          ...(tpot === undefined ? {} : { tpot }),
          ...(e2el === undefined ? {} : { e2el }),
        },
        rule: parseChoice("decision-rule", defaulted(raw, "decision-rule"), DECISION_RULES),
        confidence: parseNumber("confidence", defaulted(raw, "confidence"), {
          above: 0.5,
          max: 0.999,
        }),
        maxErrorRate: parseFraction("max-error-rate", defaulted(raw, "max-error-rate")),
        maxTrialCv: parseFraction("max-trial-cv", defaulted(raw, "max-trial-cv"), 10),
        minOkRequests: parseNumber("min-ok-requests", defaulted(raw, "min-ok-requests"), {
          integer: true,
          min: 1,
        }),
        reliability: {
          maxFailureIncrease: parseFraction(
            "max-failure-increase",
            defaulted(raw, "max-failure-increase"),
          ),
          exclude: parseOutcomeList(raw),
        },
      },
      quality: parseQuality(raw, readFile),
      capacity,
    },
    servers: parseServerSettings(raw),
    report: parseReportSettings(raw),
  };
}
