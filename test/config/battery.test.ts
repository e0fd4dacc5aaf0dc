// Bad input through every door — action inputs, CLI flags, config files —
// gets one line that names the input, the bad value and what is accepted; no
// stack trace; and a results file that says `error` and why.

import assert from "node:assert/strict";
import { test } from "node:test";
import { runCli } from "../../src/cli.ts";
import { setting } from "../../src/config/settings.ts";
import { type ActionDeps, runAction } from "../../src/main.ts";
import { missingFile } from "../helpers/cli.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

const BASE: Record<string, string> = {
  "baseline-url": "http://127.0.0.1:8001/v1",
  "candidate-url": "http://127.0.0.1:8002/v1",
  model: "m",
  rate: "5",
  "quality-suite": "none",
  accuracy: "none",
  contract: "none",
  "results-path": "/out/results.json",
};

/** [setting, bad value, what the message must say]. */
const BAD: [string, string, RegExp][] = [
  [
    "rate",
    "fast",
    /rate = "fast" is not accepted; expected requests per second \(> 0, ≤ 10,000\), or a shape/,
  ],
  ["rate", "0x10", /rate = "0x10" is not accepted/],
  ["rate", "-3", /rate = "-3" is not accepted/],
  ["rate", "1e8", /rate = "1e8" is not accepted; expected requests per second \(> 0, ≤ 10,000\)/],
  ["rate", "1e-9", /rate × duration = 3\.0e-8 requests in the measured window is not accepted/],
  ["duration", "999999h", /duration = "999999h" is not accepted; expected a duration .* ≤ 24h/],
  ["duration", "soon", /duration = "soon" is not accepted/],
  ["warmup", "-1s", /warmup = "-1s" is not accepted/],
  ["timeout", "0", /timeout = "0" is not accepted/],
  [
    "input-len",
    "2000000000",
    /input-len = "2000000000" is not accepted; expected token counts up to 1,000,000/,
  ],
  ["input-len", "0", /input-len = "0" is not accepted/],
  ["output-len", "200..100", /output-len = "200\.\.100" is not accepted/],
  ["max-tokens", "1.5", /max-tokens = "1\.5" is not accepted; expected an integer/],
  ["seed", "-1", /seed = "-1" is not accepted/],
  [
    "arrival",
    "zipf",
    /arrival = "zipf" is not accepted; expected one of poisson, gamma, constant, burst, all-at-once/,
  ],
  [
    "endpoint",
    "embeddings",
    /endpoint = "embeddings" is not accepted; expected one of chat, completions/,
  ],
  ["temperature", "3", /temperature = "3" is not accepted/],
  ["max-concurrency", "0", /max-concurrency = "0" is not accepted/],
  ["slo", "ttft:fast", /slo ttft = "fast" is not accepted/],
  ["slo", "latency:5", /slo: unknown SLO key "latency"/],
  ["extra-body", "[1]", /extra-body = "\[1\]" is not accepted; expected a JSON object/],
  ["ignore-eos", "maybe", /ignore-eos = "maybe" is not accepted; expected true or false/],
  ["trials", "0", /trials = "0" is not accepted; expected an integer ≥ 1 and ≤ 100/],
  ["trials", "three", /trials = "three" is not accepted/],
  ["max-trials", "1", /max-trials = 1 is not accepted; expected at least trials \(4\)/],
  ["order", "zig", /order = "zig" is not accepted; expected one of abba, abab, random/],
  [
    "percentile",
    "p97",
    /percentile = "p97" is not accepted; expected one of p50, p90, p95, p99, p99\.9/,
  ],
  [
    "max-ttft-regression",
    "ten",
    /max-ttft-regression = "ten" is not accepted; expected a percentage/,
  ],
  ["max-goodput-drop", "100%", /max-goodput-drop = "100%" is not accepted/],
  ["max-failure-increase", "2", /max-failure-increase = "2" is not accepted/],
  [
    "reliability-exclude",
    "ok",
    /reliability-exclude = "ok" is not accepted; expected one of empty/,
  ],
  ["decision-rule", "strict", /decision-rule = "strict" is not accepted/],
  ["confidence", "95", /confidence = "95" is not accepted; expected a number > 0\.5 and ≤ 0\.999/],
  ["max-error-rate", "5 percent", /max-error-rate = "5 percent" is not accepted/],
  ["min-ok-requests", "0", /min-ok-requests = "0" is not accepted/],
  ["max-reruns", "-1", /max-reruns = "-1" is not accepted/],
  ["idle-timeout", "forever", /idle-timeout = "forever" is not accepted/],
  ["max-skew-effect", "lots", /max-skew-effect = "lots" is not accepted/],
  ["max-late-sends", "200%", /max-late-sends = "200%" is not accepted/],
  ["max-event-loop-delay-ms", "-5", /max-event-loop-delay-ms = "-5" is not accepted/],
  [
    "fail-on",
    "fail,regressed",
    /fail-on = "regressed" is not accepted; expected one of pass, inconclusive, fail, error, cancelled/,
  ],
  [
    "comment",
    "sometimes",
    /comment = "sometimes" is not accepted; expected one of always, on-regression, never/,
  ],
  ["comment-key", "a b", /comment-key = "a b" is not accepted; expected 1–64 letters/],
  ["job-summary", "perhaps", /job-summary = "perhaps" is not accepted; expected true or false/],
  ["restart", "always", /restart = "always" is not accepted; expected one of never, per-trial/],
  ["ready-timeout", "0", /ready-timeout = "0" is not accepted/],
  ["quality-suite", "/nonexistent.yml", /quality-suite = "\/nonexistent\.yml" cannot be read/],
  ["quality-alpha", "2", /quality-alpha = "2" is not accepted/],
  ["quality-confirm-reruns", "99", /quality-confirm-reruns = "99" is not accepted/],
  ["baseline-url", "localhost:8000", /baseline-url = "localhost:8000" is not accepted/],
  ["candidate-url", "http://h/v1/chat/completions", /candidate-url = .* not an endpoint path/],
];

function fakeFs(files: Record<string, string> = {}) {
  const written = new Map<string, string>();
  return {
    written,
    readFile: (path: string) => {
      const text = files[path];
      if (text === undefined) throw missingFile(path);
      return text;
    },
    writeFile: (path: string, text: string) => {
      written.set(path, text);
    },
  };
}

const noRequest = async (): Promise<never> => {
  throw new Error("a bad setting must stop the run before any request");
};

function assertErrorFile(written: Map<string, string>, message: RegExp, what: string) {
  const text = written.get("/out/results.json");
  assert.ok(text, `${what}: a results file`);
  const results = JSON.parse(text);
  assert.equal(results.verdict, "error", what);
  assert.match(results.headline, message, what);
}

/** Inputs only the action has. */
const ACTION_ONLY: [string, string, RegExp][] = [
  ["mode", "dry", /mode = "dry" is not accepted; expected one of run, measure, report/],
  [
    "config",
    "/nonexistent.yml",
    /config = "\/nonexistent\.yml" cannot be read as YAML or JSON: ENOENT/,
  ],
];

/** Report mode measures nothing, but a bad value given to it is still refused by its rule. */
const REPORT_MODE: [string, string, RegExp][] = BAD.filter(([name, value]) =>
  ["rate=fast", "duration=soon", "warmup=-1s", "timeout=0"].includes(`${name}=${value}`),
).map(([name, value, message]) => [name, value, message]);

test(
  "every bad value through the action: one named line, no stack, an error results file",
  LOAD_TEST,
  async () => {
    const inReport = REPORT_MODE.map(([n, v, m]): [string, string, RegExp, boolean] => [
      n,
      v,
      m,
      true,
    ]);
    const all = [...BAD, ...ACTION_ONLY].map(([n, v, m]): [string, string, RegExp, boolean] => [
      n,
      v,
      m,
      false,
    ]);
    assert.equal(inReport.length, 4);
    for (const [name, value, message, report] of [...all, ...inReport]) {
      const fs = fakeFs();
      const failed: string[] = [];
      const outputs: Record<string, string> = {};
      const inputs: Record<string, string> = {
        ...BASE,
        ...(report ? { mode: "report" } : {}),
        [name]: value,
      };
      const deps: ActionDeps = {
        env: {},
        ...fs,
        input: (n) => inputs[n] ?? "",
        multilineInput: (n) => (inputs[n] ? [inputs[n]] : []),
        measureTrial: noRequest,
        githubApi: () => {
          throw new Error("no GitHub API without a repository");
        },
        io: {
          setOutput: (n, v) => {
            outputs[n] = v;
          },
          info: () => {},
          warning: () => {},
          error: () => {},
          setFailed: (m) => failed.push(m),
          setSecret: () => {},
          writeSummary: async () => {},
        },
      };
      await runAction(deps);
      const what = `action ${report ? "mode report, " : ""}${name}=${value}`;
      assert.equal(failed.length, 1, what);
      assert.match(failed[0] ?? "", message, what);
      assert.doesNotMatch(failed[0] ?? "", /\n/, `${what}: one line`);
      assert.equal(outputs.verdict, "error", what);
      assertErrorFile(fs.written, message, what);
    }
  },
);

async function cli(args: string[], files: Record<string, string> = {}) {
  const fs = fakeFs(files);
  let stderr = "";
  let stdout = "";
  const code = await runCli(args, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: {},
    ...fs,
    gate: { measureTrial: noRequest },
  });
  return { code, stderr, stdout, written: fs.written };
}

/** --name=value, so that a value such as "-3" is a value, not a flag. */
const flags = (settings: Record<string, string>) =>
  Object.entries(settings).map(([k, v]) => `--${k}=${v}`);

test(
  "every bad value through the CLI: exit 2, the message on stderr, no stack, an error results file",
  LOAD_TEST,
  async () => {
    // A boolean flag is a switch there: it cannot carry a bad value.
    for (const [name, value, message] of BAD.filter(([n]) => setting(n)?.kind !== "boolean")) {
      const r = await cli(["gate", ...flags({ ...BASE, [name]: value })]);
      const what = `--${name} ${value}`;
      assert.equal(r.code, 2, `${what}: ${r.stderr}`);
      assert.match(r.stderr.split("\n")[0] ?? "", message, what);
      assert.doesNotMatch(r.stderr, /\n\s+at /, `${what}: no stack trace`);
      assertErrorFile(r.written, message, what);
    }
  },
);

test(
  "every bad value in a config file, and wrong types there: named, no stack, an error results file",
  LOAD_TEST,
  async () => {
    const yaml = (v: string) => (/^[\w./:%,-]+$/.test(v) ? v : JSON.stringify(v));
    const cases: [string, RegExp][] = BAD.filter(([name]) => !name.endsWith("-url")).map(
      ([name, value, message]) => [`${name}: ${yaml(value)}`, message],
    );
    cases.push(
      [
        "trials: [1, 2]",
        /config c\.yml: trials is a list of 2, not accepted; expected a single value/,
      ],
      [
        "slo: {ttft: 800}",
        /config c\.yml: slo is a mapping, not accepted; expected a single value/,
      ],
      [
        "header: {Authorization: x}",
        /header is a mapping, not accepted; expected a string or a list of strings/,
      ],
      [
        "header: ['Authorization: Bearer sk-1234']",
        /header "Authorization: …" looks like a credential and must not be in a file/,
      ],
      ["api-key: sk-1234", /"api-key" must not be in a file/],
      ["trails: 3", /unknown setting "trails"/],
      ["rate: 0x10", /rate = "0x10" is not accepted/],
      ["- 1\n- 2", /expected a mapping of settings/],
      ["a: [1,", /cannot be read as YAML or JSON/],
    );
    for (const [text, message] of cases) {
      const base = { ...BASE };
      const key = text.split(":")[0] ?? "";
      delete base[key];
      const r = await cli(["gate", "--config", "c.yml", ...flags(base)], { "c.yml": text });
      assert.equal(r.code, 2, `${text}: ${r.stderr}`);
      assert.match(r.stderr.split("\n")[0] ?? "", message, text);
      assert.doesNotMatch(r.stderr, /\n\s+at |sk-1234/, `${text}: no stack trace, no secret`);
      assertErrorFile(r.written, message, text);
    }
    const total = BAD.length + ACTION_ONLY.length + cases.length;
    assert.ok(total >= 60, `${total} distinct bad values`);
  },
);

test(
  "a refused value that may be a credential is described, never quoted: not on stderr, not in the results file",
  LOAD_TEST,
  async () => {
    const MARK = "sk-marker0123456789";
    const viaFlags: [Record<string, string>, RegExp][] = [
      [
        { "baseline-url": `https://user:${MARK}@h.example/v1/chat/completions` },
        /baseline-url: credentials in the URL are not accepted \(the URL is not shown\)/,
      ],
      [
        { "candidate-url": `htp://u:${MARK}@h` },
        /candidate-url: credentials in the URL are not accepted/,
      ],
      [
        { "baseline-metrics-url": `http://u:${MARK}@127.0.0.1:9/metrics` },
        /metrics-url: credentials in the URL are not accepted/,
      ],
      [{ rate: MARK }, /rate = \(a value that looks like a credential, 19 characters, not shown\)/],
      [{ endpoint: `Bearer ${MARK}` }, /endpoint = \(a value that looks like a credential/],
    ];
    for (const [settings, message] of viaFlags) {
      const r = await cli(["gate", ...flags({ ...BASE, ...settings })]);
      const what = JSON.stringify(Object.keys(settings));
      assert.equal(r.code, 2, `${what}: ${r.stderr}`);
      assert.match(r.stderr, message, what);
      assertErrorFile(r.written, message, what);
      for (const text of [r.stderr, r.stdout, ...r.written.values()])
        assert.ok(!text.includes(MARK), `${what}: the marker is not echoed`);
    }
    const viaConfig = [
      `header: {Authorization: "Bearer ${MARK}"}`,
      `header:\n  - "Authorization: Bearer ${MARK}"`,
      `rate: 5\nheader: "X-Custom: ${MARK}"\n  bad: [`,
    ];
    for (const text of viaConfig) {
      const r = await cli(["gate", "--config", "c.yml", ...flags(BASE)], { "c.yml": text });
      assert.equal(r.code, 2, `${text}: ${r.stderr}`);
      for (const out of [r.stderr, r.stdout, ...r.written.values()])
        assert.ok(!out.includes(MARK), `${text}: the marker is not echoed:\n${out}`);
    }
  },
);
