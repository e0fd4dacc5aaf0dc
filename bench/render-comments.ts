// Draws PR comments as GitHub would — GFM by markdown-it, Mermaid charts by
// mermaid — so the next engineer can look at one without a pull request.
// Writes one HTML page per comment; with Chromium installed, also a PNG of
// each and a check that every Mermaid chart rendered (no syntax error).
//
//   node bench/render-comments.ts [--out DIR] [comment.md ...]
//
// Default input: the golden comments in test/golden. Chromium: Debian's
// `chromium` package (apt-get install chromium), or CHROMIUM=/path/to/it.

import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import MarkdownIt from "markdown-it";

const ROOT = resolve(import.meta.dirname, "..");
const MERMAID = join(ROOT, "node_modules/mermaid/dist/mermaid.min.js");

const STYLE = `
body { font: 14px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1f2328; max-width: 900px; margin: 24px auto; padding: 0 16px; }
table { border-collapse: collapse; margin: 8px 0; display: block; overflow: auto; }
th, td { border: 1px solid #d1d9e0; padding: 4px 10px; }
tr:nth-child(2n) { background: #f6f8fa; }
code { background: #eff1f3; padding: 1px 4px; border-radius: 4px; font-size: 85%; }
pre { background: #f6f8fa; padding: 12px; overflow: auto; }
pre.mermaid { background: none; }
blockquote { border-left: 4px solid #d1d9e0; margin: 0; padding: 0 12px; color: #59636e; }
details { margin: 8px 0; } summary { cursor: pointer; font-weight: 600; }
`;

/** One comment as a page: GFM, every <details> open, Mermaid fences as diagrams. */
export function commentPage(markdown: string, title: string, mermaidUrl: string): string {
  const md = new MarkdownIt({ html: true, linkify: true });
  const fence = md.renderer.rules.fence;
  md.renderer.rules.fence = (tokens, i, options, env, self) => {
    const t = tokens[i];
    if (t?.info.trim() === "mermaid")
      return `<pre class="mermaid">${md.utils.escapeHtml(t.content)}</pre>\n`;
    return fence ? fence(tokens, i, options, env, self) : self.renderToken(tokens, i, options);
  };
  const body = md.render(markdown).replaceAll("<details>", "<details open>");
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${md.utils.escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>
${body}
<script src="${mermaidUrl}"></script>
<script>
  mermaid.initialize({ startOnLoad: false, theme: "default" });
  mermaid.run({ querySelector: "pre.mermaid" }).finally(() => document.body.setAttribute("data-rendered", "yes"));
</script>
</body></html>
`;
}

function chromium(): string | undefined {
  return [process.env.CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find(
    (p): p is string => Boolean(p && existsSync(p)),
  );
}

function browse(browser: string, page: string, args: string[]): string {
  // The flags keep a headless Chromium off the network it would otherwise call home to.
  return execFileSync(
    browser,
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--user-data-dir=${mkdtempSync(join(tmpdir(), "lpg-chromium-"))}`,
      "--virtual-time-budget=15000",
      ...args,
      pathToFileURL(page).href,
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], maxBuffer: 64 * 1024 * 1024 },
  );
}

function main() {
  const args = process.argv.slice(2);
  const at = args.indexOf("--out");
  const out = resolve(
    at >= 0 ? (args.splice(at, 2)[1] ?? "") : join(tmpdir(), "llm-perf-gate-comments"),
  );
  const golden = join(ROOT, "test/golden");
  const inputs =
    args.length > 0
      ? args.map((a) => resolve(a))
      : readdirSync(golden)
          .filter((f) => f.endsWith(".md"))
          .map((f) => join(golden, f));
  if (!existsSync(MERMAID)) {
    console.error(`mermaid is not installed at ${MERMAID}: run npm ci first`);
    process.exit(2);
  }
  mkdirSync(out, { recursive: true });
  const browser = chromium();
  let broken = 0;
  for (const input of inputs) {
    const name = basename(input, ".md");
    const page = join(out, `${name}.html`);
    writeFileSync(
      page,
      commentPage(readFileSync(input, "utf8"), name, pathToFileURL(MERMAID).href),
    );
    if (!browser) {
      console.log(`${page}`);
      continue;
    }
    const dom = browse(browser, page, ["--dump-dom"]);
    const charts = (readFileSync(input, "utf8").match(/^```mermaid$/gm) ?? []).length;
    const drawn = (dom.match(/<pre class="mermaid"[^>]*>\s*<svg/g) ?? []).length;
    const failed = /Syntax error in text|Parse error/.test(dom);
    const height =
      600 +
      28 * dom.split("<tr").length +
      450 * charts +
      12 * (dom.match(/<br|<li|<p/g) ?? []).length;
    browse(browser, page, [
      `--screenshot=${join(out, `${name}.png`)}`,
      `--window-size=1000,${height}`,
    ]);
    const ok = drawn === charts && !failed;
    if (!ok) broken++;
    console.log(
      `${ok ? "ok " : "BAD"} ${name}: ${drawn}/${charts} Mermaid charts drawn${failed ? ", a syntax error" : ""} → ${join(out, `${name}.png`)}`,
    );
  }
  if (!browser)
    console.log(
      "(no Chromium: HTML only — apt-get install chromium, or set CHROMIUM, for pictures and the chart check)",
    );
  process.exit(broken > 0 ? 1 : 0);
}

if (import.meta.main) main();
