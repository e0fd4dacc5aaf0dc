// A gate's page: the verdict and headline as in the comment, then the
// pictures of why — the rule per gated metric, the latency distributions,
// the worst pair's timeline (and a surge's), the capacity curves — each with
// its numbers beside it, then the comment's tables, then each request.

import type { CapacityRun } from "../capacity/run.ts";
import type { Arm } from "../common/arms.ts";
import { errorMessage } from "../common/errors.ts";
import type { TrialTimeline } from "../metrics/timeline.ts";
import { cellText } from "../report/blocks.ts";
import { budgetTable } from "../report/budgets.ts";
import { capacityDetails, capacitySection } from "../report/capacity-markdown.ts";
import { method } from "../report/details.ts";
import { context, metricTable } from "../report/metric-table.ts";
import { nextStep } from "../report/next-step.ts";
import { scalingWorstPair } from "../report/scaling-markdown.ts";
import { outcomes, perTrial, selfChecks, servers } from "../report/sections.ts";
import { serverViewSection } from "../report/server-view.ts";
import { SUITE_RENDER } from "../report/suites.ts";
import { surgeWorstPair } from "../report/surge-markdown.ts";
import { timelinePick, worstPair } from "../report/timeline-chart.ts";
import type { RequestSample } from "../requests/sample.ts";
import type { ConfigDescription, GateResults } from "../results/model.ts";
import { capacityFigure } from "./capacity.ts";
import { forestFigures } from "./forest.ts";
import { el, type Html, join, section, text } from "./html.ts";
import { judgeFigure } from "./judge.ts";
import { latencyFigures } from "./latency.ts";
import { markdownHtml } from "./markdown.ts";
import { pageShell, requestsSection } from "./shell.ts";
import { ARM_COLORS } from "./svg.ts";
import { timelineFigure } from "./timeline.ts";

const ARMS: readonly Arm[] = ["baseline", "candidate"];
const md = (...parts: (string | null)[]) =>
  markdownHtml(parts.filter((p): p is string => Boolean(p)).join("\n\n"));

function armSeries(r: GateResults) {
  return ARMS.map((arm) => ({
    name: arm,
    color: ARM_COLORS[arm],
    reports: r.trials.filter((t) => t.arm === arm).map((t) => t.report),
  }));
}

/** The worst pair's timeline: the comment's choice, else the largest change of TTFT. */
async function pairTimeline(r: GateResults): Promise<Html | null> {
  const chosen = timelinePick(r) ?? {
    pair: worstPair(r, "ttft"),
    why: "the largest change of TTFT",
  };
  if (chosen.pair === null) return null;
  const pair = chosen.pair;
  const timelines = ARMS.flatMap((arm) => {
    const t = r.trials.find((x) => x.pair === pair && x.arm === arm)?.report.timeline;
    return t ? [{ name: arm, color: ARM_COLORS[arm], timeline: t }] : [];
  });
  if (timelines.length === 0) return null;
  const caption = `Pair ${pair + 1}, ${chosen.why}: per ${timelines[0]?.timeline.bucket_s ?? 1} s, each arm's p95 TTFT and ITL of the requests due, the requests offered and completed, failures, and the server's queue when scraped.`;
  return timelineFigure("timeline", caption, timelines);
}

/** Both arms' timelines in one pair of a suite's trials. */
function pairTimelines(
  trials: readonly { pair: number; arm: Arm; timeline: TrialTimeline | null }[],
  pair: number,
) {
  return ARMS.flatMap((arm) => {
    const t = trials.find((x) => x.pair === pair && x.arm === arm)?.timeline;
    return t ? [{ name: arm, color: ARM_COLORS[arm], timeline: t }] : [];
  });
}

async function surgeTimeline(r: GateResults): Promise<Html | null> {
  const s = r.surge;
  const pair = s ? surgeWorstPair(s) : null;
  if (!s || pair === null) return null;
  const timelines = pairTimelines(s.trials, pair);
  if (timelines.length === 0) return null;
  const marks = [
    { t_s: s.span.startS, label: "surge starts" },
    { t_s: s.span.endS, label: "surge ends" },
  ];
  const caption = `Surge, pair ${pair + 1} (where the candidate recovered worst): ${s.steady_per_s} → ${s.surge_per_s} req/s between the dashed lines, then steady again.`;
  return timelineFigure("surge-timeline", caption, timelines, marks);
}

/** The scaling scenario's pair where the candidate reacted worst: replicas beside load, queue and TTFT. */
async function scalingTimeline(r: GateResults): Promise<Html | null> {
  const s = r.scaling;
  const pair = s ? scalingWorstPair(s) : null;
  if (!s || pair === null) return null;
  const timelines = pairTimelines(s.trials, pair);
  if (timelines.length === 0) return null;
  const marks = [
    { t_s: s.span.stepS, label: "step up" },
    { t_s: s.span.downS, label: "step down" },
    { t_s: s.span.hoverS, label: "hover" },
  ];
  const caption = `Scaling, pair ${pair + 1} (where the candidate reacted worst): ${s.steady_per_s} → ${s.step_per_s} req/s between the first two dashed lines, steady again, then hovering ±10 % around ${s.hover_per_s} req/s from the third.`;
  return timelineFigure("scaling-timeline", caption, timelines, marks);
}

async function capacitySectionHtml(c: CapacityRun, config: ConfigDescription): Promise<Html> {
  return section(
    "capacity-curves",
    "Capacity",
    md(capacitySection(c, config.slo.ttft_ms)),
    await capacityFigure(
      ARMS.map((arm) => ({ name: arm, color: ARM_COLORS[arm], sweep: c.arms[arm] })),
    ),
    md(capacityDetails(c)),
  );
}

function tables(r: GateResults, config: ConfigDescription): Html {
  const suites = Object.values(SUITE_RENDER);
  return join([
    section("outcomes", "Outcomes and self-checks", md(outcomes(r), selfChecks(r), servers(r))),
    r.server_view ? section("server-view", "The server's view", md(serverViewSection(r))) : null,
    ...suites.map((s) => {
      const body = [s.section(r), s.details(r)].filter(Boolean);
      return body.length > 0 ? md(...body) : null;
    }),
    section("trials", "Per trial, and the method", md(perTrial(r, config), method(config))),
  ]);
}

/**
 * A section of charts: none drawn, no section; one that cannot be drawn (a
 * histogram a results file garbled) says so, and the rest of the page stands.
 */
async function drawn(
  id: string,
  title: string,
  figures: () => Promise<(Html | null)[]>,
): Promise<Html | null> {
  try {
    const made = (await figures()).filter((f): f is Html => f !== null);
    return made.length > 0 ? section(id, title, ...made) : null;
  } catch (error) {
    return section(id, title, el("p", {}, text(`Not drawn: ${errorMessage(error)}`)));
  }
}

async function measuredSections(
  r: GateResults,
  config: ConfigDescription,
  sample: RequestSample | null,
): Promise<Html[]> {
  const series = armSeries(r);
  const colors = { baseline: ARM_COLORS.baseline, candidate: ARM_COLORS.candidate };
  return [
    md(metricTable(r, config), budgetTable(r), context(r, config)),
    await drawn("forest", "The rule, pair by pair", () =>
      forestFigures(r.comparisons, r.trials, config.percentile),
    ),
    await drawn("latency", "Latency distributions", () => latencyFigures(series)),
    await drawn("timelines", "Timelines", async () => [
      await pairTimeline(r),
      await surgeTimeline(r),
      await scalingTimeline(r),
    ]),
    r.capacity ? await capacitySectionHtml(r.capacity, config) : null,
    await drawn("judge-outcomes", "Open-ended answers, judged", async () => [
      r.judge ? await judgeFigure(r.judge) : null,
    ]),
    tables(r, config),
    await requestsSection(sample, colors),
  ].filter((h): h is Html => h !== null);
}

/** The page of a gate's results; `sample`: its requests file's, when one was read. */
export async function gatePage(r: GateResults, sample: RequestSample | null): Promise<string> {
  const step = nextStep(r);
  const lead = md(
    // A run's own texts on one line each, without backticks: none opens a block that eats the rest.
    ...r.warnings.map((w) => `> ⚠️ **Warning:** ${cellText(w, 2000)}`),
    ...(r.guards.length > 0
      ? ["No performance verdict: the measurement cannot be trusted as it is."]
      : []),
    ...r.guards.map((g) => `- ${cellText(g.message, 2000)}`),
    step ? `**Next step:** ${step}.` : null,
  );
  const body =
    r.config && (r.trials.length > 0 || r.capacity)
      ? await measuredSections(r, r.config, sample)
      : [];
  return pageShell({
    title: `llm-perf-gate: ${r.verdict} — ${r.headline}`,
    verdict: r.verdict,
    facts: [
      `results ${r.schema}, written ${r.created_at} by ${r.tool.name} ${r.tool.version}`,
      ...(r.config
        ? [
            `baseline ${r.config.baseline.model} at ${r.config.baseline.url}`,
            `candidate ${r.config.candidate.model} at ${r.config.candidate.url}`,
          ]
        : []),
    ],
    body: [lead, ...body],
  });
}
