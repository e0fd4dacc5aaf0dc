import assert from "node:assert/strict";
import { test } from "node:test";
import { InputError } from "../../src/common/errors.ts";
import { parseConfig } from "../../src/config/config.ts";
import { type RawSettings, SETTINGS } from "../../src/config/settings.ts";
import { mergeSettings, readConfigFile } from "../../src/config/sources.ts";
import { parseFraction } from "../../src/config/values.ts";

const BASE: RawSettings = {
  "baseline-url": "http://127.0.0.1:8001/v1",
  "candidate-url": "http://127.0.0.1:8002/v1",
  model: "m",
  rate: "10",
};

function rejects(raw: RawSettings, message: RegExp) {
  assert.throws(
    () => parseConfig({ ...BASE, ...raw }),
    (e: unknown) => e instanceof InputError && message.test(e.message),
    `expected ${message}`,
  );
}

test("defaults follow DESIGN.md", () => {
  const config = parseConfig(BASE);
  const c = config.gate;
  // Four pairs before the first look (two balanced AB + BA blocks), up to 30.
  assert.equal(c.trials, 4);
  assert.equal(c.maxTrials, 30);
  assert.equal(parseConfig({ ...BASE, trials: "40" }).gate.maxTrials, 40, "never below trials");
  assert.equal(c.order, "abba");
  assert.equal(c.decision.percentile, "p95");
  assert.deepEqual(c.decision.tolerances, { goodput: 0.05, ttft: 0.1, itl: 0.1 });
  assert.equal(c.decision.rule, "margin");
  assert.equal(c.decision.confidence, 0.95);
  assert.equal(c.decision.maxErrorRate, 0.01);
  assert.equal(c.decision.maxTrialCv, 0.1);
  assert.deepEqual(config.report.failOn, ["fail", "error"]);
  assert.equal(c.quality?.suite.name, "builtin");
  assert.equal(c.quality?.suite.cases.length, 33);
  assert.deepEqual(c.quality?.rule, {
    alpha: 0.05,
    minEffect: 0.02,
    largeEffect: 0.1,
    confirmReruns: 2,
  });
  assert.equal(parseConfig({ ...BASE, "quality-suite": "none" }).gate.quality, undefined);
  assert.equal(config.report.comment, "always");
  assert.equal(c.baseline.target.baseUrl, "http://127.0.0.1:8001/v1");
  assert.equal(c.candidate.target.baseUrl, "http://127.0.0.1:8002/v1");
});

test("per-arm model and key override the shared ones", () => {
  const c = parseConfig({
    ...BASE,
    "candidate-model": "m-fp8",
    "api-key": "k1",
    "candidate-api-key": "k2",
  }).gate;
  assert.equal(c.baseline.target.model, "m");
  assert.equal(c.candidate.target.model, "m-fp8");
  assert.equal(c.baseline.target.apiKey, "k1");
  assert.equal(c.candidate.target.apiKey, "k2");
});

test("bad inputs name the input, the value and what is accepted", () => {
  rejects({ "baseline-url": undefined }, /^baseline-url is required/);
  rejects(
    { "candidate-url": "localhost:8000" },
    /^candidate-url = "localhost:8000" is not accepted/,
  );
  rejects({ model: undefined }, /^model \(or baseline-model\) is required/);
  rejects({ trials: "0" }, /trials = "0" is not accepted; expected an integer ≥ 1/);
  rejects(
    { trials: "5", "max-trials": "3" },
    /max-trials = 3 is not accepted; expected at least trials \(5\)/,
  );
  rejects({ order: "ab" }, /order = "ab" is not accepted; expected one of abba, abab, random/);
  rejects(
    { percentile: "p97" },
    /percentile = "p97" is not accepted; expected one of p50, p90, p95, p99, p99\.9/,
  );
  rejects(
    { "max-ttft-regression": "ten" },
    /max-ttft-regression = "ten" is not accepted; expected a percentage such as 5% or a fraction/,
  );
  rejects({ "max-goodput-drop": "100%" }, /max-goodput-drop = "100%"/);
  rejects(
    { "decision-rule": "strict" },
    /decision-rule = "strict" is not accepted; expected one of margin, confirm/,
  );
  rejects(
    { confidence: "95" },
    /confidence = "95" is not accepted; expected a number > 0\.5 and ≤ 0\.999/,
  );
  rejects(
    { "fail-on": "fail,regressed" },
    /fail-on = "regressed" is not accepted; expected one of pass, inconclusive, fail, error/,
  );
  rejects(
    { comment: "sometimes" },
    /comment = "sometimes" is not accepted; expected one of always, on-regression, never/,
  );
  rejects({ "comment-key": "a b" }, /comment-key = "a b" is not accepted/);
  rejects({ mode: "dry" }, /mode = "dry" is not accepted; expected one of run, measure, report/);
  rejects({ rate: "-1" }, /rate = "-1"/);
  rejects(
    { "quality-suite": "/nonexistent.yml" },
    /quality-suite = "\/nonexistent\.yml" cannot be read: .*accepted: a file path, builtin or none/,
  );
  rejects({ "quality-alpha": "2" }, /quality-alpha = "2" is not accepted/);
  assert.equal(parseFraction("x", "5%"), 0.05);
  assert.equal(parseFraction("x", "0.05"), 0.05);
});

test("a YAML config file holds the settings; inputs override it; secrets are refused in it", () => {
  const file = readConfigFile("gate.yml", () =>
    [
      "trials: 5",
      "rate: 20",
      "slo: ttft:800 tpot:50",
      "header:",
      "  - 'X-Team: infra'",
      "max-ttft-regression: 15%",
    ].join("\n"),
  );
  const c = parseConfig(mergeSettings(file, BASE, { trials: "", rate: "12" })).gate;
  assert.equal(c.trials, 5, "an empty input does not override the file");
  assert.deepEqual(c.baseline.workload.arrival, { kind: "poisson", ratePerS: 12 });
  assert.equal(c.decision.tolerances.ttft, 0.15);
  assert.deepEqual(c.candidate.target.headers, { "x-team": "infra" });
  assert.deepEqual(c.baseline.slo, { ttftMs: 800, tpotMs: 50 });
  assert.throws(
    () => readConfigFile("g.yml", () => "trails: 3"),
    /config g\.yml: unknown setting "trails"; accepted: .*trials/,
  );
  assert.throws(
    () => readConfigFile("g.yml", () => "api-key: sk-1"),
    /"api-key" must not be in a file/,
  );
  assert.throws(() => readConfigFile("g.yml", () => "- 1\n- 2"), /expected a mapping of settings/);
  assert.throws(() => readConfigFile("g.yml", () => "a: [1,"), /cannot be read as YAML or JSON/);
  const json = readConfigFile("g.json", () => '{"trials": 4, "order": "random"}');
  assert.equal(parseConfig(mergeSettings(json, BASE)).gate.order, "random");
});

test("a capacity gate: the sweep's settings parsed, and what it would silently ignore refused", () => {
  const capacity = { rate: undefined, capacity: "true", slo: "ttft:800" };
  const c = parseConfig({ ...BASE, ...capacity, "sweep-points": "5", "max-duration": "30m" });
  assert.equal(c.gate.capacity?.sweep.points, 5);
  assert.equal(c.gate.capacity?.sweep.maxDurationS, 1800);
  assert.equal(c.gate.capacity?.sweep.resolution, 0.02);
  assert.equal(c.gate.capacity?.maxCapacityDrop, 0.05);
  // Below the knee: at it, a capacity loss inside its tolerance is a huge TTFT regression.
  assert.equal(c.gate.capacity?.rateFraction, 0.8);
  assert.equal(parseConfig(BASE).gate.capacity, undefined);

  rejects(
    { "sweep-points": "4" },
    /^sweep-points is set, but capacity is not: it is used only by a capacity gate/,
  );
  rejects({ capacity: "true", slo: "ttft:800" }, /^rate = 10 is not used with capacity/);
  rejects({ ...capacity, slo: undefined }, /^slo is required with capacity/);
  // A millisecond window would blame every point on the client's CPU: refused, as measure refuses it.
  rejects(
    { ...capacity, duration: "1ms" },
    /^duration = 1ms is not accepted with capacity: a sweep point's window must hold its requests and a reading of the client's CPU; expected at least 1s/,
  );
  rejects({ ...capacity, requests: "5" }, /^requests = 5 is not used with capacity/);
  rejects(
    { ...capacity, arrival: "gamma" },
    /arrival = "gamma" is not accepted; expected one of poisson, constant/,
  );
  rejects({ ...capacity, "capacity-resolution": "60%" }, /^capacity-resolution = "60%"/);
  rejects(
    { ...capacity, "capacity-resolution": "0" },
    /^capacity-resolution = "0" is not accepted; expected a percentage .*, above 0 and at most 50%/,
  );
  rejects(
    { ...capacity, "min-attainment": "0%" },
    /^min-attainment = "0%" is not accepted; expected .*above 0/,
  );
  rejects({ ...capacity, "gate-rate-fraction": "0" }, /^gate-rate-fraction = "0"/);
  rejects({ ...capacity, "max-duration": "0s" }, /^max-duration = "0s"/);
});

test("server metrics: each arm's origin + /metrics by default, per-arm URLs, none; one shared URL refused", () => {
  const c = parseConfig(BASE).gate;
  assert.deepEqual(c.baseline.serverMetrics, {
    url: `${new URL(BASE["baseline-url"] as string).origin}/metrics`,
    intervalS: 1,
    runtime: "auto",
  });
  assert.equal(
    c.candidate.serverMetrics?.url,
    `${new URL(BASE["candidate-url"] as string).origin}/metrics`,
  );
  const own = parseConfig({
    ...BASE,
    "baseline-metrics-url": "http://10.0.0.1:9090/metrics",
    "candidate-metrics-url": "none",
    "metrics-interval": "500ms",
    "metrics-runtime": "sglang",
  }).gate;
  assert.deepEqual(own.baseline.serverMetrics, {
    url: "http://10.0.0.1:9090/metrics",
    intervalS: 0.5,
    runtime: "sglang",
  });
  assert.equal(own.candidate.serverMetrics, null);
  assert.equal(parseConfig({ ...BASE, "metrics-url": "none" }).gate.baseline.serverMetrics, null);
  rejects(
    { "metrics-url": "http://10.0.0.1:9090/metrics" },
    /^metrics-url = .* would scrape one server for both arms; set baseline-metrics-url and candidate-metrics-url/,
  );
  rejects(
    { "candidate-metrics-url": "ftp://x/metrics" },
    /^candidate-metrics-url = "ftp:\/\/x\/metrics" is not accepted; expected an http\(s\) URL/,
  );
  rejects({ "metrics-interval": "10ms" }, /^metrics-interval/);
  rejects(
    { "metrics-runtime": "triton" },
    /^metrics-runtime.*triton.*auto, vllm, sglang, tgi, llamacpp/,
  );
});

test("workers: auto leaves a core to each server the gate starts; a shard is one thread", () => {
  const started = parseConfig({
    ...BASE,
    "baseline-start": "serve a",
    "candidate-start": "serve b",
  });
  assert.deepEqual(started.gate.baseline.workers, { requested: "auto", reservedCores: 2 });
  assert.deepEqual(parseConfig(BASE).gate.candidate.workers, {
    requested: "auto",
    reservedCores: 0,
  });
  const shard = { shard: "0/2", "start-at": String(Math.floor(Date.now() / 1000) + 600) };
  const two = parseConfig({ ...BASE, workers: "2" }).gate;
  assert.deepEqual([two.baseline.workers?.requested, two.candidate.workers?.requested], [2, 2]);
  assert.equal(parseConfig({ ...BASE, ...shard }).gate.baseline.workers?.requested, 1);
  assert.equal(
    parseConfig({ ...BASE, ...shard, workers: "1" }).gate.baseline.workers?.requested,
    1,
  );
  rejects({ ...shard, workers: "2" }, /shard is set, but a sharded plan cannot split workers/);
});

test("every setting has a name of its own, aliases included: a flag names one setting", () => {
  const names = SETTINGS.flatMap((s) => [s.name, ...("aliases" in s ? (s.aliases ?? []) : [])]);
  assert.deepEqual(
    names.filter((n, i) => names.indexOf(n) !== i),
    [],
  );
});
