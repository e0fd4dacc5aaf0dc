// The comment's own sections on the page: the same markdown, rendered by
// markdown-it with raw HTML and links off (every `<` in a text from the
// results file stays text). The comment's collapsible blocks become headings,
// its Mermaid charts are left out (the page draws its own).

import MarkdownIt from "markdown-it";
import { type Html, raw } from "./html.ts";
import { drawMarks } from "./marks.ts";

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
// No link or image from a run's texts (a server's error body is one): a link's markdown stays text.
md.validateLink = () => false;
// A fenced block as markdown-it parsed it: a Mermaid chart is dropped, any other drawn as code.
const drawFence = md.renderer.rules.fence;
md.renderer.rules.fence = (tokens, idx, options, env, self) =>
  tokens[idx]?.info.trim() === "mermaid"
    ? ""
    : (drawFence?.(tokens, idx, options, env, self) ?? "");

/** A summary line the comment's details() wrote, as a heading's text. */
const SUMMARY = /^<details><summary>(.*)<\/summary>$/;

/** The markdown without the comment's collapsible wrappers (their summaries as headings). */
export function pageMarkdown(markdown: string): string {
  return markdown
    .split("\n")
    .flatMap((line) => {
      const summary = SUMMARY.exec(line);
      if (summary) return [`#### ${summary[1]}`];
      return line === "</details>" ? [] : [line];
    })
    .join("\n");
}

/** Markdown as HTML: raw HTML in it is shown as text. */
export function markdownHtml(markdown: string): Html {
  return raw(drawMarks(md.render(pageMarkdown(markdown))));
}
