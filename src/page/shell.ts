// What every page has: the header (the title as the verdict's banner, the
// facts of where the numbers come from), the requests section, the footer.

import type { RequestSample } from "../requests/sample.ts";
import { documentHtml, el, type Html, section, text } from "./html.ts";
import { scatterFigure } from "./scatter.ts";

export interface PageParts {
  title: string;
  /** The banner's colour: a verdict (pass, fail, …) or none. */
  verdict: string | null;
  facts: readonly string[];
  body: readonly Html[];
}

export function pageShell(p: PageParts): string {
  const header = el(
    "header",
    {},
    el("h1", { class: `verdict ${p.verdict ?? ""}`.trim() }, text(p.title)),
    el("ul", { class: "muted" }, ...p.facts.map((f) => el("li", {}, text(f)))),
  );
  const footer = el(
    "footer",
    { class: "muted" },
    text(
      "One self-contained page: its charts are SVG drawn when it was written; it runs no script and loads nothing.",
    ),
  );
  return documentHtml(p.title, el("main", {}, header, ...p.body, footer));
}

/** The page in place of one that could not be drawn: why, and where the record is. */
export function fallbackPage(why: string): string {
  return pageShell({
    title: "llm-perf-gate: the HTML report could not be drawn",
    verdict: "error",
    facts: [],
    body: [
      el("p", {}, text(`${why}. The results file is the record; its comment says the verdict.`)),
    ],
  });
}

/** The per-request scatter, or why there is none. */
export async function requestsSection(
  sample: RequestSample | null,
  colors: Record<string, string>,
): Promise<Html> {
  const why = (words: string) => section("requests", "Per request", el("p", {}, text(words)));
  if (sample === null) return why("No requests file beside the results: no per-request view.");
  const drawn = sample.points.some((p) => p.ttftMs !== null && p.promptTokens !== null);
  const notes = [
    sample.skipped > 0 ? `${sample.skipped} lines were not requests and were skipped.` : "",
    sample.stopped ? `${sample.source}: ${sample.stopped}.` : "",
  ].filter(Boolean);
  return section(
    "requests",
    "Per request",
    drawn
      ? await scatterFigure(sample, colors)
      : el("p", {}, text(`${sample.source} holds no request with a first token to draw.`)),
    ...notes.map((n) => el("p", { class: "muted" }, text(n))),
  );
}
