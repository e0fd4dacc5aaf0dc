// The HTML report of a 30-pair gate with its requests file: the page's size,
// the time to write it (the CLI's `report`, sampling the requests file
// included) and the time a real headless Chromium takes to load and lay it
// out. One gate of two mock processes (the candidate decoding 10 % slower),
// Poisson 15 req/s for 3 s a trial, 30 pairs, then the page written three
// times and opened three times.
//
//   node_modules/.bin/node bench/report.ts [pairs]

import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { startMockProcess } from "../src/commands/demo.ts";
import { gateHtml, readResultsFile } from "../src/commands/report.ts";
import { testBrowser } from "../test/helpers/browser.ts";
import { runQuietGate } from "./quiet-gate.ts";

const pairs = process.argv[2] ?? "30";
const dir = process.env.TMPDIR ?? "/tmp";
const resultsPath = join(dir, "lpg-report-bench.json");
const requestsPath = join(dir, "lpg-report-bench.requests.jsonl.gz");
const htmlPath = join(dir, "lpg-report-bench.html");
const cli = [process.execPath, join(import.meta.dirname, "../src/cli.ts")];

const baseline = await startMockProcess(cli, []);
const candidate = await startMockProcess(cli, ["decodeScale=1.1"]);
const started = performance.now();
try {
  await runQuietGate({
    model: "mock-llm",
    rate: "15",
    duration: "3s",
    warmup: "1s",
    "input-len": "128",
    "output-len": "64",
    "ignore-eos": "true",
    trials: pairs,
    "max-trials": pairs,
    "quality-suite": "none",
    accuracy: "none",
    contract: "none",
    "baseline-url": `${baseline.url}/v1`,
    "candidate-url": `${candidate.url}/v1`,
    "results-path": resultsPath,
    "requests-path": requestsPath,
  });
} finally {
  await Promise.all([baseline.stop(), candidate.stop()]);
}
const mb = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(2)} MB`;
console.log(`gate: ${pairs} pairs in ${((performance.now() - started) / 1000).toFixed(0)} s`);
console.log(
  `results ${mb(statSync(resultsPath).size)}, requests file ${mb(statSync(requestsPath).size)} (${readFileSync(resultsPath, "utf8").includes('"lines"') ? "written" : "?"})`,
);

const writeMs: number[] = [];
let size = 0;
for (let i = 0; i < 3; i++) {
  const t0 = performance.now();
  const results = readResultsFile(resultsPath, { readFile: (p) => readFileSync(p, "utf8") });
  const html = await gateHtml(results, requestsPath);
  writeMs.push(performance.now() - t0);
  size = Buffer.byteLength(html);
  writeFileSync(htmlPath, html);
}
console.log(
  `page ${mb(size)}; read + re-decide + sample + draw: ${writeMs.map((ms) => `${ms.toFixed(0)} ms`).join(", ")}`,
);

const shipped = testBrowser();
const browser = await chromium.launch({
  executablePath: shipped.executablePath,
  args: [...shipped.args, "--no-sandbox", "--disable-background-networking"],
  env: shipped.env,
});
try {
  const loadMs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const t0 = performance.now();
    await page.goto(`file://${htmlPath}`, { waitUntil: "load" });
    // Forces layout of the whole page, not only the first screen.
    await page.evaluate("document.body.scrollHeight");
    loadMs.push(performance.now() - t0);
    await page.close();
  }
  console.log(
    `Chromium load and layout (${mb(statSync(htmlPath).size)}): ${loadMs.map((ms) => `${ms.toFixed(0)} ms`).join(", ")}`,
  );
} finally {
  await browser.close();
}
