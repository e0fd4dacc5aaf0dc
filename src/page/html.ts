// The page's HTML: every text escaped on its way in, the document's shell
// with a policy that lets nothing run and nothing load (the charts are inline
// SVG, the style inline), and the blocks a section is made of.

/** Text as HTML text or an attribute's value: nothing in it is markup. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Markup this module made (escaped text, or SVG from the renderer): the only thing a block takes raw. */
export interface Html {
  readonly html: string;
}

/**
 * A results file read back has its texts neutralized for the comment ("<" as
 * "&lt;", a zero-width space in "http://", results/trust.ts): the page shows
 * the characters they stand for, escaped again on their way in.
 */
export const plainText = (value: string): string =>
  value
    .replaceAll("\u200b", "")
    .replace(/&(lt|gt|amp);/g, (_, name: string) =>
      name === "lt" ? "<" : name === "gt" ? ">" : "&",
    );

export const raw = (html: string): Html => ({ html });
export const text = (value: string): Html => raw(escapeHtml(plainText(value)));
export const join = (parts: readonly (Html | null)[]): Html =>
  raw(
    parts
      .filter((p): p is Html => p !== null)
      .map((p) => p.html)
      .join("\n"),
  );

/** A tag around content; the attributes' values are escaped. */
export function el(tag: string, attrs: Record<string, string>, ...content: (Html | null)[]): Html {
  const attributes = Object.entries(attrs)
    .map(([k, v]) => ` ${k}="${escapeHtml(v)}"`)
    .join("");
  return raw(`<${tag}${attributes}>${join(content).html}</${tag}>`);
}

/** A table of text cells: the first row is the header. */
export function table(rows: readonly (readonly string[])[], caption?: string): Html {
  const [head, ...body] = rows;
  if (!head) return raw("");
  const row = (cells: readonly string[], tag: "th" | "td") =>
    el("tr", {}, ...cells.map((c) => el(tag, {}, text(c))));
  return el(
    "table",
    {},
    caption ? el("caption", {}, text(caption)) : null,
    el("thead", {}, row(head, "th")),
    el("tbody", {}, ...body.map((r) => row(r, "td"))),
  );
}

/** A chart and its numbers beside it, as a figure with a caption. */
export function figure(id: string, caption: string, svg: string, numbers: Html): Html {
  return el(
    "figure",
    { id, class: "chart" },
    el("div", { class: "svg" }, raw(svg)),
    el("div", { class: "numbers" }, numbers),
    el("figcaption", {}, text(caption)),
  );
}

export function section(id: string, title: string, ...content: (Html | null)[]): Html {
  return el("section", { id }, el("h2", {}, text(title)), ...content);
}

/** Nothing runs, nothing loads: inline style and data: images only. */
export const CONTENT_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1180px; padding: 0 24px 48px; color: #1b1f24; }
header { border-bottom: 1px solid #ddd; padding: 12px 0; }
h1 { font-size: 20px; margin: 8px 0; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #eee; padding-bottom: 4px; }
h3, h4 { font-size: 14px; margin: 16px 0 6px; }
.verdict { font-size: 15px; padding: 8px 12px; border-radius: 6px; background: #f6f8fa; }
.verdict.fail, .verdict.error { background: #ffebe9; }
.verdict.pass { background: #dafbe1; }
svg.mark { vertical-align: -0.15em; }
.verdict.inconclusive, .verdict.cancelled { background: #fff8c5; }
figure.chart { display: grid; grid-template-columns: minmax(0, auto) minmax(260px, 1fr); gap: 16px; margin: 12px 0 24px; align-items: start; }
figure.chart figcaption { grid-column: 1 / -1; color: #57606a; font-size: 13px; }
.svg svg { max-width: 100%; height: auto; }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 13px; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
.numbers td:not(:last-child) { white-space: nowrap; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
pre, code { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; }
pre { background: #f6f8fa; padding: 8px; overflow-x: auto; white-space: pre-wrap; }
.muted { color: #57606a; }
`;

/** The whole page. */
export function documentHtml(title: string, body: Html): string {
  return [
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CONTENT_POLICY}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${escapeHtml(plainText(title))}</title>`,
    `<style>${STYLE}</style>`,
    "</head>",
    `<body>\n${body.html}\n</body>`,
    "</html>",
    "",
  ].join("\n");
}
