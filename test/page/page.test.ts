// The HTML page without a browser: every text escaped, the comment's
// markdown without its HTML and Mermaid, each chart drawn with its numbers,
// and the requests file sampled within its bounds.

import assert from "node:assert/strict";
import { mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { gzipSync } from "node:zlib";
import { measurePage } from "../../src/page/endpoint-page.ts";
import { gatePage } from "../../src/page/gate-page.ts";
import { CONTENT_POLICY, escapeHtml } from "../../src/page/html.ts";
import { curvePercentiles } from "../../src/page/latency.ts";
import { markdownHtml, pageMarkdown } from "../../src/page/markdown.ts";
import { MAX_LINE_CHARS, sampleRequests } from "../../src/requests/sample.ts";
import { fakeGateResults } from "../helpers/gate.ts";
import { fakeReport } from "../helpers/reports.ts";

const dir = () => mkdtempSync(join(tmpdir(), "lpg-page-"));
const HOSTILE = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=1">';

/** Elements outside the page's few, event attributes, and anything that loads. */
function markupProblems(html: string): string[] {
  const ALLOWED = new Set(
    "html head meta title style body main header footer h1 h2 h4 ul ol li p br code strong em blockquote pre table thead tbody tr th td caption section figure figcaption div svg g path line rect text a".split(
      " ",
    ),
  );
  const problems: string[] = [];
  for (const m of html.matchAll(/<([a-zA-Z][\w:-]*)([^>]*)>/g)) {
    const [tag, attrs] = [m[1] ?? "", m[2] ?? ""];
    if (!ALLOWED.has(tag.toLowerCase())) problems.push(`<${tag}>`);
    if (/\son[a-z]+\s*=/i.test(attrs)) problems.push(`an event attribute on <${tag}>`);
    if (/\s(src|srcset|xlink:href|action|formaction)\s*=/i.test(attrs))
      problems.push(`a source on <${tag}>`);
    if (/\shref\s*=/i.test(attrs) && !(tag === "a" && /\shref="https:\/\//.test(attrs)))
      problems.push(`a link on <${tag}>`);
  }
  return problems;
}

test("escapeHtml leaves no markup: tags, attributes and entities are text", () => {
  assert.equal(escapeHtml(`<a href="x">&'`), "&#60;a href=&#34;x&#34;&#62;&#38;&#39;");
});

test("the comment's markdown on the page: details become headings, Mermaid is left out, HTML is text", () => {
  // A mermaid line inside a longer fence is the fence's text, not a chart: it stays.
  const inner = markdownHtml("````text\n```mermaid\nkept\n````\n\nafter").html;
  assert.match(inner, /```mermaid\nkept/);
  assert.match(inner, /<p>after<\/p>/);
  const md = [
    "<details><summary>Timeline: pair 2</summary>",
    "",
    "```mermaid",
    "xychart-beta",
    "```",
    "",
    `a ${HOSTILE} b`,
    "</details>",
  ].join("\n");
  assert.equal(
    pageMarkdown(md),
    ["#### Timeline: pair 2", "", "```mermaid", "xychart-beta", "```", "", `a ${HOSTILE} b`].join(
      "\n",
    ),
  );
  const html = markdownHtml(md).html;
  assert.match(html, /<h4>Timeline: pair 2<\/h4>/);
  assert.doesNotMatch(html, /<script|<img|xychart/);
  assert.match(html, /&lt;script&gt;window.__pwned=1&lt;\/script&gt;/);
});

test("the verdict icons are drawn marks on the page, not emoji a reader's fonts may lack", () => {
  const html = markdownHtml(
    "| ✅ | ❌ | ⚠️ | 🛑 | ⚠ |\n|---|---|---|---|---|\n| a | b | c | d | e |",
  ).html;
  assert.doesNotMatch(html, /\u2705|\u274c|\u26a0|\ufe0f|\u{1f6d1}/u);
  for (const label of ["pass", "fail", "warning", "stop"])
    assert.match(html, new RegExp(`<svg class="mark" role="img" aria-label="${label}"`));
  assert.equal(html.match(/aria-label="warning"/g)?.length, 2);
});

test("percentile curves go from 0 to 1 − 1/n, denser toward the tail", () => {
  const ps = curvePercentiles(1000);
  assert.equal(ps[0], 0);
  assert.ok(Math.abs((ps.at(-1) ?? 0) - 99.9) < 1e-9);
  assert.ok(ps.filter((p) => p >= 99).length > ps.filter((p) => p < 90).length / 2);
});

test("a gate's page: each gated metric's forest plot and each latency curve as SVG with its numbers, and nothing that runs", async () => {
  const steady = [1, 1.02, 0.99].map((k) => ({ ttftMs: 100 * k, itlMs: 10 * k }));
  const slower = [1.3, 1.32, 1.29].map((k) => ({ ttftMs: 100 * k, itlMs: 10 * k }));
  const r = await fakeGateResults(steady, slower);
  r.warnings.push(HOSTILE);
  const html = await gatePage(r, null);
  assert.ok(html.includes(`content="${CONTENT_POLICY}"`));
  for (const id of [
    "forest-goodput",
    "forest-ttft",
    "forest-itl",
    "latency-ttft",
    "latency-itl",
    "latency-e2el",
  ]) {
    const figure = new RegExp(
      `<figure id="${id}" class="chart"><div class="svg"><svg[^]*?</svg></div>\\s*<div class="numbers"><table>`,
    );
    assert.match(html, figure, id);
  }
  assert.deepEqual(markupProblems(html), []);
  assert.match(html, /No requests file beside the results/);
  assert.match(html, /&#60;script&#62;window.__pwned=1|&lt;script&gt;window.__pwned=1/);
});

test("a measure trial's page: its table, its curves, its requests", async () => {
  const report = fakeReport({ ttftMs: 100, itlMs: 10 });
  const html = await measurePage(report, {
    source: "requests.jsonl",
    perSeries: 10,
    read: { endpoint: 2 },
    points: [
      { series: "endpoint", promptTokens: 100, ttftMs: 90, ok: true, pair: null, attempt: null },
      { series: "endpoint", promptTokens: 200, ttftMs: 150, ok: true, pair: null, attempt: null },
    ],
    skipped: 1,
    stopped: null,
  });
  for (const id of ["latency-ttft", "scatter"])
    assert.match(html, new RegExp(`<figure id="${id}"`));
  assert.match(html, /1 lines were not requests and were skipped/);
});

function requestLines(n: number): string[] {
  return Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      arm: i % 2 ? "candidate" : "baseline",
      outcome: i % 10 === 0 ? "timeout" : "ok",
      ttft_ms: i % 10 === 0 ? null : 100 + (i % 7),
      prompt_tokens_intended: 128,
      prompt_tokens_server: 130,
    }),
  );
}

test("a requests file is sampled: at most perSeries a series, each line read once, gzipped or not", async () => {
  const d = dir();
  const gz = join(d, "r.requests.jsonl.gz");
  writeFileSync(gz, gzipSync(`${requestLines(5000).join("\n")}\n{broken\n`));
  const s = await sampleRequests(gz, { perSeries: 100 });
  assert.deepEqual(s.read, { baseline: 2500, candidate: 2500 });
  assert.equal(s.points.length, 200);
  assert.equal(s.skipped, 1);
  assert.equal(s.stopped, null);
  assert.deepEqual(
    (await sampleRequests(gz, { perSeries: 100 })).points,
    s.points,
    "the same sample again",
  );
  const long = join(d, "long.jsonl");
  writeFileSync(long, `${"x".repeat(MAX_LINE_CHARS * 2)}\n${requestLines(3).join("\n")}`);
  const l = await sampleRequests(long);
  assert.deepEqual([l.skipped, l.points.length], [1, 3]);
});

test("a CSV requests file is read by its header; what is not a file says why", async () => {
  const d = dir();
  const csv = join(d, "r.csv");
  writeFileSync(
    csv,
    'arm,outcome,ttft_ms,prompt_tokens_intended,error\nbaseline,ok,12.5,64,\ncandidate,http_error,,64,"a, ""quoted""\nerror"\n',
  );
  const s = await sampleRequests(csv);
  assert.deepEqual(s.read, { baseline: 1, candidate: 1 });
  assert.deepEqual(
    s.points.map((p) => [p.series, p.ttftMs, p.promptTokens, p.ok]),
    [
      ["baseline", 12.5, 64, true],
      ["candidate", null, 64, false],
    ],
  );
  const notFile = await sampleRequests(d);
  assert.match(notFile.stopped ?? "", /could not be read: it is not a regular file/);
  assert.equal(notFile.points.length, 0);
});

test("a corrupt gzip, a link, a re-run's first attempt and requests outside the pairs: said or left out, never a crash", async () => {
  const d = dir();
  const corrupt = join(d, "c.requests.jsonl.gz");
  writeFileSync(corrupt, "not gzip at all");
  assert.match((await sampleRequests(corrupt)).stopped ?? "", /could not be read: .*header/);
  const linked = join(d, "l.requests.jsonl");
  symlinkSync(corrupt, linked);
  assert.match((await sampleRequests(linked)).stopped ?? "", /could not be read/);
  const lines = [
    { arm: "baseline", pair: 1, attempt: 0, outcome: "ok", ttft_ms: 999 },
    { arm: "baseline", pair: 1, attempt: 1, outcome: "ok", ttft_ms: 10 },
    { arm: "candidate", pair: 1, attempt: 1, outcome: "ok", ttft_ms: 11 },
    { arm: "baseline", pair: null, attempt: null, outcome: "ok", ttft_ms: 500 },
  ].map((l) => JSON.stringify({ prompt_tokens_intended: 64, ...l }));
  const mixed = join(d, "m.requests.jsonl");
  writeFileSync(mixed, lines.join("\n"));
  const s = await sampleRequests(mixed, { pairsOnly: true });
  assert.deepEqual(s.read, { baseline: 1, candidate: 1 });
  assert.deepEqual(
    s.points.map((p) => p.ttftMs),
    [10, 11],
    "the kept attempt only, and no request outside the pairs",
  );
});

test("a histogram a results file garbled: its section says it was not drawn, the rest of the page stands", async () => {
  const steady = [1, 1.02, 0.99].map((k) => ({ ttftMs: 100 * k, itlMs: 10 * k }));
  const r = await fakeGateResults(steady, steady);
  const first = r.trials[0];
  assert.ok(first);
  first.report.histograms.e2el_us = "garbage";
  const html = await gatePage(r, null);
  assert.match(html, /<section id="latency"><h2>Latency distributions<\/h2>\s*<p>Not drawn: /);
  assert.match(html, /<figure id="forest-ttft"/);
});
