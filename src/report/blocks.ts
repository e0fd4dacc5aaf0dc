// Markdown building blocks shared by the comment's sections.

/** A collapsible section. */
/** Text from a results file in a table cell or a bullet: nothing that ends the cell, the row or a span. */
export const cellText = (text: string, maxChars: number): string =>
  text.replace(/[|`\r\n]+/g, " ").slice(0, maxChars);

export function details(summary: string, body: string): string {
  return `<details><summary>${summary}</summary>\n\n${body}\n\n</details>`;
}

/**
 * Text (a log tail, a response) as a fenced block: at most `maxLines` lines of
 * `maxLineChars`, in a fence longer than any run of backticks inside it.
 */
export function fenced(text: string, maxLines = 20, maxLineChars = 300): string[] {
  const lines = text.split("\n").slice(-maxLines);
  const body = lines.map((l) => (l.length > maxLineChars ? `${l.slice(0, maxLineChars)}…` : l));
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  return [`${fence}text`, ...body, fence];
}

/** Mermaid plot colours, strong enough to tell apart, in series order, and their names for legends. */
export const PALETTE = ["#1f77b4", "#d62728", "#7f7f7f", "#2ca02c", "#ff7f0e", "#9467bd"] as const;
export const COLOR_NAMES = ["blue", "red", "grey", "green", "orange", "purple"];

/** The Mermaid directive that colours an xychart's plots (bars and lines, in order). */
export const chartColors = (plots: number): string =>
  `%%{init: {"themeVariables": {"xyChart": {"plotColorPalette": "${PALETTE.slice(0, plots).join(", ")}"}}}}%%`;
