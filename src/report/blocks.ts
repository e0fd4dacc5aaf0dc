// Markdown building blocks shared by the comment's sections.

/** A collapsible section. */
export function details(summary: string, body: string): string {
  return `<details><summary>${summary}</summary>\n\n${body}\n\n</details>`;
}

/** Mermaid plot colours, strong enough to tell apart, in series order, and their names for legends. */
export const PALETTE = ["#1f77b4", "#d62728", "#7f7f7f"];
export const COLOR_NAMES = ["blue", "red", "grey"];

/** The Mermaid directive that colours an xychart's plots (bars and lines, in order). */
export const chartColors = (plots: number): string =>
  `%%{init: {"themeVariables": {"xyChart": {"plotColorPalette": "${PALETTE.slice(0, plots).join(", ")}"}}}}%%`;
