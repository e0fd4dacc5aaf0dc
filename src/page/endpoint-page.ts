// The page of one endpoint: a `measure` trial (its table, latency curves and
// timeline) or a `sweep` (its capacity curve and points), each with its
// requests when the command wrote a requests file.

import type { SweepReport } from "../capacity/run.ts";
import { formatMeasureReport } from "../report/measure-text.ts";
import { renderSweepMarkdown } from "../report/sweep-markdown.ts";
import type { RequestSample } from "../requests/sample.ts";
import type { TrialReport } from "../trial/measure.ts";
import { capacityFigure } from "./capacity.ts";
import { el, section, text } from "./html.ts";
import { latencyFigures } from "./latency.ts";
import { markdownHtml } from "./markdown.ts";
import { pageShell, requestsSection } from "./shell.ts";
import { ARM_COLORS } from "./svg.ts";
import { timelineFigure } from "./timeline.ts";

const ENDPOINT = { name: "endpoint", color: ARM_COLORS.baseline };
const COLORS = { [ENDPOINT.name]: ENDPOINT.color };

const facts = (r: { created_at: string; target: { url: string; model: string } }) => [
  `written ${r.created_at}`,
  `${r.target.model} at ${r.target.url}`,
];

/** A `measure` report's page. */
export async function measurePage(r: TrialReport, sample: RequestSample | null): Promise<string> {
  const timeline = r.timeline
    ? await timelineFigure(
        "timeline",
        `The trial per ${r.timeline.bucket_s} s: p95 TTFT and ITL of the requests due, offered, completed, failures, the server's queue when scraped.`,
        [{ ...ENDPOINT, timeline: r.timeline }],
      )
    : null;
  return pageShell({
    title: `llm-perf-gate measure: ${r.target.model}`,
    verdict: r.validity.valid ? null : "error",
    facts: facts(r),
    body: [
      section("summary", "The trial", el("pre", {}, text(formatMeasureReport(r)))),
      section(
        "latency",
        "Latency distributions",
        ...(await latencyFigures([{ ...ENDPOINT, reports: [r] }])),
      ),
      section("timelines", "Timeline", timeline),
      await requestsSection(sample, COLORS),
    ],
  });
}

/** A `sweep` report's page. */
export async function sweepPage(
  r: SweepReport,
  sample: RequestSample | null,
  ttftSloMs: number | undefined,
): Promise<string> {
  return pageShell({
    title: `llm-perf-gate sweep: ${r.target.model}`,
    verdict: r.capacity.capacity_per_s === null ? "inconclusive" : null,
    facts: [...facts(r), `SLO ${r.slo}`],
    body: [
      section(
        "capacity-curves",
        "Capacity",
        await capacityFigure([{ ...ENDPOINT, sweep: r }]),
        markdownHtml(renderSweepMarkdown(r, ttftSloMs)),
      ),
      await requestsSection(sample, COLORS),
    ],
  });
}
