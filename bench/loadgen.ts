// Benchmarks the load generator itself against bench/fast-server.ts running in
// another process: the highest rate at which the self-checks pass, client CPU
// per request and per SSE event, memory over many requests, and SSE parsing
// throughput. Results go to bench/README.md by hand.
// Usage: node bench/loadgen.ts [rates, e.g. 250,500,1000,1500] [window seconds]

import { parseTrialOptions } from "../src/config/trial.ts";
import { newRecord } from "../src/load/record.ts";
import { applyStreamEvent } from "../src/load/stream.ts";
import { SseParser } from "../src/openai/sse.ts";
import { measureTrial } from "../src/trial/trial.ts";
import { startFastServer } from "./fast-server-process.ts";

async function trial(url: string, rate: number, windowS: number, tokens: number) {
  const config = parseTrialOptions({
    url: `${url}/v1`,
    model: "bench",
    rate: String(rate),
    duration: `${windowS}s`,
    warmup: "2s",
    "input-len": "64",
    "output-len": String(tokens),
    timeout: "10s",
    "max-send-skew-ms": "1",
  });
  const r = await measureTrial(config);
  const v = r.validity;
  const cpuMs = v.client_cpu.user_ms + v.client_cpu.system_ms;
  // Probes cover the window and the drain: requests and events of the window.
  return {
    rate,
    tokens,
    scheduled: r.scheduled,
    ok: r.outcomes.ok,
    valid: v.valid,
    reasons: v.reasons,
    skewP50: v.send_skew_ms.p50,
    skewP99: v.send_skew_ms.p99,
    skewMax: v.send_skew_ms.max,
    loopP99: v.event_loop_delay_ms.p99,
    gcShare: v.gc.share_of_window,
    cpuShare: v.client_cpu.share_of_core,
    cpuUsPerRequest: (cpuMs * 1000) / r.scheduled,
    events: r.tokens.output_chunks,
    ttftP99: r.metrics.ttft_ms.p99,
  };
}

function parseBench() {
  const event = (i: number) =>
    `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":0,"model":"bench","choices":[{"index":0,"delta":{"content":" tok${i}"},"logprobs":null,"finish_reason":null}],"usage":null}\n\n`;
  const stream = Buffer.from(Array.from({ length: 1000 }, (_, i) => event(i)).join(""));
  const pieces: Buffer[] = [];
  for (let i = 0; i < stream.length; i += 1460) pieces.push(stream.subarray(i, i + 1460));
  const rounds = 300;
  let events = 0;
  const t0 = performance.now();
  for (let k = 0; k < rounds; k++) {
    const parser = new SseParser({ onEvent: () => events++ });
    for (const p of pieces) parser.push(p);
    parser.end();
  }
  const parseMs = performance.now() - t0;
  const t1 = performance.now();
  for (let k = 0; k < rounds; k++) {
    const record = newRecord(0, false, 0, 1e9, undefined);
    const parser = new SseParser({ onEvent: (e) => applyStreamEvent(record, e.data, 0) });
    for (const p of pieces) parser.push(p);
    parser.end();
  }
  const fullMs = performance.now() - t1;
  return {
    mbPerS: (stream.length * rounds) / 1e6 / (parseMs / 1000),
    eventsPerS: events / (parseMs / 1000),
    usPerEventParseOnly: (parseMs * 1000) / events,
    usPerEventWithJson: (fullMs * 1000) / events,
  };
}

async function memory(url: string) {
  // Heap after GC, after 10k and after 100k requests at 2,000 req/s.
  const { collectGarbage } = await import("../src/load/probes.ts");
  const heap = () => {
    collectGarbage();
    return process.memoryUsage().heapUsed / 1e6;
  };
  const before = heap();
  const run = async (n: number) => {
    const config = parseTrialOptions({
      url: `${url}/v1`,
      model: "bench",
      arrival: "constant",
      rate: "2000",
      duration: `${n / 2000}s`,
      warmup: "0s",
      "input-len": "64",
      "output-len": "64",
      timeout: "10s",
    });
    const r = await measureTrial(config);
    return { report: JSON.stringify(r).length, heapMb: heap() };
  };
  const small = await run(10_000);
  const large = await run(100_000);
  return {
    beforeMb: before,
    after10kMb: small.heapMb,
    after100kMb: large.heapMb,
    reportBytes: large.report,
  };
}

const rates = (process.argv[2] ?? "250,500,750,1000,1500,2000").split(",").map(Number);
const windowS = Number(process.argv[3] ?? 10);
console.log("SSE parsing:", JSON.stringify(parseBench()));
const server = await startFastServer(64, 16);
try {
  for (const rate of rates) console.log(JSON.stringify(await trial(server.url, rate, windowS, 64)));
  if (process.argv.includes("--memory"))
    console.log("memory:", JSON.stringify(await memory(server.url)));
} finally {
  server.stop();
}
// Per-event cost: the same rate against servers sending 8 and 64 tokens; the
// difference in CPU per request is the 56 extra events'.
const costs: Record<number, Awaited<ReturnType<typeof trial>>> = {};
for (const tokens of [8, 64]) {
  const s = await startFastServer(tokens, 16);
  try {
    costs[tokens] = await trial(s.url, 500, windowS, tokens);
  } finally {
    s.stop();
  }
}
const few = costs[8] as Awaited<ReturnType<typeof trial>>;
const many = costs[64] as Awaited<ReturnType<typeof trial>>;
const usPerEvent = (many.cpuUsPerRequest - few.cpuUsPerRequest) / (64 - 8);
console.log(
  JSON.stringify({
    cpuUsPerRequest8: few.cpuUsPerRequest,
    cpuUsPerRequest64: many.cpuUsPerRequest,
    usPerEvent,
  }),
);
