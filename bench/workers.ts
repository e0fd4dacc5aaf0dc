// The client ceiling with 1, 2 … workers against bench/fast-server.ts in
// another process: for each worker count, the highest Poisson rate (64-token
// streams) whose trial passes the self-checks with send skew p99 ≤ 1 ms, the
// client process's CPU (every thread) per request and per SSE event, and what
// the server took. Results go to bench/README.md by hand.
// Usage: node bench/workers.ts [rates] [window s] [worker counts] [rounds] [per-event rate]
// ("-" as rates: only the per-event runs)

import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { parseTrialOptions } from "../src/config/trial.ts";
import { measureTrial } from "../src/trial/trial.ts";
import { buildWorkload } from "../src/workload/plan.ts";
import { startFastServer } from "./fast-server-process.ts";

/** A process's CPU so far (ms), from /proc: the server's, which runs apart. */
function processCpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function trial(
  server: { url: string; pid: number | undefined },
  rate: number,
  windowS: number,
  tokens: number,
  workers: number,
) {
  const options = parseTrialOptions({
    url: `${server.url}/v1`,
    model: "bench",
    rate: String(rate),
    duration: `${windowS}s`,
    warmup: "2s",
    "input-len": "64",
    "output-len": String(tokens),
    timeout: "10s",
    "max-send-skew-ms": "1",
    "metrics-url": "none",
    workers: String(workers),
  });
  const requests = buildWorkload(options.workload).offsetsMs.length;
  const cpu0 = process.cpuUsage();
  const server0 = processCpuMs(server.pid);
  const wall0 = performance.now();
  const r = await measureTrial(options);
  const wallMs = performance.now() - wall0;
  const cpu = process.cpuUsage(cpu0);
  const clientMs = (cpu.user + cpu.system) / 1000;
  const serverMs = processCpuMs(server.pid) - server0;
  const v = r.validity;
  return {
    workers,
    rate,
    tokens,
    scheduled: r.scheduled,
    ok: r.outcomes.ok,
    valid: v.valid,
    reasons: v.reasons,
    skewP99: v.send_skew_ms.p99,
    loopP99: v.event_loop_delay_ms.p99,
    busiestWorkerCpu: v.client_cpu.share_of_core,
    clientCores: clientMs / wallMs,
    serverCores: serverMs / wallMs,
    cpuUsPerRequest: (clientMs * 1000) / requests,
    ttftP50: r.metrics.ttft_ms.p50,
    ttftP99: r.metrics.ttft_ms.p99,
  };
}

const STRICT_SKEW = /send skew p99 .* exceeds max-send-skew-ms/;
// "-": no ceiling runs, only the per-event ones.
const rates = (process.argv[2] ?? "2000,2500,2750,3000,3250")
  .split(",")
  .filter((x) => x !== "-")
  .map(Number);
const windowS = Number(process.argv[3] ?? 10);
const counts = (process.argv[4] ?? `1,${availableParallelism()}`).split(",").map(Number);
const rounds = Number(process.argv[5] ?? 3);

// The ceiling: each rate with every worker count in turn (the machine's noise
// falls on both), valid by the default self-checks, and by them with send skew
// p99 ≤ 1 ms (the stricter figure of bench/loadgen.ts).
const server = await startFastServer(64, 16);
const held = new Map(counts.map((w) => [w, { checks: 0, strict: 0 }]));
try {
  for (const rate of rates) {
    for (const workers of counts) {
      const t = await trial(server, rate, windowS, 64, workers);
      const byDefault = t.ok === t.scheduled && t.reasons.every((r) => STRICT_SKEW.test(r));
      console.log(JSON.stringify({ ...t, validByDefaultChecks: byDefault }));
      const h = held.get(workers);
      if (h && byDefault) h.checks = rate;
      if (h && t.valid && t.ok === t.scheduled) h.strict = rate;
    }
  }
  for (const [workers, h] of rates.length > 0 ? held : [])
    console.log(
      JSON.stringify({ workers, ceilingPerS: h.checks, ceilingSkewUnder1msPerS: h.strict }),
    );
} finally {
  server.stop();
}

// Per-event cost: servers of 8 and 128 tokens, rounds of every worker count
// in turn; the difference of CPU per request is the 120 more events' (a
// trial's fixed cost cancels). Each count at the same total rate, and at that
// rate per worker, and one thread at a worker's share of the rate: a thread's
// cost per event falls as its loop gets busier (more sockets ready at each
// wake), so a worker is compared with one thread carrying the same load. A short
// trial with each count first, not counted: the pool's workers started, every
// thread's code warm, as in a run's later trials.
const SHORT = 8;
const LONG = 128;
const eventRate = Number(process.argv[6] ?? 1000);
const median = (xs: number[]) =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
// One thread at rate / w carries what each of w workers does at rate.
const loads = counts.flatMap((w) =>
  w === 1
    ? [{ workers: 1, rate: eventRate }]
    : [
        { workers: 1, rate: eventRate / w },
        { workers: w, rate: eventRate },
        { workers: w, rate: eventRate * w },
      ],
);
/** Each load's CPU per event, round by round: rounds of short and long runs back to back. */
async function perEventRuns() {
  /** Each round's CPU per request, by load and tokens: the rounds pair the short and long runs. */
  const perRequest = new Map<string, number[]>();
  const short = await startFastServer(SHORT, 16);
  const long = await startFastServer(LONG, 16);
  try {
    for (const workers of counts) await trial(short, eventRate, 2, SHORT, workers);
    for (let round = 0; round < rounds; round++) {
      for (const { workers, rate } of loads) {
        for (const [tokens, s] of [
          [SHORT, short],
          [LONG, long],
        ] as const) {
          const t = await trial(s, rate, windowS, tokens, workers);
          const key = `${workers}@${rate}/${tokens}`;
          perRequest.set(key, [...(perRequest.get(key) ?? []), t.cpuUsPerRequest]);
          const { cpuUsPerRequest, serverCores, busiestWorkerCpu, valid, reasons } = t;
          console.log(
            JSON.stringify({
              round,
              workers,
              rate,
              tokens,
              cpuUsPerRequest,
              serverCores,
              busiestWorkerCpu,
              valid,
              reasons,
            }),
          );
        }
      }
    }
  } finally {
    short.stop();
    long.stop();
  }
  // Per round, long minus short: the two ran back to back on the same machine state.
  for (const { workers, rate } of loads) {
    const few = perRequest.get(`${workers}@${rate}/${SHORT}`) ?? [];
    const many = perRequest.get(`${workers}@${rate}/${LONG}`) ?? [];
    const perEventUs = many.map((m, round) => (m - (few[round] ?? Number.NaN)) / (LONG - SHORT));
    console.log(
      JSON.stringify({
        workers,
        rate,
        cpuUsPerRequestShort: median(few),
        cpuUsPerRequestLong: median(many),
        usPerEventByRound: perEventUs,
        usPerEvent: median(perEventUs),
      }),
    );
  }
}

// Rounds 0: the ceiling alone.
if (rounds > 0) await perEventRuns();
