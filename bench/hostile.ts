// Each class of hostile input (test/helpers/hostile.ts) given to the real CLI
// several times: how long until it ends by name, and its peak memory. The
// issue's bound is 5 s and 300 MB for each.
//
//   node_modules/.bin/node bench/hostile.ts [runs, default 3]

import { runCliMeasured } from "../test/helpers/cli.ts";
import { prepareHostileCases } from "../test/helpers/hostile.ts";

const RUNS = Number(process.argv[2] ?? 3);
const { cases, close, rssFile } = await prepareHostileCases();
try {
  for (const c of cases) {
    const seconds: number[] = [];
    const peaksMb: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await runCliMeasured(c.args, 60_000, rssFile);
      if (r.code !== c.exit || !c.says.test(r.stdout + r.stderr))
        throw new Error(`${c.what}: exit ${r.code}: ${(r.stdout + r.stderr).slice(-300)}`);
      seconds.push(r.seconds);
      peaksMb.push(r.peakRssMb);
    }
    seconds.sort((a, b) => a - b);
    const p50 = seconds[Math.floor(seconds.length / 2)] ?? 0;
    console.log(
      `${c.what}: ${p50.toFixed(2)} s p50, ${Math.max(...seconds).toFixed(2)} s max, ${Math.max(...peaksMb).toFixed(0)} MB peak`,
    );
  }
} finally {
  await close();
}
