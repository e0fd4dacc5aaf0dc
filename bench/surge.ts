// The surge's noise: A/A gates (one mock process on both arms, a finite
// batch so that a surge to 150 % of its capacity builds a queue that drains
// after it) and how far apart the two arms' times to recover fall — the
// spread the recovery rule's tolerance must clear. Each surge trial is read
// twice from its timeline: against the steady level + 10 % (no SLO, as the
// gate ran) and against a TTFT SLO of twice the steady level.
//
//   node_modules/.bin/node bench/surge.ts [gates] [--ab]
//
// --ab: the candidate recovers slowly instead (recoveryLagS 10, recoveryScale 2,
// a queue of 64): what the rule sees of a real regression.

import { join } from "node:path";
import { startMockProcess } from "../src/commands/demo.ts";
import type { SurgeReport } from "../src/gate/surge.ts";
import { saturationRatePerS } from "../src/mock/engine.ts";
import { DEFAULT_PROFILE } from "../src/mock/profile.ts";
import { mergeProfile, parseOverrides } from "../src/mock/profile-merge.ts";
import { readSurge } from "../src/stress/recovery.ts";
import { runQuietGate } from "./quiet-gate.ts";

const gates = Number(process.argv.slice(2).find((a) => !a.startsWith("--")) ?? 2);
const ab = process.argv.includes("--ab");
const cli = [process.execPath, join(import.meta.dirname, "../src/cli.ts")];
const MOCK = ["maxBatch=8", "decodeBaseMs=10"];
const SLOW = [...MOCK, "maxQueue=64", "recoveryLagS=10", "recoveryScale=2"];
const capacity = saturationRatePerS(
  mergeProfile(DEFAULT_PROFILE, parseOverrides(MOCK), "bench"),
  32,
  32,
);
const steady = Number((capacity / 2).toPrecision(3));

const SETTINGS = {
  model: "mock-llm",
  rate: String(steady),
  duration: "2s",
  "input-len": "32",
  "output-len": "32",
  "ignore-eos": "true",
  trials: "2",
  "max-trials": "2",
  "quality-suite": "none",
  accuracy: "none",
  contract: "none",
  surge: "3x 10s",
  "surge-pairs": "4",
  "surge-before": "10s",
  "surge-after": "30s",
};

console.log(
  `mock capacity ≈ ${capacity.toFixed(1)} req/s; steady ${steady} req/s, surge ${3 * steady} req/s for 10 s (≈ 150 %), ${gates} gates × 4 pairs${ab ? ", candidate recovering slowly" : ""}`,
);
const rows: { target: string; d: number; b: number; c: number; censored: boolean }[] = [];
const verdicts: string[] = [];
for (let g = 0; g < gates; g++) {
  const baseline = await startMockProcess(cli, MOCK);
  const candidate = ab ? await startMockProcess(cli, SLOW) : baseline;
  try {
    const r = await runQuietGate({
      ...SETTINGS,
      seed: String(g + 1),
      "baseline-url": `${baseline.url}/v1`,
      "candidate-url": `${candidate.url}/v1`,
      "results-path": join(process.env.TMPDIR ?? "/tmp", `lpg-surge-${g}.json`),
    });
    const s = r.surge as SurgeReport | null;
    if (!s) throw new Error(`gate ${g + 1}: no surge report (${r.surge_skipped ?? r.headline})`);
    verdicts.push(
      `${s.verdict} (${s.comparison.checks.map((c) => `${c.id} ${c.verdict}`).join(", ")})`,
    );
    collect(s);
  } finally {
    await baseline.stop();
    if (candidate !== baseline) await candidate.stop();
  }
}
report();

/** Every pair read against both targets. */
function collect(s: SurgeReport): void {
  for (const p of s.pairs) {
    const timelineOf = (arm: "baseline" | "candidate") =>
      s.trials.find((t) => t.pair === p.pair && t.arm === arm)?.timeline;
    const [tb, tc] = [timelineOf("baseline"), timelineOf("candidate")];
    if (!tb || !tc) continue;
    for (const target of ["steady + 10 %", "SLO 2 × steady"] as const) {
      const slo = target === "steady + 10 %" ? undefined : 2 * (p.baseline.steady_ttft_p95_ms ?? 0);
      const [b, c] = [readSurge(tb, s.span, slo), readSurge(tc, s.span, slo)];
      if (b.recovery_s === null || c.recovery_s === null) continue;
      rows.push({
        target,
        b: b.recovery_s,
        c: c.recovery_s,
        d: Math.log((c.recovery_s + 1) / (b.recovery_s + 1)),
        censored: b.recovery_censored || c.recovery_censored,
      });
    }
  }
}

function report(): void {
  for (const target of ["steady + 10 %", "SLO 2 × steady"]) {
    const xs = rows.filter((r) => r.target === target);
    const ds = xs.map((r) => r.d);
    const mean = ds.reduce((a, b) => a + b, 0) / ds.length;
    const sd = Math.sqrt(ds.reduce((a, d) => a + (d - mean) ** 2, 0) / Math.max(1, ds.length - 1));
    const times = xs.flatMap((r) => [r.b, r.c]).sort((a, b) => a - b);
    console.log(
      `${target}: ${xs.length} pairs; recovery ${times[0]}–${times.at(-1)} s (median ${times[Math.floor(times.length / 2)]}); d = ln((c+1)/(b+1)) mean ${mean.toFixed(3)}, sd ${sd.toFixed(3)} (×${Math.exp(sd).toFixed(2)}); censored pairs ${xs.filter((r) => r.censored).length}`,
    );
    console.log(`  pairs (b → c s): ${xs.map((r) => `${r.b}→${r.c}`).join(", ")}`);
  }
  console.log(`verdicts (as the gate ran, steady + 10 %): ${verdicts.join("; ")}`);
}
