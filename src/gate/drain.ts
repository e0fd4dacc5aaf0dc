// The drain suite: the last thing a gate that started both servers does is
// stop them, each with long streams in flight (servers/drain.ts), and compare
// how the two stops went — a contract of the server's shutdown. It runs after
// every other suite: it ends the servers.

import { ARMS, type Arm } from "../common/arms.ts";
import {
  compareDrain,
  type DrainComparison,
  type DrainProbe,
  describeDrain,
} from "../servers/drain.ts";
import type { SideSuite } from "./suite.ts";

/** The drain suite's settings as the results file records them. */
export interface DrainRecord {
  streams: number;
}

export type DrainReport = DrainComparison;

export const drainSuite: SideSuite<"drain", DrainReport, DrainRecord> = {
  id: "drain",
  afterPairs: true,
  asked: (options) => options.drain !== undefined,
  run: async (options, deps, at) => {
    const servers = deps.servers;
    const streams = options.drain?.streams;
    if (!servers?.drain || streams === undefined) return null;
    const probes: Partial<Record<Arm, DrainProbe>> = {};
    for (const arm of ARMS) {
      if (deps.signal?.aborted) return null;
      await servers.beforeTrial(arm);
      at.log(`drain: stopping the ${arm} with ${streams} long streams in flight`);
      const probe = await servers.drain(arm, streams);
      if (!probe) return null;
      at.log(`drain: ${arm}: ${describeDrain(probe)}`);
      probes[arm] = probe;
    }
    const { baseline, candidate } = probes;
    return baseline && candidate ? compareDrain(baseline, candidate) : null;
  },
  verdict: (report) => report.verdict,
  describe: (options) => (options.drain ? { streams: options.drain.streams } : null),
  redecide: (report) => compareDrain(report.baseline, report.candidate),
};
