import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type Answer,
  answerFromJson,
  emptyAnswer,
  StreamAssembler,
} from "../../src/quality/answer.ts";
import { runChecks } from "../../src/quality/checks.ts";
import { mcnemarOneSided } from "../../src/quality/rule.ts";
import { parseSuite, type QualityCase } from "../../src/quality/suite.ts";

const WEATHER = {
  type: "function" as const,
  function: {
    name: "get_weather",
    parameters: {
      type: "object",
      properties: { city: { type: "string" }, unit: { type: "string", enum: ["c", "f"] } },
      required: ["city"],
      additionalProperties: false,
    },
  },
};

function makeCase(extra: Partial<QualityCase>): QualityCase {
  return {
    id: "t",
    tags: [],
    messages: [{ role: "user", content: "x" }],
    max_tokens: 50,
    temperature: 0,
    top_p: 1,
    seed: 1,
    stream: false,
    repeats: 1,
    extra_body: {},
    expect: [],
    ...extra,
  };
}

function answer(extra: Partial<Answer>): Answer {
  return { ...emptyAnswer(200), finishReason: "stop", completionTokens: 5, ...extra };
}

function codes(c: QualityCase, a: Answer): string[] {
  return runChecks(c, a).flatMap((r) => r.codes);
}

test("JSON checks: parse, schema with the failing path, RFC 6901 pointers", () => {
  const schema = {
    type: "object",
    properties: { name: { type: "string" }, tags: { type: "array", minItems: 1 } },
    required: ["name"],
  };
  const c = makeCase({
    response_format: { type: "json_schema", json_schema: { name: "p", schema } },
    expect: [
      { kind: "json_parse" },
      { kind: "json_schema" },
      { kind: "json_path", pointer: "/name", equals: "Ada" },
      { kind: "json_path", pointer: "/a~1b", in: [1, 2] },
    ],
  });
  assert.deepEqual(codes(c, answer({ content: '{"name":"Ada","tags":["x"],"a/b":2}' })), []);
  assert.deepEqual(codes(c, answer({ content: '{"name": "Ada", "tags": [' })), [
    "json.invalid",
    "json.invalid",
    "json.invalid",
    "json.invalid",
  ]);
  assert.deepEqual(codes(c, answer({ content: '{"name":"Bo","tags":[],"a/b":3}' })), [
    "json.schema:/tags",
    "json.path_mismatch:/name",
    "json.path_mismatch:/a~1b",
  ]);
  assert.deepEqual(codes(c, answer({ content: '{"tags":["x"]}' })), [
    "json.schema:/",
    "json.path_missing:/name",
    "json.path_missing:/a~1b",
  ]);
  const tiers = runChecks(c, answer({ content: "{" })).map((r) => `${r.kind}:${r.tier}`);
  assert.deepEqual(tiers, [
    "transport:strict",
    "json_parse:strict",
    "json_schema:strict",
    "json_path:graded",
    "json_path:graded",
  ]);
});

test("tool_call failure codes", () => {
  const required = makeCase({
    tools: [WEATHER],
    tool_choice: "required",
    expect: [
      {
        kind: "tool_call",
        calls: [
          { name: "get_weather", arguments: { city: ["Paris", "paris, fr"], unit: ["c", ""] } },
        ],
      },
    ],
  });
  const call = (name: string, args: string, id?: string | null) => ({
    id: id === null ? undefined : (id ?? "c1"),
    type: "function",
    name,
    arguments: args,
  });
  const ok = answer({
    toolCalls: [call("get_weather", '{"city":"Paris"}')],
    toolCallsPresent: true,
    finishReason: "tool_calls",
  });
  assert.deepEqual(codes(required, ok), []);
  const cases: [Partial<Answer>, string[]][] = [
    [{ content: "", finishReason: "stop" }, ["tool.missing"]],
    [
      {
        content: '{"name": "get_weather", "arguments": {"city": "Paris"}}',
        toolCallsPresent: true,
      },
      ["tool.in_content"],
    ],
    [
      { toolCalls: [call("get_wether", "{}")], finishReason: "tool_calls" },
      ["tool.unknown_name", "tool.wrong_tool:get_weather"],
    ],
    [
      { toolCalls: [call("get_weather", "{city: Paris")], finishReason: "tool_calls" },
      ["tool.args_not_json", "tool.value_mismatch:city"],
    ],
    [
      { toolCalls: [call("get_weather", '{"unit":"c"}')], finishReason: "tool_calls" },
      ["tool.missing_required", "tool.value_mismatch:city"],
    ],
    [
      {
        toolCalls: [call("get_weather", '{"city":"Paris","country":"FR"}')],
        finishReason: "tool_calls",
      },
      ["tool.unexpected_param"],
    ],
    [
      {
        toolCalls: [call("get_weather", '{"city":"Paris","unit":"k"}')],
        finishReason: "tool_calls",
      },
      ["tool.args_schema:/unit", "tool.value_mismatch:unit"],
    ],
    [
      { toolCalls: [call("get_weather", '{"city":"Lyon"}')], finishReason: "tool_calls" },
      ["tool.value_mismatch:city"],
    ],
    [
      { toolCalls: [call("get_weather", '{"city":"Paris"}')], finishReason: "stop" },
      ["tool.finish_reason"],
    ],
    [
      { toolCalls: [call("get_weather", '{"city":"Paris"}', null)], finishReason: "tool_calls" },
      ["tool.no_id"],
    ],
  ];
  for (const [a, expected] of cases)
    assert.deepEqual(codes(required, answer(a)), expected, JSON.stringify(a));
  // Wire-format codes are strict because tool_choice is required; value mismatches are graded.
  const r = runChecks(
    required,
    answer({
      toolCalls: [call("get_weather", '{"city":"Lyon","country":"FR"}')],
      finishReason: "tool_calls",
    }),
  );
  assert.deepEqual(
    r.map((x) => `${x.kind}:${x.tier}:${x.codes.join(",")}`),
    [
      "transport:strict:",
      "tool_call:strict:tool.unexpected_param",
      "tool_call:graded:tool.value_mismatch:city",
    ],
  );
});

test("parallel calls match in any order; count bounds; no_tool_call", () => {
  const c = makeCase({
    tools: [WEATHER],
    expect: [
      {
        kind: "tool_call",
        min_calls: 2,
        max_calls: 2,
        calls: [
          { name: "get_weather", arguments: { city: "Paris" } },
          { name: "get_weather", arguments: { city: "Oslo" } },
        ],
      },
    ],
  });
  const calls = ["Oslo", "Paris"].map((city, i) => ({
    id: `c${i}`,
    type: "function",
    name: "get_weather",
    arguments: JSON.stringify({ city }),
  }));
  assert.deepEqual(codes(c, answer({ toolCalls: calls, finishReason: "tool_calls" })), []);
  assert.deepEqual(codes(c, answer({ toolCalls: calls.slice(0, 1), finishReason: "tool_calls" })), [
    "tool.count",
    "tool.wrong_tool:get_weather",
  ]);
  const none = makeCase({ tools: [WEATHER], expect: [{ kind: "no_tool_call" }] });
  assert.deepEqual(codes(none, answer({ content: "It is sunny." })), []);
  assert.deepEqual(codes(none, answer({ toolCalls: calls.slice(0, 1) })), ["tool.unexpected_call"]);
  assert.deepEqual(codes(none, answer({ toolCallsPresent: true, content: "Hi" })), [
    "tool.empty_list",
  ]);
});

test("a pattern that backtracks exponentially runs in linear time: no answer can stall the run", {
  timeout: 30_000,
}, () => {
  // On a backtracking engine this answer takes longer than the universe has.
  const c = makeCase({ expect: [{ kind: "regex", pattern: "^(\\w+\\s?)*!$" }] });
  assert.deepEqual(codes(c, answer({ content: "word ".repeat(64) })), ["regex.no_match"]);
  assert.deepEqual(codes(c, answer({ content: "word word!" })), []);
  const flags = makeCase({ expect: [{ kind: "regex", pattern: "^done.$", flags: "ims" }] });
  assert.deepEqual(codes(flags, answer({ content: "first\nDONE\n" })), []);
});

test("text, length, finish_reason, max_tokens and transport checks", () => {
  const c = makeCase({
    expect: [
      { kind: "finish_reason", allowed: ["stop"] },
      { kind: "max_tokens_respected" },
      { kind: "length", max_chars: 10, not_truncated: true },
      { kind: "regex", pattern: "^(\\d+)$" },
      { kind: "equals", value: "42", normalize: true },
      { kind: "contains", values: ["4"] },
    ],
  });
  assert.deepEqual(codes(c, answer({ content: "42" })), []);
  assert.deepEqual(
    codes(
      c,
      answer({ content: "forty-two is the answer", finishReason: "length", completionTokens: 60 }),
    ),
    [
      "finish_reason:length",
      "length.over_max_tokens",
      "length.too_long",
      "length.truncated",
      "regex.no_match",
      "text.not_equal",
      "text.missing:4",
    ],
  );
  assert.deepEqual(runChecks(c, emptyAnswer(500))[0]?.codes, ["transport.http_500"]);
  assert.deepEqual(runChecks(c, answerFromJson(200, "{oops"))[0]?.codes, ["transport.not_json"]);
});

/** Streamed tool calls as OpenAI sends them, then irregular ones. */
const STREAM = [
  '{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}',
  '{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"ci"}}]}}]}',
  '{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ty\\": \\"Paris\\"}"}}]}}]}',
  '{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_2","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\": \\"Oslo\\"}"}}]}}]}',
  '{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}',
  '{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":20,"total_tokens":25}}',
  "[DONE]",
];

test("streamed tool calls assemble by index, the same at every split of the recorded stream", async () => {
  const { SseParser } = await import("../../src/openai/sse.ts");
  const bytes = new TextEncoder().encode(STREAM.map((d) => `data: ${d}\n\n`).join(""));
  const assemble = (chunks: Uint8Array[]) => {
    const s = new StreamAssembler(200);
    const p = new SseParser({ onEvent: (e) => s.event(e.data) });
    for (const c of chunks) p.push(c);
    return s.end(p.end(), true);
  };
  const whole = assemble([bytes]);
  assert.deepEqual(whole.toolCalls, [
    { id: "call_1", type: "function", name: "get_weather", arguments: '{"city": "Paris"}' },
    { id: "call_2", type: "function", name: "get_weather", arguments: '{"city": "Oslo"}' },
  ]);
  assert.deepEqual(
    [whole.finishReason, whole.completionTokens, whole.transport, whole.irregular],
    ["tool_calls", 20, [], []],
  );
  for (let i = 1; i < bytes.length; i++) {
    const split = assemble([bytes.subarray(0, i), bytes.subarray(i)]);
    assert.deepEqual(split.toolCalls, whole.toolCalls, `split at ${i}`);
  }
});

test("irregular deltas are tolerated and reported: no id, no index, duplicate index in a chunk", () => {
  const s = new StreamAssembler(200);
  s.event(
    '{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":"{\\"a\\""}},{"index":0,"function":{"arguments":":1}"}}]}}]}',
  );
  s.event(
    '{"choices":[{"delta":{"tool_calls":[{"id":"x","function":{"name":"g","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}',
  );
  s.event("[DONE]");
  const a = s.end(false, false);
  assert.deepEqual(
    a.toolCalls.map((c) => [c.id, c.name, c.arguments]),
    [
      [undefined, "f", '{"a":1}'],
      ["x", "g", "{}"],
    ],
  );
  assert.deepEqual(a.irregular, [
    "tool call 0 starts without an id",
    "two deltas with index 0 in one chunk",
    "a tool-call delta without index",
  ]);
  const cut = new StreamAssembler(200);
  cut.event('{"choices":[{"delta":{"content":"hi"}}]}');
  assert.deepEqual(cut.end(false, true).transport, [
    "transport.no_done",
    "transport.no_finish_reason",
    "transport.no_usage",
  ]);
});

test("in-band stream errors in either form are transport failures, as the load generator sees them", async () => {
  const { applyStreamEvent } = await import("../../src/load/stream.ts");
  const { newRecord } = await import("../../src/load/record.ts");
  const content = '{"choices":[{"index":0,"delta":{"content":"Hel"}}]}';
  for (const error of [
    '{"error":{"message":"CUDA error","type":"InternalServerError","code":500}}',
    '{"object":"error","message":"The engine died","type":"InternalServerError","code":500}',
  ]) {
    const s = new StreamAssembler(200);
    for (const d of [content, error, "[DONE]"]) s.event(d);
    assert.ok(s.end(false, false).transport.includes("transport.stream_error"), error);
    const r = newRecord(0, false, 0, 1000, undefined);
    for (const d of [content, error, "[DONE]"]) applyStreamEvent(r, d, 1);
    assert.match(r.streamError ?? "", /CUDA error|The engine died/, "the load generator agrees");
  }
});

test("exact one-sided McNemar p-values", () => {
  // P(X ≥ b), X ~ Binomial(b + c, 1/2): published exact values.
  assert.equal(mcnemarOneSided(5, 0), 0.03125);
  assert.equal(mcnemarOneSided(4, 0), 0.0625);
  assert.ok(Math.abs(mcnemarOneSided(8, 2) - 0.0546875) < 1e-12);
  assert.ok(Math.abs(mcnemarOneSided(10, 3) - 0.046142578125) < 1e-12);
  assert.equal(mcnemarOneSided(0, 0), 1);
  assert.equal(mcnemarOneSided(0, 5), 1);
});

test("suites are validated before anything is sent, with the case and the path", () => {
  const ok = parseSuite(
    [
      "defaults: { max_tokens: 64, stream: both }",
      "cases:",
      "  - id: a",
      "    messages: [{role: user, content: hi}]",
      "    expect: [{kind: regex, pattern: h}]",
    ].join("\n"),
    "s.yml",
  );
  assert.deepEqual(
    [
      ok.cases[0]?.max_tokens,
      ok.cases[0]?.stream,
      ok.cases[0]?.temperature,
      ok.cases[0]?.top_p,
      ok.cases[0]?.seed,
    ],
    [64, "both", 0, 1, 1234],
  );
  const jsonl = parseSuite(
    '{"defaults":{"max_tokens":10}}\n{"id":"b","messages":[{"role":"user","content":"x"}],"expect":[{"kind":"json_parse"}]}\n',
    "s.jsonl",
  );
  assert.equal(jsonl.cases[0]?.max_tokens, 10);
  const bad: [string, RegExp][] = [
    ["cases: []", /quality-suite s: \/cases must NOT have fewer than 1 items/],
    [
      "cases: [{id: a, messages: [{role: user, content: x}], expect: [{kind: regex, pattern: x}]}]",
      /case "a": \(the case\) must have required property 'max_tokens'/,
    ],
    [
      "cases: [{id: a, max_tokens: 5, messages: [{role: robot}], expect: [{kind: json_parse}]}]",
      /case "a": \/messages\/0\/role must be equal to one of the allowed values/,
    ],
    [
      "cases: [{id: a, max_tokens: 5, messages: [{role: user}], expect: [{kind: json_path, pointer: name, equals: 1}]}]",
      /case "a": \/expect\/0\/pointer must match pattern/,
    ],
    [
      "cases: [{id: a, max_tokens: 5, messages: [{role: user}], expect: [{kind: magic}]}]",
      /case "a": \/expect\/0\/kind must be equal to one of the allowed values: "json_parse"/,
    ],
    [
      "cases: [{id: a, max_tokens: 5, messages: [{role: user}], expect: [{kind: tool_call}]}]",
      /case "a": check tool_call needs tools in the request/,
    ],
    [
      "cases: [{id: a, max_tokens: 5, messages: [{role: user}], expect: [{kind: json_schema}]}]",
      /case "a": check json_schema needs a schema/,
    ],
    [
      "cases: [{id: a, max_tokens: 5, messages: [{role: user}], expect: [{kind: regex, pattern: '('}]}]",
      /pattern is not a valid regular expression/,
    ],
    [
      "cases: [{id: a, max_tokens: 5, messages: [{role: user}], expect: [{kind: regex, pattern: '(a)\\1'}]}]",
      /case "a": check regex: pattern is not a valid regular expression: error parsing regexp: invalid escape sequence/,
    ],
    [
      "cases: [{id: a, max_tokens: 2000000000, messages: [{role: user}], expect: [{kind: json_parse}]}]",
      /case "a": \/max_tokens must be <= 1000000/,
    ],
    [
      "cases: [{id: a, max_tokens: 5, messages: [{role: user}], expect: [{kind: json_path, pointer: /x, regex: '[a-'}]}]",
      /quality-suite s: case "a": check json_path: regex is not a valid regular expression/,
    ],
    [
      "cases: [{id: a, max_tokens: 5, messages: [{role: user}], expect: [{kind: json_schema, schema: {type: objekt}}]}]",
      /quality-suite s: case "a": check json_schema: the schema cannot be compiled/,
    ],
    [
      "cases: [{id: a, max_tokens: 5, messages: [{role: user}], expect: [{kind: json_schema, schema: {$ref: '#/nowhere'}}]}]",
      /quality-suite s: case "a": check json_schema: the schema cannot be compiled/,
    ],
    [
      "cases: [{id: a, max_tokens: 5, messages: [{role: user}], expect: [{kind: json_parse}]}, {id: a, max_tokens: 5, messages: [{role: user}], expect: [{kind: json_parse}]}]",
      /case id "a" is used twice/,
    ],
    [
      "cases: [{id: a, max_tokens: 5, temprature: 0, messages: [{role: user}], expect: [{kind: json_parse}]}]",
      /must NOT have additional properties \(temprature\)/,
    ],
  ];
  for (const [text, message] of bad) assert.throws(() => parseSuite(text, "s"), message);
});
