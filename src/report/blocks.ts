// Markdown building blocks shared by the comment's sections.

/** A collapsible section. */
export function details(summary: string, body: string): string {
  return `<details><summary>${summary}</summary>\n\n${body}\n\n</details>`;
}
