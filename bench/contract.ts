// The contract suite between two identical mocks, many times: no regression,
// no behaviour change, no flake may appear, and each run's time is what the
// suite adds to a gate. The mocks run the default engine (6 ms decode steps,
// jitter on) in this process.
//
//   node_modules/.bin/node bench/contract.ts [runs, default 20]

import { parseConfig } from "../src/config/config.ts";
import { runContractSuite } from "../src/gate/contract.ts";
import { DEFAULT_PROFILE } from "../src/mock/profile.ts";
import { startMockServer } from "../src/mock/server.ts";

const RUNS = Number(process.argv[2] ?? 20);
const baseline = await startMockServer({ profile: DEFAULT_PROFILE });
const candidate = await startMockServer({ profile: DEFAULT_PROFILE });
const config = parseConfig({
  "baseline-url": `${baseline.url}/v1`,
  "candidate-url": `${candidate.url}/v1`,
  model: "mock-llm",
  rate: "10",
});
const contract = config.gate.contract;
if (!contract) throw new Error("the default config has no contract suite");
const seconds: number[] = [];
let findings = 0;
for (let i = 0; i < RUNS; i++) {
  const started = performance.now();
  const r = await runContractSuite(config.gate, contract, {}, () => {});
  if (!r) throw new Error("the suite did not finish");
  seconds.push((performance.now() - started) / 1000);
  const found = [...r.regressions, ...r.changes, ...r.flaky, ...r.preexisting];
  findings += found.length;
  for (const f of found)
    console.log(`run ${i + 1}: ${f.id}: ${f.baseline.value} → ${f.candidate.value}`);
}
await Promise.all([baseline.close(), candidate.close()]);
seconds.sort((a, b) => a - b);
const at = (q: number) =>
  seconds[Math.min(seconds.length - 1, Math.floor(q * seconds.length))]?.toFixed(1);
console.log(
  `${RUNS} suites, both arms: ${findings} findings; seconds p50 ${at(0.5)}, max ${at(1)}`,
);
