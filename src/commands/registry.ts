// The commands: each one's name, usage and summary (the help), and how it
// runs from parsed flags. The CLI dispatches to them; --help derives from this
// list and the settings table.

import type { CommandName } from "../config/setting.ts";
import type { RawSettings } from "../config/settings.ts";
import { demoCli } from "./demo.ts";
import { gateCli } from "./gate/cli.ts";
import type { GateIo } from "./gate/run.ts";
import type { CommandHelp } from "./help.ts";
import type { CommandIo } from "./io.ts";
import { burstCli } from "./lanes/burst.ts";
import { lanesReportCli } from "./lanes/report.ts";
import { measureCli } from "./measure.ts";
import { mockCli } from "./mock.ts";
import { reportCli } from "./report.ts";
import { sweepCli } from "./sweep.ts";

export interface CliIo extends CommandIo {
  /** The gate's dependencies: stand-ins for its measurement and quality runner in tests; the watchdog in production. */
  gate?: Pick<GateIo, "measureTrial" | "runSuite" | "checks" | "startWatchdog">;
  /** How to start this program again (node and the CLI's path): the demo's mock servers. */
  self: string[];
}

export interface CliCommand extends CommandHelp {
  name: CommandName;
  /** The setting a first bare argument gives (report's results file). */
  positional?: string;
  run(raw: RawSettings, io: CliIo): Promise<number>;
}

/** A gate's io on a terminal: its log on stderr. */
const gateIo = (io: CliIo): GateIo & Pick<CliIo, "stdout" | "stderr"> => ({
  ...io,
  ...io.gate,
  log: (line) => io.stderr(`${line}\n`),
});

export const COMMANDS: readonly CliCommand[] = [
  {
    name: "demo",
    usage: "demo",
    summary:
      "A short gate between two built-in mock servers, the candidate decoding 30 % slower (≈ 45 s).",
    run: (_raw, io) => demoCli(io.self, gateIo(io)),
  },
  {
    name: "gate",
    usage: "gate [--config FILE] [flags]",
    summary:
      "Measure a baseline and a candidate endpoint in interleaved pairs and decide; the flags are the action's inputs. Prints the PR comment; exit 1 on a verdict in fail-on, 2 on a bad setting.",
    run: (raw, io) => gateCli(raw, gateIo(io)),
  },
  {
    name: "measure",
    usage: "measure --url URL --model NAME [flags]",
    summary:
      "Measure one endpoint open-loop: a table on stdout, the JSON report with --out. Exit 4 when the endpoint failed, 3 when the trial failed its self-checks.",
    run: measureCli,
  },
  {
    name: "sweep",
    usage: "sweep --url URL --model NAME --slo SLO [flags]",
    summary:
      "One endpoint's capacity: synchronous, offline, then open-loop rates up to the knee. Markdown on stdout, the JSON report with --out.",
    run: sweepCli,
  },
  {
    name: "burst",
    usage: "burst --lanes FILE [--lanes-history FILE] [--csv FILE]",
    summary:
      "One burst on every lane of a lanes file, now: appended to the history (JSONL), then the lanes report.",
    run: burstCli,
  },
  {
    name: "lanes-report",
    usage: "lanes-report [--lanes-history FILE] [--lanes FILE] [--out JSON] [--csv FILE]",
    summary:
      "The lanes history per lane × window × day: pass rate against the floor, p90, retries, and the rule's verdict.",
    run: lanesReportCli,
  },
  {
    name: "report",
    usage: "report RESULTS.json --html OUT.html [--requests-file FILE]",
    summary:
      "One self-contained HTML page of a results file (any gate's: a merged, a fork's, an old one), re-decided as the report mode does; its requests file drawn when it is beside it.",
    positional: "results",
    run: reportCli,
  },
  {
    name: "mock",
    usage: "mock [--port N] [--host H] [--profile FILE] [--set key=value …]",
    summary: "The built-in OpenAI-compatible mock server, until SIGINT or SIGTERM.",
    run: mockCli,
  },
];
