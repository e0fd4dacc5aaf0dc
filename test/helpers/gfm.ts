// What GitHub would make of a comment's tables, checked with a real GFM
// parser (markdown-it): every line that looks like a table row belongs to a
// parsed table, and every row has as many cells as its header. markdown-it,
// like GitHub, pads or cuts a row that does not fit — so the rows are counted
// in the source, not in the rendered table.

import MarkdownIt from "markdown-it";

const cells = (line: string) =>
  line
    .trim()
    .replace(/^\|/, "")
    .replace(/(?<!\\)\|$/, "")
    .split(/(?<!\\)\|/).length;

/** The table problems of a markdown document, in words; empty when there are none. */
export function tableProblems(markdown: string): string[] {
  const lines = markdown.split("\n");
  const tokens = new MarkdownIt({ html: true }).parse(markdown, {});
  const inTable = new Set<number>();
  const inCode = new Set<number>();
  const problems: string[] = [];
  for (const t of tokens) {
    if (!t.map) continue;
    const [start, end] = t.map;
    if (t.type === "fence" || t.type === "code_block") {
      for (let i = start; i < end; i++) inCode.add(i);
    }
    if (t.type !== "table_open") continue;
    const width = cells(lines[start] ?? "");
    for (let i = start; i < end; i++) {
      inTable.add(i);
      const n = cells(lines[i] ?? "");
      if (n !== width)
        problems.push(`line ${i + 1}: ${n} cells, the header has ${width}: ${lines[i]}`);
    }
  }
  lines.forEach((line, i) => {
    if (line.trim().startsWith("|") && !inTable.has(i) && !inCode.has(i))
      problems.push(`line ${i + 1} looks like a table row but is in no table: ${line}`);
  });
  return problems;
}
