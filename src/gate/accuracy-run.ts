// The accuracy suite's runs inside a gate: every item on the baseline, then
// on the candidate; the candidate scored on the baseline's answers where the
// two part (teacher-forced, where the server scores given text); then a
// share of the items on the baseline again (its own flips: the floor) —
// each at a bounded concurrency, apart from the latency trials, each on the
// requests file as a run of its own — and the paired comparison.

import { answersOf, floorItems } from "../accuracy/answers.ts";
import { type AccuracyReport, type AccuracyRule, compareAccuracy } from "../accuracy/compare.ts";
import { firstDifference, type TokenLogprobs } from "../accuracy/divergence.ts";
import {
  replyTokens,
  type ScoredRun,
  type ScoreRequest,
  scoreOnCandidate,
} from "../accuracy/forced.ts";
import type { AccuracyItem } from "../accuracy/items.ts";
import { futileAt, ruleAtLook } from "../accuracy/looks.ts";
import type { AccuracyOptions } from "../accuracy/options.ts";
import type { AccuracyRunOptions, ArmReplies } from "../accuracy/run.ts";
import { ARMS, type Arm } from "../common/arms.ts";
import { plural } from "../common/format.ts";
import { type AnswerRun, answerOn, NO_REPLIES, writeLines } from "./answers.ts";
import { armsOfLook, type LookAt, runLooks } from "./looks.ts";
import { type GateDeps, type GateOptions, REAL_CHECKS } from "./options.ts";
import type { SuiteContext } from "./suite.ts";

/** The baseline's answers the candidate's part from, to be scored on the candidate. */
function partedAnswers(
  items: readonly AccuracyItem[],
  base: ArmReplies,
  cand: ArmReplies,
): ScoreRequest[] {
  const candidate = new Map(cand.replies.map((r) => [r.id, r]));
  const baseline = new Map(base.replies.map((r) => [r.id, r]));
  return items.flatMap((item) => {
    const [b, c] = [baseline.get(item.id), candidate.get(item.id)];
    if (!b?.tokens || !c?.tokens || b.tokens.length === 0) return [];
    const tokens = replyTokens(b.tokens, b.text);
    return firstDifference(b.tokens, c.tokens) === null || tokens.length === 0
      ? []
      : [{ item, reply: b.text, tokens }];
  });
}

/** accuracy-concurrency auto's fallback: a server that says nothing (vLLM) gets the old default. */
export const AUTO_CONCURRENCY = 16;
/** …and its ceiling, whatever a server says (SGLang's can be thousands). */
export const AUTO_CONCURRENCY_MAX = 64;

/** The items in flight at once: as set, or the fewer of the slots the two servers say they have. */
export async function accuracyConcurrency(
  options: GateOptions,
  a: AccuracyOptions,
  deps: GateDeps,
  log: (line: string) => void,
): Promise<number> {
  if (a.concurrency !== "auto") return a.concurrency;
  const slots = (deps.checks ?? REAL_CHECKS).slots;
  const said = slots ? await Promise.all(ARMS.map((arm) => slots(options[arm].target))) : [];
  const known = ARMS.flatMap((arm, i) => {
    const s = said[i];
    return s ? [{ arm, ...s }] : [];
  });
  if (known.length === 0) {
    log(
      `accuracy: ${AUTO_CONCURRENCY} items at a time (accuracy-concurrency auto: neither server says how many requests it runs at once)`,
    );
    return AUTO_CONCURRENCY;
  }
  const n = Math.min(AUTO_CONCURRENCY_MAX, ...known.map((k) => k.slots));
  const from = known.map((k) => `the ${k.arm}'s ${k.source} ${k.slots}`).join(", ");
  log(`accuracy: ${n} items at a time (accuracy-concurrency auto: ${from})`);
  return n;
}

/** The candidate scored on the baseline's answers where they part (teacher-forced), on the requests file. */
async function scoreOnCandidateRun(
  options: GateOptions,
  deps: GateDeps,
  at: SuiteContext,
  indexOf: Map<string, number>,
  requests: ScoreRequest[],
  runOptions: AccuracyRunOptions,
): Promise<ScoredRun | null> {
  if (requests.length === 0 || deps.signal?.aborted) return null;
  await deps.servers?.beforeTrial("candidate");
  at.log(
    `accuracy: the candidate scored on ${plural(requests.length, "answer")} of the baseline's where the two part`,
  );
  const run = await scoreOnCandidate(options.candidate.target, requests, runOptions);
  await deps.servers?.afterTrial("candidate", "the accuracy suite's scoring");
  if (deps.requestLine && !deps.signal?.aborted) {
    const sent = run.scored.map((s) => ({ ...s, finishReason: null, maxTokens: 1 }));
    const label = "accuracy candidate scoring the baseline's answers";
    writeLines(
      deps.requestLine,
      at.nextTrial(),
      { arm: "candidate", label, startUnixMs: run.startUnixMs, sent },
      indexOf,
    );
  }
  return run;
}

/** The runs so far, over every block: each arm's replies, the re-run, the candidate's scores, their times. */
interface Answered {
  baseline: ArmReplies[];
  candidate: ArmReplies[];
  again: ArmReplies[];
  scored: ScoredRun[];
}

const allReplies = (runs: readonly ArmReplies[]) => runs.flatMap((r) => r.replies);
const secondsOf = (runs: readonly ArmReplies[]) => runs.reduce((s, r) => s + r.seconds, 0);

/** The comparison of what the looks so far answered, judged at look k. */
function compareSoFar(
  a: AccuracyOptions,
  asked: readonly AccuracyItem[],
  done: Answered,
  rule: AccuracyRule,
  looks: LookAt,
): AccuracyReport {
  const scored = new Map<string, TokenLogprobs[] | null>(
    done.scored.flatMap((run) => run.scored.map((s) => [s.id, s.tokens])),
  );
  const answers = answersOf(
    asked,
    {
      baseline: allReplies(done.baseline),
      candidate: allReplies(done.candidate),
      again: allReplies(done.again),
    },
    scored,
  );
  const all = done.scored.flatMap((run) => run.scored);
  return compareAccuracy(a.suite.name, answers, ruleAtLook(rule, looks.items, looks.at), {
    logprobs: {
      baseline: done.baseline.some((r) => r.logprobs),
      candidate: done.candidate.some((r) => r.logprobs),
    },
    seconds: {
      baseline: secondsOf(done.baseline),
      candidate: secondsOf(done.candidate),
      again: secondsOf(done.again),
    },
    scoring:
      done.scored.length > 0
        ? {
            items: all.length,
            scored: all.filter((x) => x.tokens !== null).length,
            supported: done.scored.some((run) => run.supported),
          }
        : null,
    looks,
  });
}

export async function runAccuracy(
  options: GateOptions,
  a: AccuracyOptions,
  rule: AccuracyRule,
  deps: GateDeps,
  at: SuiteContext,
): Promise<AccuracyReport | null> {
  const indexOf = new Map(a.suite.items.map((i, k) => [i.id, k]));
  const concurrency = await accuracyConcurrency(options, a, deps, at.log);
  const runOptions = (arm: Arm): AccuracyRunOptions => ({
    concurrency,
    timeoutS: options[arm].timeoutS,
    topLogprobs: a.topLogprobs,
    seed: options.baseline.workload.seed,
    vllmSampling: a.vllmSampling,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  const answering: AnswerRun = { suite: "accuracy", concurrency, runOptions, indexOf };
  const runOne = (arm: Arm, list: readonly AccuracyItem[], what: string): Promise<ArmReplies> =>
    answerOn(options, deps, at, answering, { arm, list, what });
  const scoreParted = (requests: ScoreRequest[]) =>
    scoreOnCandidateRun(options, deps, at, indexOf, requests, runOptions("candidate"));
  const done: Answered = { baseline: [], candidate: [], again: [], scored: [] };
  return runLooks("accuracy", a.suite.items, a.firstLook, at.log, {
    look: async (block, asked, lookAt) => {
      const got: Partial<Record<Arm, ArmReplies>> = {};
      for (const arm of armsOfLook(lookAt.at)) got[arm] = await runOne(arm, block, "");
      const [base, cand] = [got.baseline ?? NO_REPLIES, got.candidate ?? NO_REPLIES];
      done.baseline.push(base);
      done.candidate.push(cand);
      const scoring = await scoreParted(partedAnswers(block, base, cand));
      if (scoring) done.scored.push(scoring);
      const again = floorItems(block, a.floorShare);
      if (again.length > 0 && !deps.signal?.aborted)
        done.again.push(await runOne("baseline", again, " again (its own flips)"));
      if (deps.signal?.aborted) return null;
      return compareSoFar(a, asked, done, rule, lookAt);
    },
    futile: (report, looks) => {
      const o = report.overall;
      // A KL budget with no logprobs to judge it by stays open whatever the items.
      return rule.maxKld !== null && report.kld_rule === null
        ? "max-kld is set, but the servers returned no logprobs to judge it by"
        : futileAt(o.right_to_wrong, o.wrong_to_right, o.items, rule, looks);
    },
  });
}
