// What scraping a server's /metrics costs the load generator: CPU per scrape
// (parse and reduce a vLLM-sized page; then the whole GET through undici), and
// the send skew of 1,000 req/s trials against bench/fast-server.ts with no
// scraping, a scrape a second (the default) and ten a second, interleaved.
// Results go to bench/README.md by hand.
// Usage: node bench/scraper.ts [rate] [window seconds] [rounds]

import { parseTrialOptions } from "../src/config/trial.ts";
import { parseExposition } from "../src/servermetrics/parse.ts";
import { gaugeSamples } from "../src/servermetrics/runtimes.ts";
import { metricsFetcher } from "../src/servermetrics/scraper.ts";
import { samplesByName, snapshot } from "../src/servermetrics/snapshot.ts";
import { measureTrial } from "../src/trial/trial.ts";
import { startFastServer } from "./fast-server-process.ts";
import { vllmPage } from "./metrics-page.ts";

const rate = Number(process.argv[2] ?? 1000);
const windowS = Number(process.argv[3] ?? 10);
const rounds = Number(process.argv[4] ?? 2);

function parseCost() {
  const page = vllmPage();
  const reduce = () =>
    snapshot(samplesByName(parseExposition(page)), "vllm", "meta-llama/Llama-3.1-8B-Instruct", 0);
  for (let i = 0; i < 200; i++) reduce();
  const times: number[] = [];
  for (let i = 0; i < 1000; i++) {
    const t0 = performance.now();
    reduce();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  // Inside the window a scrape reads the gauges only (in slices of 64 lines).
  const gauges = gaugeSamples("vllm");
  const gaugeTimes: number[] = [];
  for (let i = 0; i < 1000; i++) {
    const t0 = performance.now();
    parseExposition(page, (n) => gauges.has(n));
    gaugeTimes.push(performance.now() - t0);
  }
  gaugeTimes.sort((a, b) => a - b);
  return {
    lines: page.split("\n").length,
    kB: Math.round(page.length / 1024),
    wholePageUsP50: Math.round((times[500] as number) * 1000),
    wholePageUsP99: Math.round((times[990] as number) * 1000),
    gaugesOnlyUsP50: Math.round((gaugeTimes[500] as number) * 1000),
    gaugesOnlyUsP99: Math.round((gaugeTimes[990] as number) * 1000),
  };
}

/** CPU (µs) of whole scrapes, GET included, one after another. */
async function scrapeCost(url: string) {
  const fetcher = metricsFetcher();
  const once = async () =>
    snapshot(
      samplesByName(parseExposition(await fetcher.fetch(`${url}/metrics`, 5000))),
      "vllm",
      "m",
      0,
    );
  for (let i = 0; i < 50; i++) await once();
  const n = 500;
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await once();
  const cpu = process.cpuUsage(cpu0);
  await fetcher.close();
  return Math.round((cpu.user + cpu.system) / n);
}

async function trial(url: string, intervalS: number | null) {
  const options = parseTrialOptions({
    url: `${url}/v1`,
    model: "bench",
    rate: String(rate),
    duration: `${windowS}s`,
    warmup: "2s",
    "input-len": "64",
    "output-len": "64",
    timeout: "10s",
    "metrics-url": intervalS === null ? "none" : `${url}/metrics`,
    "metrics-interval": `${intervalS ?? 1}s`,
    "metrics-runtime": "vllm",
  });
  const r = await measureTrial(options);
  const v = r.validity;
  const m = r.server_metrics;
  return {
    scrape: intervalS === null ? "off" : `every ${intervalS} s`,
    scrapes: m && "scrapes" in m ? m.scrapes : 0,
    ok: `${r.outcomes.ok}/${r.scheduled}`,
    skewP50: v.send_skew_ms.p50,
    skewP99: v.send_skew_ms.p99,
    skewMax: v.send_skew_ms.max,
    loopP99: v.event_loop_delay_ms.p99,
    cpuShare: v.client_cpu.share_of_core,
    valid: v.valid ? "yes" : `no (${v.reasons.join("; ").slice(0, 60)})`,
  };
}

console.log("parse + reduce a vLLM-sized page:", parseCost());
const server = await startFastServer(64, 16);
try {
  console.log(`in-window scrape (GET + gauges), CPU µs each: ${await scrapeCost(server.url)}`);
  const rows = [];
  for (let round = 0; round < rounds; round++)
    for (const interval of [null, 1, 0.1]) rows.push(await trial(server.url, interval));
  console.table(rows);
} finally {
  server.stop();
}
