// Teacher-forced scoring reads vLLM's prompt_logprobs: the last entries, one
// per token of the given answer, each the candidate's distribution there —
// and refuses them when they do not line up with the answer's tokens.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { TokenLogprobs } from "../../src/accuracy/divergence.ts";
import { replyTokens, scoredTokens, scoringBody } from "../../src/accuracy/forced.ts";
import type { AccuracyItem } from "../../src/accuracy/items.ts";
import type { Target } from "../../src/openai/target.ts";

const baseline: TokenLogprobs[] = ["The", " answer", " is", " 7"].map((token) => ({
  token,
  logprob: -0.1,
  top: [{ token, logprob: -0.1 }],
}));

const entry = (token: string, logprob: number, other = " x") => ({
  "11": { logprob, rank: 1, decoded_token: token },
  "12": { logprob: -3, rank: 2, decoded_token: other },
});

test("the last prompt positions, one per answer token, best first", () => {
  const body = {
    prompt_logprobs: [null, entry("Q", -1), ...baseline.map((b) => entry(b.token, -0.2))],
  };
  const tokens = scoredTokens(body, baseline);
  assert.equal(tokens?.length, 4);
  assert.deepEqual(tokens?.[3], {
    token: " 7",
    logprob: -0.2,
    top: [
      { token: " 7", logprob: -0.2 },
      { token: " x", logprob: -3 },
    ],
  });
});

test("no prompt_logprobs, too few, or tokens that do not line up: not scored", () => {
  assert.equal(scoredTokens({ choices: [] }, baseline), null);
  assert.equal(scoredTokens({ prompt_logprobs: [entry(" 7", -0.1)] }, baseline), null);
  const shifted = { prompt_logprobs: ["A", "B", "C", "D"].map((t) => entry(t, -0.1)) };
  assert.equal(scoredTokens(shifted, baseline), null);
});

test("the request: the baseline's answer as the assistant's, continued, one token, prompt_logprobs", () => {
  const target: Target = {
    baseUrl: "http://127.0.0.1:1/v1",
    model: "m",
    endpoint: "chat",
    apiKey: undefined,
    headers: {},
    extraBody: {},
    includeUsage: false,
    ignoreEos: false,
    temperature: 0,
  };
  const item: AccuracyItem = {
    id: "i",
    family: "f",
    messages: [{ role: "user", content: "Q?" }],
    answer: 7,
    match: { kind: "numeric", tolerance: 0 },
    maxTokens: 64,
  };
  const body = JSON.parse(
    scoringBody(
      target,
      { item, reply: "The answer is 7", tokens: baseline },
      {
        concurrency: 1,
        timeoutS: 10,
        topLogprobs: 5,
        seed: 3,
        vllmSampling: false,
      },
    ),
  );
  assert.deepEqual(body.messages.at(-1), { role: "assistant", content: "The answer is 7" });
  assert.equal(body.max_tokens, 1);
  assert.equal(body.prompt_logprobs, 5);
  assert.equal(body.continue_final_message, true);
  assert.equal(body.add_generation_prompt, false);
  assert.equal(body.temperature, 0);
  assert.equal(body.seed, 3);
});

test("the tokens scored are those the reply's text holds: a listed end-of-sequence token is left out", () => {
  const withEos = [...baseline, { token: "", logprob: -0.01, top: [] }];
  assert.deepEqual(
    replyTokens(withEos, "The answer is 7").map((t) => t.token),
    ["The", " answer", " is", " 7"],
  );
  assert.equal(replyTokens(baseline, "Another text").length, 0);
});
