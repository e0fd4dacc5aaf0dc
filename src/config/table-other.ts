// The settings of one command or of the action alone: the `measure` and
// `sweep` endpoint, the action's mode and token, the lanes files, the reports
// and pages written, the mock server.

import type { Setting } from "./setting.ts";

export const OTHER_SETTINGS = [
  {
    name: "url",
    scope: "endpoint",
    help: "The endpoint's OpenAI base URL (required).",
    accepts: { kind: "text", what: "an http(s) URL ending in /v1" },
  },
  {
    name: "mode",
    scope: "action",
    default: "run",
    help: "run (measure and report), measure (the results file only: unprivileged fork jobs), report (read results-path and post: a privileged workflow_run job), or burst (one burst on the lanes of the lanes file).",
    accepts: { kind: "choice", choices: ["run", "measure", "report", "burst"] },
  },
  {
    name: "github-token",
    scope: "action",
    secret: true,
    help: "Token for the PR comment (and a lanes history branch or issue).",
    accepts: { kind: "text", what: "a token" },
  },
  {
    name: "lanes",
    scope: "lanes",
    help: "The lanes file (YAML, schemas/lanes.schema.json): lanes, task, floor, burst, windows, retry, rule.",
    accepts: { kind: "text", what: "a file path" },
  },
  {
    name: "lanes-history",
    scope: "lanes",
    aliases: ["history"],
    default: "llm-perf-gate-lanes.jsonl",
    help: "The lanes history (JSONL, one row per request): a burst appends to it, lanes-report reads it.",
    accepts: { kind: "text", what: "a file path" },
  },
  {
    name: "lanes-history-branch",
    scope: "action",
    help: "mode burst: keep the history on this branch (one commit per run; needs contents: write); empty: in the workspace.",
    accepts: { kind: "text", what: "a branch name" },
  },
  {
    name: "lanes-issue",
    scope: "action",
    kind: "boolean",
    default: "false",
    help: "mode burst: open (or update) one issue when a lane's graduation trigger fires (needs issues: write).",
    accepts: { kind: "boolean" },
  },
  {
    name: "csv",
    scope: "lanes-cli",
    help: "Also write the whole history as CSV here.",
    accepts: { kind: "text", what: "a file path" },
  },
  {
    name: "requests-path",
    scope: "trial",
    help: "Every measured request, one line each (.jsonl or .csv, gzipped when it ends in .gz); none: not written. Default: the gate beside results-path (NAME.requests.jsonl.gz), measure and sweep none.",
    accepts: { kind: "text", what: "a path ending in .jsonl, .jsonl.gz, .csv or .csv.gz, or none" },
  },
  {
    name: "report-html",
    scope: "gate",
    help: "Where the run's HTML report is written (run, measure, report): one self-contained page; default: llm-perf-gate-report.html beside results-path; none: not written.",
    accepts: { kind: "text", what: "a file path, or none" },
  },
  {
    name: "out",
    scope: "report-file",
    help: "Write the JSON report here.",
    accepts: { kind: "text", what: "a file path" },
  },
  {
    name: "html",
    scope: "html",
    help: "Write the report as one self-contained HTML page here (charts drawn in, no script, nothing loaded).",
    accepts: { kind: "text", what: "a file path" },
  },
  {
    name: "results",
    scope: "report",
    help: "The results file to draw (the first argument: report RESULTS.json --html OUT.html).",
    accepts: { kind: "text", what: "a file path" },
  },
  {
    name: "requests-file",
    scope: "report",
    help: "The requests file for the per-request view; default: the one the results file names, when it is beside it; none: no per-request view.",
    accepts: { kind: "text", what: "a file path, or none" },
  },
  {
    name: "quiet",
    scope: "progress",
    kind: "boolean",
    default: "false",
    help: "No progress lines on stderr.",
    accepts: { kind: "boolean" },
  },
  {
    name: "port",
    scope: "mock",
    default: "8000",
    help: "Port to listen on (0: any free port).",
    accepts: { kind: "number", integer: true, min: 0, max: 65_535 },
  },
  {
    name: "host",
    scope: "mock",
    default: "127.0.0.1",
    help: "Address to listen on.",
    accepts: { kind: "text", what: "a host name or address" },
  },
  {
    name: "profile",
    scope: "mock",
    help: "A JSON profile of the mock's knobs (docs/mock.md).",
    accepts: { kind: "text", what: "a file path" },
  },
  {
    name: "set",
    scope: "mock",
    kind: "lines",
    help: "One knob, key=value (repeatable), over the profile.",
    accepts: { kind: "text", what: "key=value" },
  },
  {
    name: "stop-when-stdin-closes",
    scope: "mock",
    kind: "boolean",
    default: "false",
    help: "Stop when standard input closes (started by another process).",
    accepts: { kind: "boolean" },
  },
] as const satisfies readonly Setting[];
