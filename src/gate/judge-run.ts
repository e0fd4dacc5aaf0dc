// The judge suite's runs inside a gate: the judge calibrated first, on pairs
// whose better side is known (a judge that fails its calibration costs the
// arms nothing: their answers are not asked for); then every item on the
// baseline, on the candidate, and a share on the baseline again (the judge's
// own A/A floor), each at a bounded concurrency apart from the latency
// trials; then every pair of different answers judged in both orders — and
// the paired comparison.

import { floorItems } from "../accuracy/answers.ts";
import { futileAt } from "../accuracy/looks.ts";
import type { AccuracyRunOptions, ItemReply } from "../accuracy/run.ts";
import type { Arm } from "../common/arms.ts";
import { plural } from "../common/format.ts";
import { Judge, judgeAll, type OrderVerdict } from "../judge/ask.ts";
import type { PairJudgement } from "../judge/calibrate.ts";
import { summarizeCalibration } from "../judge/calibrate.ts";
import { builtinPairs, type CalibrationPair } from "../judge/calibration.ts";
import {
  type ArmText,
  asDropRule,
  compareJudged,
  type ItemJudgement,
  type JudgeReport,
  type JudgeRule,
} from "../judge/compare.ts";
import { type JudgeItem, referenceShare } from "../judge/items.ts";
import { type JudgeOptions, plannedCalls } from "../judge/options.ts";
import type { JudgeAsk } from "../judge/prompt.ts";
import { origin } from "../openai/target.ts";
import { type AnswerRun, answerOn } from "./answers.ts";
import { armsOfLook, runLooks } from "./looks.ts";
import type { GateDeps, GateOptions } from "./options.ts";
import type { SuiteContext } from "./suite.ts";

/** An answer's start kept in the results; a prompt's. */
const EXCERPT_CHARS = 600;
const PROMPT_CHARS = 300;

const lastUser = (item: JudgeItem): string =>
  item.messages.findLast((m) => m.role === "user")?.content ?? "";

function armText(reply: ItemReply | undefined): ArmText {
  if (!reply) return { excerpt: "", chars: 0, error: "not asked", lost: false };
  return {
    excerpt: reply.text.slice(0, EXCERPT_CHARS),
    chars: reply.error === null ? reply.text.trim().length : 0,
    error: reply.error?.slice(0, 300) ?? null,
    // A timeout (before the headers or while the body came) or a dropped connection says
    // nothing of what the model would answer.
    lost: reply.error !== null && (reply.exchange.status === 0 || reply.exchange.timedOut),
  };
}

/** An item's answers and verdicts before its outcome is made. */
type Found = Omit<ItemJudgement, "outcome">;

/** A pair of answers to judge: settled without the judge, or its two orders' asks. */
interface Pairing {
  judgement: Found;
  texts: [string, string] | null;
}

function pairing(
  item: JudgeItem,
  first: ItemReply | undefined,
  second: ItemReply | undefined,
): Pairing {
  const [a, b] = [armText(first), armText(second)];
  const [ta, tb] = [
    first?.error ? "" : (first?.text ?? "").trim(),
    second?.error ? "" : (second?.text ?? "").trim(),
  ];
  const lost = a.lost || b.lost;
  const settled = lost ? null : ta === "" || tb === "" ? "empty" : ta === tb ? "identical" : null;
  return {
    judgement: {
      id: item.id,
      family: item.family,
      prompt: lastUser(item).slice(0, PROMPT_CHARS),
      baseline: a,
      candidate: b,
      settled,
      orders: [],
    },
    texts: lost || settled !== null ? null : [ta, tb],
  };
}

const askOf = (
  source: Pick<JudgeItem, "messages" | "reference" | "rubric">,
  a: string,
  b: string,
): JudgeAsk => ({
  messages: source.messages,
  reference: source.reference,
  rubric: source.rubric,
  a,
  b,
});

/** Both orders of each pair judged: A = the first text, then A = the second. */
async function judgeBoth(
  judge: Judge,
  pairs: readonly {
    source: Pick<JudgeItem, "messages" | "reference" | "rubric">;
    texts: [string, string];
  }[],
  j: JudgeOptions,
  signal: AbortSignal | undefined,
): Promise<OrderVerdict[][]> {
  const asks = pairs.flatMap(({ source, texts: [x, y] }) => [
    askOf(source, x, y),
    askOf(source, y, x),
  ]);
  const verdicts = await judgeAll(judge, asks, j.concurrency, signal);
  return pairs.map((_, k) => verdicts.slice(2 * k, 2 * k + 2));
}

/**
 * The calibration's pairs: the built-in ones (the reference shown as most
 * items show one) and the user's; without a calibration, one built-in pair,
 * asked before the arms are: a judge that cannot answer costs them nothing.
 */
function calibrationPairs(j: JudgeOptions): CalibrationPair[] {
  const c = j.calibration;
  const withReference = referenceShare(j.suite.items) >= 0.5;
  if (!c) return builtinPairs(1, withReference).slice(0, 1);
  return [...builtinPairs(c.perKind, withReference), ...c.labelled];
}

/** Why the judge is not asked further: it refused us, or (uncalibrated) could not be read on its first pair. */
function stoppedBy(judge: Judge, j: JudgeOptions, pairs: readonly PairJudgement[]): string | null {
  if (judge.fatal) return judge.fatal;
  const first = pairs[0]?.orders ?? [];
  if (j.calibration || first.some((o) => o.winner !== null)) return null;
  return first.find((o) => o.error !== null)?.error ?? "no readable verdict on the first pair";
}

/** Seconds each part of the suite took. */
type Seconds = JudgeReport["seconds"];

/** One run of the suite: the judge, the options, and what each part took. */
class JudgeRun {
  readonly seconds: Seconds = { calibration: 0, baseline: 0, candidate: 0, again: 0, judge: 0 };
  private readonly clock: () => number;
  private readonly options: GateOptions;
  private readonly j: JudgeOptions;
  private readonly judge: Judge;
  private readonly deps: GateDeps;
  private readonly at: SuiteContext;

  constructor(
    options: GateOptions,
    j: JudgeOptions,
    judge: Judge,
    deps: GateDeps,
    at: SuiteContext,
  ) {
    [this.options, this.j, this.judge, this.deps, this.at] = [options, j, judge, deps, at];
    const nowMs = deps.nowMs ?? (() => performance.now());
    this.clock = () => nowMs() / 1000;
  }

  /** `part` timed into its seconds (added up over the looks). */
  private async timed<T>(part: keyof Seconds, run: () => Promise<T>): Promise<T> {
    const started = this.clock();
    try {
      return await run();
    } finally {
      this.seconds[part] = Math.round((this.seconds[part] + this.clock() - started) * 10) / 10;
    }
  }

  /** Both orders of every calibration pair (without a calibration, of one pair: does the judge answer?). */
  calibrate(): Promise<PairJudgement[]> {
    const { j } = this;
    const pairs = calibrationPairs(j);
    const where = `${j.judge.model} at ${origin(j.judge)}`;
    this.at.log(
      j.calibration
        ? `judge: calibrating ${where} on ${plural(pairs.length, "pair")} whose better answer is known, both orders`
        : `judge: asking ${where} one pair first (judge-calibration none: its verdicts will be shown, not gated)`,
    );
    return this.timed("calibration", async () => {
      const texts = pairs.map((p) => ({
        source: p,
        texts: [p.first, p.second] as [string, string],
      }));
      const verdicts = await judgeBoth(this.judge, texts, j, this.deps.signal);
      return pairs.map((p, k) => ({
        id: p.id,
        kind: p.kind,
        better: p.better,
        orders: verdicts[k] ?? [],
      }));
    });
  }

  /** A look's items on the baseline and the candidate (alternating which first), a share on the baseline again; each reply by item. */
  async answers(
    items: readonly JudgeItem[],
    again: readonly JudgeItem[],
    candidateFirst: boolean,
  ): Promise<Record<"baseline" | "candidate" | "again", Map<string, ItemReply>>> {
    const { options, j, deps, at } = this;
    const answering: AnswerRun = {
      suite: "judge",
      concurrency: j.concurrency,
      runOptions: (arm: Arm): AccuracyRunOptions => ({
        concurrency: j.concurrency,
        timeoutS: options[arm].timeoutS,
        topLogprobs: 0,
        seed: options.baseline.workload.seed,
        vllmSampling: j.vllmSampling,
        ...(deps.signal ? { signal: deps.signal } : {}),
      }),
      indexOf: new Map(j.suite.items.map((i, k) => [i.id, k])),
    };
    const answer = (
      part: "baseline" | "candidate" | "again",
      arm: Arm,
      list: readonly JudgeItem[],
      what: string,
    ) =>
      this.timed(part, async () => {
        const replies = await answerOn(options, deps, at, answering, { arm, list, what });
        return new Map(replies.replies.map((r) => [r.id, r]));
      });
    // The arms' blocks alternate in time (B C, C B, …): a server's drift falls on both.
    const candidate = candidateFirst ? await answer("candidate", "candidate", items, "") : null;
    const baseline = await answer("baseline", "baseline", items, "");
    return {
      baseline,
      candidate: candidate ?? (await answer("candidate", "candidate", items, "")),
      again: await answer("again", "baseline", again, " again (the judge's own floor)"),
    };
  }

  /** Both orders of every pair of different answers, into its item. */
  async judgeItems(pairings: readonly { p: Pairing; source: JudgeItem }[]): Promise<void> {
    const asked = pairings.flatMap(({ p, source }) =>
      p.texts ? [{ p, source, texts: p.texts }] : [],
    );
    this.at.log(
      `judge: ${plural(asked.length, "pair")} of different answers, both orders, ${this.j.concurrency} at a time`,
    );
    const verdicts = await this.timed("judge", () =>
      judgeBoth(this.judge, asked, this.j, this.deps.signal),
    );
    asked.forEach(({ p }, k) => {
      p.judgement.orders = verdicts[k] ?? [];
    });
  }
}

export async function runJudge(
  options: GateOptions,
  j: JudgeOptions,
  rule: JudgeRule,
  deps: GateDeps,
  at: SuiteContext,
): Promise<JudgeReport | null> {
  const runOptions = {
    concurrency: j.concurrency,
    timeoutS: j.judgeTimeoutS,
    seed: options.baseline.workload.seed,
  };
  const judge = new Judge(
    j.judge,
    { ...runOptions, ...(deps.signal ? { signal: deps.signal } : {}) },
    deps.nowMs ?? (() => performance.now()),
  );
  try {
    const run = new JudgeRun(options, j, judge, deps, at);
    const pairs = await run.calibrate();
    const stopped = stoppedBy(judge, j, pairs);
    const report = (items: Found[], floor: Found[], looks?: JudgeReport["looks"]) => {
      const facts = {
        calls: judge.sent,
        planned_calls: plannedCalls(j),
        seconds: { ...run.seconds },
        stopped,
        ...(looks ? { looks } : {}),
      };
      return compareJudged(
        j.suite.name,
        { items, floor, pairs },
        rule,
        facts,
        j.calibration !== null,
      );
    };
    if (deps.signal?.aborted) return null;
    const calibration = j.calibration ? summarizeCalibration(pairs, rule) : null;
    if (stopped || (calibration && !calibration.trusted)) {
      const why = stopped ?? calibration?.reasons.join("; ");
      at.log(`judge: not trusted (${why}): the arms are not asked`);
      return report([], []);
    }
    const itemPairs: { p: Pairing; source: JudgeItem }[] = [];
    const floorPairs: { p: Pairing; source: JudgeItem }[] = [];
    return await runLooks("judge", j.suite.items, j.firstLook, at.log, {
      look: async (block, _asked, lookAt) => {
        const again = floorItems(block, j.floorShare);
        const candidateFirst = armsOfLook(lookAt.at)[0] === "candidate";
        const replies = await run.answers(block, again, candidateFirst);
        if (deps.signal?.aborted) return null;
        const blockPairs = block.map((i) => ({
          p: pairing(i, replies.baseline.get(i.id), replies.candidate.get(i.id)),
          source: i,
        }));
        const blockFloor = again.map((i) => ({
          p: pairing(i, replies.baseline.get(i.id), replies.again.get(i.id)),
          source: i,
        }));
        await run.judgeItems([...blockPairs, ...blockFloor]);
        if (deps.signal?.aborted) return null;
        itemPairs.push(...blockPairs);
        floorPairs.push(...blockFloor);
        return report(
          itemPairs.map(({ p }) => p.judgement),
          floorPairs.map(({ p }) => p.judgement),
          lookAt,
        );
      },
      futile: (last, looks) => {
        const o = last.overall;
        const n = o.baseline_wins + o.candidate_wins + o.ties;
        // The net loss's best case over the items left (the judge's untrusted reasons aside).
        return futileAt(
          o.baseline_wins,
          o.candidate_wins,
          n,
          asDropRule(rule),
          looks.map((x) => Math.round((x * n) / Math.max(1, o.items))),
        );
      },
    });
  } finally {
    await judge.close();
  }
}
