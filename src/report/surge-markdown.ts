// The surge section of the comment: the load it was, both rules' numbers and
// verdicts, how each arm met the surge (shed at once, timed out, its queue);
// collapsed below, both arms' per-second p95 TTFT and queue through the
// surge, in the pair where the candidate recovered worst.

import type { Arm } from "../common/arms.ts";
import { count, percent, plural, signedPercent, signedPoints } from "../common/format.ts";
import type { SurgeReport, SurgeTrial } from "../gate/surge.ts";
import type { GateResults } from "../results/model.ts";
import type { SurgeReading } from "../stress/recovery.ts";
import type { SurgeCheck } from "../stress/surge-compare.ts";
import { COLOR_NAMES, cellText, chartColors, details } from "./blocks.ts";

const VERDICT_WORDS = { pass: "pass", fail: "**fail**", inconclusive: "inconclusive" } as const;

const seconds = (x: number) => `${count(x)} s`;
const bound = (x: number | null, shown: (v: number) => string) => (x === null ? "–" : shown(x));

/** An arm's mean time to recover, "≥" where every pair's was censored (never recovered in the window). */
function recoveryCell(c: SurgeCheck, arm: Arm): string {
  const censored = c.pairs.filter((p) => p.censored === arm || p.censored === "both").length;
  const shown = seconds(c[arm]);
  if (censored === 0) return shown;
  return censored === c.pairs.length
    ? `≥ ${shown}`
    : `${shown} (${censored} of ${c.pairs.length} not recovered)`;
}

function row(c: SurgeCheck): string {
  if (c.id === "recovery")
    return `| time to recover | ${recoveryCell(c, "baseline")} | ${recoveryCell(c, "candidate")} | ${signedPercent(c.change)} (${bound(c.change_lower, signedPercent)} … ${bound(c.change_upper, signedPercent)}) | ≤ ${signedPercent(c.tolerance)} | ${VERDICT_WORDS[c.verdict]} |`;
  return `| failed (or beyond the SLO, when set) from the surge on | ${percent(c.baseline)} | ${percent(c.candidate)} | ${signedPoints(c.change)} (${bound(c.change_lower, signedPoints)} … ${bound(c.change_upper, signedPoints)}) | ≤ ${signedPoints(c.tolerance)} | ${VERDICT_WORDS[c.verdict]} |`;
}

/** How an arm met the surge, summed over its pairs: shed at once, timed out, other failures, its deepest queue. */
function behaviour(s: SurgeReport, arm: Arm): string {
  const readings = s.pairs.map((p) => p[arm]);
  const sum = (f: (r: SurgeReading) => number) => readings.reduce((t, r) => t + f(r), 0);
  const [failed, shed, timedOut] = [
    sum((r) => r.failed),
    sum((r) => r.shed),
    sum((r) => r.timed_out),
  ];
  const queues = readings.flatMap((r) => (r.peak_waiting === null ? [] : [r.peak_waiting]));
  const censored = readings.filter((r) => r.recovery_censored).length;
  const parts = [
    failed === 0
      ? "failed nothing"
      : `failed ${failed} of ${sum((r) => r.scheduled)}: ${shed} shed at once (503, 529, 429), ${timedOut} timed out, ${failed - shed - timedOut} other`,
    queues.length > 0 ? `queue peaked at ${Math.max(...queues)}` : "queue not scraped",
    ...(censored > 0
      ? [
          `did not recover within ${s.span.scheduleEndS - s.span.endS} s in ${plural(censored, "pair")}`,
        ]
      : []),
  ];
  return `${arm} ${parts.join(", ")}`;
}

/** "3 seconds", or "3 buckets of 2 s" on a long trial's timeline. */
function settled(s: SurgeReport): string {
  const w = s.pairs[0]?.baseline.resolution_s ?? 1;
  return w === 1 ? `${s.settled_buckets} seconds` : `${s.settled_buckets} buckets of ${w} s`;
}

/** The headline's words when the surge failed. */
export function surgeSentence(s: SurgeReport): string {
  return s.comparison.checks
    .filter((c) => c.verdict === "fail")
    .map((c) =>
      c.id === "recovery"
        ? `after a surge to ${s.surge_per_s} req/s the candidate takes ${recoveryCell(c, "candidate")} to recover (the baseline ${recoveryCell(c, "baseline")}: ${signedPercent(c.change)})`
        : `the candidate fails or misses the SLO on ${percent(c.candidate)} of the requests from a surge on (the baseline ${percent(c.baseline)})`,
    )
    .join("; ");
}

/** The headline's words when the surge was left open. */
export function surgeOpenSentence(s: SurgeReport): string {
  const open = s.comparison.checks.filter((c) => c.verdict === "inconclusive");
  return `the surge's ${open.map((c) => (c.id === "recovery" ? "recovery time" : "failure rate")).join(" and ")} could not be decided (${open.map((c) => c.reason).join("; ")})`;
}

export function surge(r: GateResults): string {
  const s = r.surge;
  if (!s) return r.surge_skipped ? `### Surge\n\n${r.surge_skipped}` : "";
  const surgeS = s.span.endS - s.span.startS;
  return [
    "### Surge",
    "",
    `${s.steady_per_s} req/s, then ${s.surge_per_s} req/s for ${surgeS} s (${s.factor} × the ${s.relative_to === "capacity" ? "baseline's capacity" : "rate"}), then ${s.steady_per_s} req/s for ${s.span.scheduleEndS - s.span.endS} s; ${plural(s.pairs.length, "pair")} compared — ${VERDICT_WORDS[s.verdict]}`,
    "",
    "| | baseline | candidate | change | rule | verdict |",
    "|---|---|---|---|---|---|",
    ...s.comparison.checks.map(row),
    "",
    `Recovered: ${settled(s)} in a row with p95 TTFT within ${s.slo_ttft_ms !== null && s.pairs.some((p) => p.baseline.target_from === "slo") ? `the SLO (${s.slo_ttft_ms} ms)` : "10 % of the steady level before the surge"} and nothing failed but timeouts. ${behaviour(s, "baseline")}; ${behaviour(s, "candidate")}.`,
    ...s.notes.map((n) => `\n- ${cellText(n, 300)}`),
  ].join("\n");
}

/** The pair whose candidate recovered worst against its baseline. */
export function surgeWorstPair(s: SurgeReport): number | null {
  const recovery = s.comparison.checks.find((c) => c.id === "recovery");
  const worst = [...(recovery?.pairs ?? [])].sort((a, b) => b.d - a.d)[0];
  return worst?.pair ?? s.pairs[0]?.pair ?? null;
}

export function chart(
  title: string,
  label: string,
  b: number[],
  c: number[],
  step: number,
): string {
  const length = Math.max(b.length, c.length);
  const pad = (xs: number[]) => [...xs, ...Array<number>(length - xs.length).fill(0)];
  const round = (v: number) => Number(v.toPrecision(3));
  const top = Number((Math.max(1, ...b, ...c) * 1.15).toPrecision(2));
  return [
    "```mermaid",
    chartColors(2),
    "xychart-beta",
    `  title "${title}"`,
    `  x-axis "seconds from the trial's start" [${Array.from({ length }, (_, k) => `"${k * step}"`).join(", ")}]`,
    `  y-axis "${label}" 0 --> ${top}`,
    `  line [${pad(b).map(round).join(", ")}]`,
    `  line [${pad(c).map(round).join(", ")}]`,
    "```",
  ].join("\n");
}

/** Both arms' replica counts through a trial, when either was sampled. */
export function replicasChart(
  title: string,
  b: NonNullable<SurgeTrial["timeline"]>,
  c: NonNullable<SurgeTrial["timeline"]>,
): string[] {
  if (![...b.buckets, ...c.buckets].some((x) => typeof x.replicas === "number")) return [];
  // A bucket without a sample holds the last count (a reading skipped is not a fleet at 0).
  const counts = (t: typeof b) => {
    let last = 0;
    return t.buckets.map((x) => {
      if (typeof x.replicas === "number") last = x.replicas;
      return last;
    });
  };
  return ["", chart(`${title}: replicas`, "replicas", counts(b), counts(c), b.bucket_s)];
}

export function surgeDetails(r: GateResults): string {
  const s = r.surge;
  const pair = s ? surgeWorstPair(s) : null;
  if (!s || pair === null) return "";
  const trialOf = (arm: Arm): SurgeTrial | undefined =>
    s.trials.find((t) => t.pair === pair && t.arm === arm);
  const [b, c] = [trialOf("baseline")?.timeline, trialOf("candidate")?.timeline];
  if (!b || !c) return "";
  const ttft = (t: typeof b) => t.buckets.map((x) => x.ttft_p95_ms ?? 0);
  const queue = (t: typeof b) => t.buckets.map((x) => x.waiting ?? 0);
  const scraped = [...b.buckets, ...c.buckets].some((x) => typeof x.waiting === "number");
  const offered = (t: typeof b) => t.buckets.map((x) => x.offered / t.bucket_s);
  const body = [
    chart(
      `Surge pair ${pair + 1}: p95 TTFT (ms) per second`,
      "p95 TTFT (ms)",
      ttft(b),
      ttft(c),
      b.bucket_s,
    ),
    ...(scraped
      ? [
          "",
          chart(
            `Surge pair ${pair + 1}: the server's queue`,
            "requests waiting",
            queue(b),
            queue(c),
            b.bucket_s,
          ),
        ]
      : []),
    "",
    chart(
      `Surge pair ${pair + 1}: offered load (req/s)`,
      "requests due per second",
      offered(b),
      offered(c),
      b.bucket_s,
    ),
    ...replicasChart(`Surge pair ${pair + 1}`, b, c),
    "",
    `The surge runs from ${s.span.startS} s to ${s.span.endS} s. 0: no ok request was due in that second.`,
  ].join("\n");
  return details(
    `Surge: pair ${pair + 1}, where the candidate recovered worst (${COLOR_NAMES[0]}: baseline, ${COLOR_NAMES[1]}: candidate)`,
    body,
  );
}
