// The gate's settings — action inputs, `gate` flags and a config file share
// one set of names — validated into one Config before any request is sent.

import { dirname, join } from "node:path";
import type { Arm } from "../common/arms.ts";
import { COMMENT_POLICIES, type PublishSettings } from "../common/comment.ts";
import { InputError, looksLikeCredential, rejectValue, shownValue } from "../common/errors.ts";
import { ORDERS } from "../compare/plan.ts";
import { VERDICTS, type Verdict } from "../compare/verdict.ts";
import { accuracyShares } from "../gate/accuracy.ts";
import { JUDGE_SHARES } from "../gate/judge.ts";
import type { GateOptions } from "../gate/options.ts";
import { requestsFormat } from "../requests/file.ts";
import type { ServerSettings } from "../servers/lifecycle.ts";
import type { TrialOptions } from "../trial/measure.ts";
import type { WorkerSetting } from "../trial/worker-count.ts";
import { parseAccuracy } from "./accuracy.ts";
import { parseDecision } from "./decision.ts";
import { judgeNotes, parseJudge } from "./judge.ts";
import { type Mode, parseMode, unusedNote } from "./modes.ts";
import { parseCapacity, parseContract, parseQuality, parseServerSettings } from "./phases.ts";
import { refuseUnrunnable } from "./runnable.ts";
import {
  defaulted,
  given,
  optionalNumber,
  type RawSettings,
  readBoolean,
  readChoice,
  readList,
  readNumber,
  settingsIn,
} from "./settings.ts";
import { parseSharding, refuseUnsplittable } from "./shard.ts";
import { parseStress, stressShares } from "./stress.ts";
import { parseTrialOptions, readTextFile } from "./trial.ts";
import type { ReadFile } from "./workload.ts";

/** max-trials when not given: enough for the default design to decide at SD(d) 10 % (bench/oc.ts). */
export const DEFAULT_MAX_TRIALS = 30;

/** What happens after the gate: the results file, the step's outcome, the comment and summary. */
export interface ReportSettings extends PublishSettings {
  failOn: Verdict[];
  resultsPath: string;
  /** The requests file; null: not written. */
  requestsPath: string | null;
  /** The HTML report; null: not written. */
  htmlPath: string | null;
}

/** report-html: given, none, or (the default) llm-perf-gate-report.html beside the results file. */
export function parseHtmlPath(raw: RawSettings, resultsPath: string): string | null {
  const path = given(raw, "report-html") ?? join(dirname(resultsPath), "llm-perf-gate-report.html");
  return path === "none" ? null : path;
}

/** requests-path: given, none, or (the gate's default) beside the results file. */
export function parseRequestsPath(raw: RawSettings, fallback: string | null): string | null {
  const path = given(raw, "requests-path") ?? fallback;
  if (path === null || path === "none") return null;
  requestsFormat("requests-path", path);
  return path;
}

/** The gate's requests file when requests-path is not given: NAME.requests.jsonl.gz beside NAME.json. */
export const requestsBeside = (resultsPath: string): string =>
  `${resultsPath.replace(/\.json$/, "")}.requests.jsonl.gz`;

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
      `metrics-url = ${shownValue(sharedMetrics)} would scrape one server for both arms; set baseline-metrics-url and candidate-metrics-url (or metrics-url none to scrape neither)`,
    );
  // One prom: query or command reads one fleet; metric:NAME reads each arm's own page.
  const sharedReplicas = given(raw, "replicas-source")?.trim();
  if (sharedReplicas && sharedReplicas !== "none" && !sharedReplicas.startsWith("metric:"))
    throw new InputError(
      `replicas-source = ${shownValue(sharedReplicas)} would read one fleet for both arms; set baseline-replicas-source and candidate-replicas-source (a shared one only as metric:NAME, read from each arm's /metrics)`,
    );
  return {
    ...shared,
    url,
    model,
    "replicas-source": given(raw, `${arm}-replicas-source`) ?? sharedReplicas,
    "api-key": given(raw, `${arm}-api-key`) ?? given(raw, "api-key"),
    "metrics-url": given(raw, `${arm}-metrics-url`) ?? sharedMetrics,
  };
}

/** An arm's error about url, model or api-key names the arm's setting. */
function forArm<T>(arm: Arm, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (
      error instanceof InputError &&
      /^(url|model|api-key|metrics-url|replicas-source)\b/.test(error.message)
    ) {
      throw new InputError(`${arm}-${error.message}`);
    }
    throw error;
  }
}

/**
 * `trials` given without `max-trials`: the design may add pairs up to the
 * default, which a user who asked for two pairs does not expect — said once,
 * with how to fix the count.
 */
function trialsNotes(
  trialsGiven: boolean,
  givenMax: number | undefined,
  trials: number,
  maxTrials: number,
): string[] {
  if (!trialsGiven || givenMax !== undefined || maxTrials <= trials) return [];
  return [
    `trials is ${trials} and max-trials is not set: the design adds pairs while a metric is open, up to ${maxTrials} — set max-trials: ${trials} to run exactly ${trials} pairs, or max-trials to the most pairs you will pay for`,
  ];
}

export function parseReportSettings(raw: RawSettings): ReportSettings {
  const failOn = readList(raw, "fail-on", VERDICTS);
  const commentKey = defaulted(raw, "comment-key");
  // The key is printed in every comment: one shaped like a credential is refused, not shown.
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(commentKey) || looksLikeCredential(commentKey)) {
    throw rejectValue(
      "comment-key",
      commentKey,
      "1–64 letters, digits, dots, dashes or underscores, not shaped like a key",
    );
  }
  return {
    failOn,
    comment: readChoice(raw, "comment", COMMENT_POLICIES),
    commentKey,
    jobSummary: readBoolean(raw, "job-summary"),
    resultsPath: defaulted(raw, "results-path"),
    requestsPath: parseRequestsPath(raw, requestsBeside(defaulted(raw, "results-path"))),
    htmlPath: parseHtmlPath(raw, defaulted(raw, "results-path")),
  };
}

export function parseConfig(
  raw: RawSettings,
  env: Record<string, string | undefined> = {},
  readFile: ReadFile = readTextFile,
): Config {
  const trials = readNumber(raw, "trials");
  const givenMax = optionalNumber(raw, "max-trials");
  const maxTrials = givenMax ?? Math.max(trials, DEFAULT_MAX_TRIALS);
  if (maxTrials < trials)
    throw new InputError(
      `max-trials = ${maxTrials} is not accepted; expected at least trials (${trials})`,
    );
  // Named by the arm already ("model (or baseline-model) is required"): outside forArm.
  const arms = { baseline: armSettings(raw, "baseline"), candidate: armSettings(raw, "candidate") };
  const capacity = parseCapacity(raw);
  const accuracy = parseAccuracy(raw, readFile);
  const judge = parseJudge(raw, env, readFile);
  // Accuracy's, the judge's and the stress suites' rules take a rate's share of the fail boundaries' α each.
  const apartRates =
    (accuracy ? accuracyShares(accuracy) : 0) + (judge ? JUDGE_SHARES : 0) + stressShares(raw);
  const decision = { ...parseDecision(raw), ...(apartRates > 0 ? { apartRates } : {}) };
  // The self-checks judge lateness at the gated percentile; below the tolerance it only widens
  // the interval of the verdict (compare/metric.ts), beyond it the trial is re-run.
  const checks = { percentile: decision.percentile, maxSkewEffect: decision.tolerances.ttft };
  const servers = parseServerSettings(raw);
  const sharding = parseSharding(raw);
  const sharded = sharding.shard !== undefined || sharding.mergeFrom !== undefined;
  // Servers the gate starts share this machine: auto leaves them a core each. A shard is one
  // thread: more load is more shards (docs/sharding.md).
  const workersOf = (o: TrialOptions): WorkerSetting => ({
    requested: sharded ? 1 : (o.workers?.requested ?? 1),
    reservedCores: Object.keys(servers.commands).length,
  });
  // A capacity gate's sweep chooses the rates: its trials are parsed without one.
  // The candidate's prompt texts are its own (same lengths): no prefix cache shared across arms.
  const arm = (a: Arm) =>
    forArm(a, () => {
      const o = parseTrialOptions(arms[a], env, readFile, checks, capacity?.sweep.arrival);
      const textSalt = a === "candidate" ? 1 : 0;
      return { ...o, workload: { ...o.workload, textSalt }, workers: workersOf(o) };
    });
  if (sharded) {
    const b = arm("baseline");
    refuseUnsplittable(raw, {
      capacity: capacity !== undefined,
      maxConcurrency: b.maxConcurrency !== undefined,
      sessions: (b.workload.sessions?.turns ?? 1) > 1,
      servers: Object.keys(servers.commands).length > 0,
      // Checked by parseTrialOptions already: auto, or a whole number.
      workers: Number(given(raw, "workers")) > 1,
      stress: stressShares(raw) > 0,
    });
  }
  const stress = parseStress(raw, arm("baseline"), servers);
  const targets = { baseline: arm("baseline").target, candidate: arm("candidate").target };
  const planMax = sharding.shard || sharding.mergeFrom !== undefined ? trials : maxTrials;
  const gate: GateOptions = {
    ...sharding,
    baseline: arm("baseline"),
    candidate: arm("candidate"),
    trials,
    // A sharded plan has no looks: its pairs are fixed ahead (docs/sharding.md).
    maxTrials: planMax,
    order: readChoice(raw, "order", ORDERS),
    cooldownS: readNumber(raw, "cooldown"),
    maxReruns: readNumber(raw, "max-reruns"),
    idleTimeoutS: readNumber(raw, "idle-timeout"),
    decision,
    quality: parseQuality(raw, readFile),
    contract: parseContract(raw, readFile),
    ...(accuracy ? { accuracy } : {}),
    ...(judge ? { judge } : {}),
    ...stress.suites,
    failFast: readBoolean(raw, "fail-fast"),
    setupNotes: [
      ...trialsNotes(given(raw, "trials") !== undefined, givenMax, trials, planMax),
      ...unusedNote(raw, "run"),
      ...stress.notes,
      ...judgeNotes(judge, targets),
    ],
    capacity,
  };
  refuseUnrunnable(gate);
  return { mode: parseMode(raw), gate, servers, report: parseReportSettings(raw) };
}
