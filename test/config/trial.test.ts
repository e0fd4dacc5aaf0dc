import assert from "node:assert/strict";
import { test } from "node:test";
import { InputError } from "../../src/common/errors.ts";
import { formatSlo, sloRecord } from "../../src/common/slo.ts";
import type { RawSettings } from "../../src/config/settings.ts";
import { parseSlo } from "../../src/config/slo.ts";
import { parseTrialOptions } from "../../src/config/trial.ts";

const BASE: RawSettings = { url: "http://127.0.0.1:8000/v1", model: "m", rate: "5" };

function rejects(raw: RawSettings, message: RegExp, env = {}) {
  assert.throws(
    () =>
      parseTrialOptions(
        { ...BASE, ...raw },
        env,
        () => '{"messages":[{"role":"user","content":"x"}]}',
      ),
    (error: unknown) => {
      assert.ok(error instanceof InputError, String(error));
      assert.match(error.message, message);
      return true;
    },
  );
}

test("defaults and a full set of settings parse into one config", () => {
  const c = parseTrialOptions(BASE);
  assert.equal(c.target.baseUrl, "http://127.0.0.1:8000/v1");
  assert.equal(c.target.endpoint, "chat");
  assert.equal(c.target.includeUsage, true);
  assert.deepEqual(c.workload.arrival, { kind: "poisson", ratePerS: 5 });
  assert.equal(c.workload.durationS, 30);
  assert.equal(c.timeoutS, 60);
  assert.deepEqual(c.workload.inputLen, { kind: "fixed", tokens: 256 });
  assert.equal(c.limits.maxSendSkewP99Ms, undefined, "absolute skew limit off by default");
  assert.equal(c.limits.maxSkewEffect, 0.025);
  assert.equal(c.limits.maxLateSends, undefined, "a count of late sends is off by default");
  assert.equal(c.limits.maxOfferedDrift, 0.1, "the offered rate over windows is the rule");
  assert.equal(c.limits.percentile, "p95");
  const full = parseTrialOptions(
    {
      ...BASE,
      arrival: "gamma",
      burstiness: "0.5",
      duration: "2m",
      warmup: "500ms",
      "input-len": "100..200",
      "output-len": "normal:128,16",
      "max-tokens": "256",
      "ignore-eos": "true",
      "no-usage": "true",
      "max-concurrency": "8",
      slo: "ttft:800 tpot:50",
      header: ["X-Team: infra"],
      "extra-body": '{"top_k": 1}',
      "max-send-skew-ms": "2",
    },
    { OPENAI_API_KEY: "sk-secret" },
  );
  assert.deepEqual(full.workload.arrival, { kind: "gamma", ratePerS: 5, burstiness: 0.5 });
  assert.equal(full.workload.durationS, 120);
  assert.equal(full.workload.warmupS, 0.5);
  assert.deepEqual(full.workload.outputLen, { kind: "normal", mean: 128, sd: 16 });
  assert.equal(full.target.includeUsage, false);
  assert.equal(full.target.apiKey, "sk-secret", "the key comes from the environment");
  assert.deepEqual(full.target.headers, { "x-team": "infra" });
  assert.deepEqual(full.slo, { ttftMs: 800, tpotMs: 50 });
  assert.equal(full.maxConcurrency, 8);
  assert.equal(full.limits.maxSendSkewP99Ms, 2);
});

test("bad settings name the setting, the value and what is accepted", () => {
  rejects({ url: undefined }, /^url is required/);
  rejects({ url: "ftp://x" }, /url = "ftp:\/\/x" is not accepted; expected an http\(s\) base URL/);
  rejects({ url: "http://h/v1/chat/completions" }, /not an endpoint path/);
  rejects(
    { rate: "fast" },
    /rate = "fast" is not accepted; expected requests per second \(> 0, ≤ 10,000\), or a shape/,
  );
  rejects({ rate: "0" }, /rate = "0"/);
  rejects(
    { rate: undefined },
    /rate is required: requests per second \(or a shape\) for poisson arrivals/,
  );
  rejects(
    { arrival: "zipf" },
    /arrival = "zipf" is not accepted; expected one of poisson, gamma, constant, burst, all-at-once/,
  );
  rejects({ arrival: "burst" }, /burst-size is required/);
  rejects({ arrival: "all-at-once" }, /requests is required/);
  rejects(
    { duration: "ten" },
    /duration = "ten" is not accepted; expected a duration such as 30, 30s, 500ms or 2m > 0 s/,
  );
  rejects({ "input-len": "0" }, /input-len = "0" is not accepted; expected a token count/);
  rejects({ "output-len": "200..100" }, /output-len = "200\.\.100"/);
  rejects(
    { endpoint: "embeddings" },
    /endpoint = "embeddings" is not accepted; expected one of chat, completions/,
  );
  rejects(
    { "max-concurrency": "1.5" },
    /max-concurrency = "1\.5" is not accepted; expected an integer ≥ 1/,
  );
  rejects({ "extra-body": "[1]" }, /extra-body = "\[1\]" is not accepted; expected a JSON object/);
  rejects({ header: ["Authorization Bearer sk-123"] }, /header = "\(a line without a colon\)"/);
  rejects(
    { "ignore-eos": "maybe" },
    /ignore-eos = "maybe" is not accepted; expected true or false/,
  );
  rejects(
    { "max-gc-share": "2" },
    /max-gc-share = "2" is not accepted; expected a number ≥ 0 and ≤ 1/,
  );
  rejects(
    { slo: "ttft:fast" },
    /slo ttft = "fast" is not accepted; expected a number of milliseconds > 0/,
  );
  rejects(
    { slo: "latency:100" },
    /slo: unknown SLO key "latency" .*accepted keys: ttft, tpot, itl, e2el/,
  );
  assert.throws(
    () => parseTrialOptions({ ...BASE, dataset: "/nonexistent.jsonl" }),
    /dataset = "\/nonexistent\.jsonl" cannot be read/,
  );
});

test("the API key never appears in an error message", () => {
  try {
    parseTrialOptions({ ...BASE, "api-key": "sk-very-secret", rate: "x" });
    assert.fail("should throw");
  } catch (error) {
    assert.doesNotMatch((error as Error).message, /sk-very-secret/);
  }
});

test("SLO strings in vLLM's syntax", () => {
  assert.deepEqual(parseSlo("slo", "ttft:800 tpot:50 e2el:2000"), {
    ttftMs: 800,
    tpotMs: 50,
    e2elMs: 2000,
  });
  assert.deepEqual(parseSlo("slo", "ttft:800,tpot:50"), { ttftMs: 800, tpotMs: 50 });
  assert.deepEqual(parseSlo("slo", "ttft:800 itl:50"), { ttftMs: 800, itlMs: 50 });
  assert.equal(formatSlo(sloRecord({ ttftMs: 800, itlMs: 50 })), "ttft:800 itl:50");
  assert.deepEqual(parseSlo("slo", "  "), {});
  assert.equal(formatSlo(sloRecord({ ttftMs: 800, tpotMs: 50 })), "ttft:800 tpot:50");
  assert.throws(() => parseSlo("slo", "ttft:800 ttft:900"), /"ttft" is given twice/);
  assert.throws(
    () => parseSlo("slo", "ttft=800"),
    /expected space-separated key:milliseconds pairs/,
  );
  assert.throws(() => parseSlo("slo", "ttft:-5"), /slo ttft = "-5"/);
});

test("prompt files: JSONL and ShareGPT, with errors that say where", () => {
  const jsonl = parseTrialOptions(
    { ...BASE, dataset: "p.jsonl" },
    {},
    () =>
      '{"messages":[{"role":"user","content":"a"}],"max_tokens":5}\n\n{"messages":[{"role":"user","content":"b"}]}\n',
  );
  assert.equal(jsonl.workload.dataset?.entries.length, 2);
  assert.equal(jsonl.workload.dataset?.entries[0]?.maxTokens, 5);
  assert.equal(jsonl.workload.outputLen, undefined, "a dataset keeps its own output lengths");
  const sharegpt = parseTrialOptions({ ...BASE, dataset: "s.json" }, {}, () =>
    JSON.stringify([
      {
        conversations: [
          { from: "human", value: "hello there" },
          { from: "gpt", value: "x".repeat(40) },
        ],
      },
      { conversations: [{ from: "gpt", value: "no human turn" }] },
    ]),
  );
  assert.deepEqual(sharegpt.workload.dataset?.entries, [
    { messages: [{ role: "user", content: "hello there" }], maxTokens: 10, later: [] },
  ]);
  assert.throws(
    () => parseTrialOptions({ ...BASE, dataset: "bad.jsonl" }, {}, () => '{"messages":[]}\n'),
    /dataset bad\.jsonl: line 1: `messages` must be a non-empty array/,
  );
  assert.throws(
    () => parseTrialOptions({ ...BASE, dataset: "bad.jsonl" }, {}, () => "{oops\n"),
    /dataset bad\.jsonl: line 1: not JSON/,
  );
});

test("shared prefixes: parsed, off by default, and bad values named", () => {
  assert.equal(parseTrialOptions(BASE).workload.prefix, undefined);
  assert.deepEqual(
    parseTrialOptions({ ...BASE, "prefix-groups": "8", "prefix-pick": "zipf:1.2" }).workload.prefix,
    { groups: 8, tokens: 512, zipfS: 1.2 },
  );
  assert.equal(
    parseTrialOptions({ ...BASE, "prefix-groups": "2", "prefix-pick": "zipf" }).workload.prefix
      ?.zipfS,
    1,
  );
  rejects({ "prefix-groups": "-1" }, /prefix-groups = "?-1"? is not accepted/);
  rejects({ "prefix-groups": "4", "prefix-len": "0" }, /prefix-len = "?0"? is not accepted/);
  rejects(
    { "prefix-groups": "4", "prefix-pick": "pareto" },
    /prefix-pick = "pareto" is not accepted; expected uniform, zipf \(exponent 1\) or zipf:S/,
  );
  // Without groups they shape nothing: refused, not ignored (a field finding: exit 0 before).
  rejects({ "prefix-pick": "banana" }, /^prefix-pick = banana is not used without prefix-groups/);
  rejects({ "prefix-len": "1000000000" }, /prefix-len = "?1000000000"? is not/);
  rejects(
    { "prefix-groups": "4", dataset: "d.jsonl" },
    /prefix-groups = 4 is not used with a dataset/,
  );
});

test("sessions: turns, think-time and turn-input-len parsed; misplaced ones named", () => {
  assert.equal(parseTrialOptions(BASE).workload.sessions, undefined);
  assert.deepEqual(
    parseTrialOptions({ ...BASE, turns: "4", "think-time": "2s", "input-len": "900" }).workload
      .sessions,
    { turns: 4, thinkS: 2, laterInputLen: { kind: "fixed", tokens: 900 } },
  );
  rejects({ "think-time": "1s" }, /think-time = 1s is used only with turns above 1/);
  rejects({ turns: "0" }, /turns = "?0"? is not accepted/);
  rejects(
    { turns: "3", dataset: "d.jsonl" },
    /turns = 3 needs conversations of several user turns: dataset d\.jsonl has none/,
  );
});

test("workers: auto by default, a count from 1 to 64; a count over one refused where requests depend on each other", () => {
  assert.deepEqual(parseTrialOptions(BASE).workers, { requested: "auto", reservedCores: 0 });
  assert.equal(parseTrialOptions({ ...BASE, workers: "4" }).workers?.requested, 4);
  for (const bad of ["0", "65", "2.5", "two", "-1"])
    rejects(
      { workers: bad },
      /^workers = .* is not accepted; expected auto, or a whole number from 1 to 64$/,
    );
  rejects(
    { workers: "2", "max-concurrency": "8" },
    /workers = 2 is not accepted with max-concurrency/,
  );
  rejects(
    { workers: "2", turns: "3" },
    /workers = 2 is not accepted with sessions of more than one turn/,
  );
  assert.equal(parseTrialOptions({ ...BASE, workers: "1", turns: "3" }).workers?.requested, 1);
});
