// The comment's own sections on the page: the same markdown, rendered by
// markdown-it with raw HTML off (every `<` in a text from the results file
// stays text). The comment's collapsible blocks become headings, its Mermaid
// charts are left out (the page draws its own).

import MarkdownIt from "markdown-it";
import { type Html, raw } from "./html.ts";

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
// No link or image from a run's texts (a server's error body is one): a link's markdown stays text.
md.validateLink = () => false;

/** A summary line the comment's details() wrote, as a heading's text. */
const SUMMARY = /^<details><summary>(.*)<\/summary>$/;

/** The markdown without the comment's HTML wrappers and Mermaid charts. */
export function pageMarkdown(markdown: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split("\n")) {
    if (fence !== null) {
      if (line.trim() === fence) fence = null;
      continue;
    }
    const mermaid = /^(`{3,})mermaid\s*$/.exec(line);
    if (mermaid) {
      fence = mermaid[1] ?? "```";
      continue;
    }
    const summary = SUMMARY.exec(line);
    if (summary) out.push(`#### ${summary[1]}`);
    else if (line !== "</details>") out.push(line);
  }
  return out.join("\n");
}

/** Markdown as HTML: raw HTML in it is shown as text. */
export function markdownHtml(markdown: string): Html {
  return raw(md.render(pageMarkdown(markdown)));
}
