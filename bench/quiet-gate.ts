// A gate run in this process the way the CLI runs one, with no log and no
// signal handlers: a bench's SIGTERM stops the bench, not just one gate.

import { readFileSync, writeFileSync } from "node:fs";
import { planRun } from "../src/commands/gate/plan.ts";
import { runGateCommand } from "../src/commands/gate/run.ts";
import type { RawSettings } from "../src/config/settings.ts";
import type { GateResults } from "../src/results/model.ts";

export function runQuietGate(settings: RawSettings): Promise<GateResults> {
  const readFile = (p: string) => readFileSync(p, "utf8");
  return runGateCommand(planRun(settings, readFile), {
    env: {},
    readFile,
    writeFile: (p, t) => writeFileSync(p, t),
    log: () => {},
    signals: { listen: () => () => {} },
  });
}
