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
import type { AccuracyOptions } from "../accuracy/options.ts";
import type { AccuracyRunOptions, ArmReplies } from "../accuracy/run.ts";
import { ARMS, type Arm } from "../common/arms.ts";
import { plural } from "../common/format.ts";
import { type AnswerRun, answerOn, NO_REPLIES, writeLines } from "./answers.ts";
import type { GateDeps, GateOptions } from "./options.ts";
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
  const slots = deps.checks?.slots;
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

export async function runAccuracy(
  options: GateOptions,
  a: AccuracyOptions,
  rule: AccuracyRule,
  deps: GateDeps,
  at: SuiteContext,
): Promise<AccuracyReport | null> {
  const { items } = a.suite;
  const again = floorItems(items, a.floorShare);
  const indexOf = new Map(items.map((i, k) => [i.id, k]));
  const concurrency = await accuracyConcurrency(options, a, deps, at.log);
  const runOptions = (arm: Arm): AccuracyRunOptions => ({
    concurrency,
    timeoutS: options[arm].timeoutS,
    topLogprobs: a.topLogprobs,
    seed: options.baseline.workload.seed,
    vllmSampling: a.vllmSampling,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  const answering: AnswerRun = {
    suite: "accuracy",
    concurrency,
    runOptions,
    indexOf,
  };
  const runOne = (arm: Arm, list: readonly AccuracyItem[], what: string): Promise<ArmReplies> =>
    answerOn(options, deps, at, answering, { arm, list, what });
  /** The candidate scored on the baseline's answers where they part (teacher-forced). */
  const scoreParted = async (requests: ScoreRequest[]): Promise<ScoredRun | null> => {
    if (requests.length === 0 || deps.signal?.aborted) return null;
    await deps.servers?.beforeTrial("candidate");
    at.log(
      `accuracy: the candidate scored on ${plural(requests.length, "answer")} of the baseline's where the two part`,
    );
    const run = await scoreOnCandidate(options.candidate.target, requests, runOptions("candidate"));
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
  };
  const base = await runOne("baseline", items, "");
  const cand = await runOne("candidate", items, "");
  const scoring = await scoreParted(partedAnswers(items, base, cand));
  const floor =
    again.length > 0 && !deps.signal?.aborted
      ? await runOne("baseline", again, " again (its own flips)")
      : NO_REPLIES;
  if (deps.signal?.aborted) return null;
  const scored = new Map<string, TokenLogprobs[] | null>(
    (scoring?.scored ?? []).map((s) => [s.id, s.tokens]),
  );
  const answers = answersOf(
    items,
    { baseline: base.replies, candidate: cand.replies, again: floor.replies },
    scored,
  );
  return compareAccuracy(a.suite.name, answers, rule, {
    logprobs: { baseline: base.logprobs, candidate: cand.logprobs },
    seconds: { baseline: base.seconds, candidate: cand.seconds, again: floor.seconds },
    scoring: scoring
      ? {
          items: scoring.scored.length,
          scored: scoring.scored.filter((s) => s.tokens !== null).length,
          supported: scoring.supported,
        }
      : null,
  });
}
