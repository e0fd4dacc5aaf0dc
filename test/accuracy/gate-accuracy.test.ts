// Accuracy end to end against two mock servers on 127.0.0.1: the built-in
// suite over real requests, the mock's knobs (accuracy, flips that keep it,
// batch nondeterminism, quantization noise on the logits), and the gate's
// verdict and comment. The latency trials are stand-ins here.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { RawSettings } from "../../src/config/settings.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { mockPairGate, NO_CHECKS } from "../helpers/gate.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

async function accuracyGate(
  candidate: Record<string, unknown>,
  baseline: Record<string, unknown> = {},
  settings: RawSettings = {},
) {
  const { run, results } = await mockPairGate(
    { baseline, candidate },
    { "quality-suite": "none", contract: "none", "accuracy-concurrency": "32", ...settings },
  );
  return { run, accuracy: run.accuracy, markdown: renderMarkdown(results, "default") };
}

test(
  "an A/A with batch nondeterminism passes, its flips at the baseline's own floor",
  LOAD_TEST,
  async () => {
    // Two servers of one build: their batches (the mock's per-request draws) differ.
    const noisy = { accuracyNondeterminism: 0.04 };
    // One look of 1,200 items: enough re-run items (300) for the floor to show flips too.
    const { run, accuracy, markdown } = await accuracyGate({ ...noisy, seed: 2 }, noisy, {
      "max-flip-rate": "5%",
      "accuracy-items": "1200",
      "accuracy-first-look": "1200",
    });
    assert.equal(accuracy?.verdict, "pass", accuracy?.reasons.join("; "));
    assert.equal(run.verdict, "pass");
    const o = accuracy?.overall;
    const flips = (o?.right_to_wrong ?? 0) + (o?.wrong_to_right ?? 0);
    assert.ok(
      flips > 0 && (accuracy?.floor?.flips ?? 0) > 0,
      "both the candidate and the re-run flip some",
    );
    assert.equal(accuracy?.flip_rule?.verdict, "pass", "no flips beyond the floor's");
    assert.match(markdown, /\*\*Accuracy\*\* ✅ no drop beyond the tolerance/);
    assert.match(markdown, /The baseline's own re-run of 300 items flipped \d+/);
  },
);

test(
  "a candidate 5 points less accurate fails the gate at the first look (300 items), naming accuracy in the headline",
  LOAD_TEST,
  async () => {
    const { run, accuracy, markdown } = await accuracyGate({ accuracy: 0.75 });
    assert.equal(accuracy?.verdict, "fail");
    assert.equal(run.verdict, "fail");
    assert.deepEqual(accuracy?.looks, { items: [300, 600, 1200, 2400, 4800], at: 0, futile: null });
    assert.equal(
      accuracy?.overall.items,
      300,
      "a quarter of the old suite's requests, a sixteenth of its most",
    );
    const r2w = accuracy?.overall.right_to_wrong ?? 0;
    assert.ok(r2w >= 9 && r2w <= 25, `${r2w} flips right → wrong at about 5 % of 300`);
    assert.match(
      markdown,
      new RegExp(
        `^### ❌ llm-perf-gate: \\*\\*fail\\*\\* — the candidate answers \\d\\.\\d points fewer items right \\(.*\\), ${r2w} flips right → wrong vs 0 in the baseline's own re-run`,
        "m",
      ),
    );
    assert.match(
      markdown,
      /300 items on each arm, 75 of them again on the baseline, decided at look 1 of 5 \(up to 4,800 items\)/,
    );
    assert.match(
      markdown,
      new RegExp(
        `<summary>Accuracy: items right on the baseline, wrong on the candidate \\(${r2w}\\)</summary>`,
      ),
    );
  },
);

test(
  "a candidate 1 point less accurate with 2 % flips passes, at the look its evidence needs",
  LOAD_TEST,
  async () => {
    const { run, accuracy } = await accuracyGate({ accuracy: 0.79, accuracyFlips: 0.01 });
    const o = accuracy?.overall;
    const n = o?.items ?? 0;
    assert.ok(n > 300 && n < 4800, `${n} items: past the first look, short of the most`);
    const drop = o?.drop.estimate ?? 0;
    const flips = ((o?.right_to_wrong ?? 0) + (o?.wrong_to_right ?? 0)) / n;
    assert.ok(
      Math.abs(drop - 0.01) <= 0.003 && Math.abs(flips - 0.02) <= 0.005,
      `${drop} ${flips}`,
    );
    assert.equal(accuracy?.verdict, "pass", JSON.stringify(o?.drop));
    assert.equal(run.verdict, "pass");
  },
);

test(
  "10 % flips at the same accuracy pass accuracy and show the flips beyond the floor",
  LOAD_TEST,
  async () => {
    const { accuracy, markdown } = await accuracyGate({ accuracyFlips: 0.1 });
    assert.equal(accuracy?.verdict, "pass");
    const o = accuracy?.overall;
    const n = o?.items ?? 0;
    // Exact over each 1,200-item block of the mock: 5 % each way.
    assert.ok(n >= 1200, `${n} items: 10 % flips take more than the first looks to show no drop`);
    for (const x of [o?.right_to_wrong ?? 0, o?.wrong_to_right ?? 0])
      assert.ok(Math.abs(x / n - 0.05) <= 0.01, `${x} of ${n}`);
    assert.equal(accuracy?.floor?.flips, 0);
    assert.match(
      markdown,
      new RegExp(
        `The candidate flipped ${(o?.right_to_wrong ?? 0) + (o?.wrong_to_right ?? 0)} of ${n} answers \\(\\d+\\.\\d %\\):.* The baseline's own re-run of ${n / 4} items flipped 0 \\(0\\.0 %`,
      ),
    );
  },
);

test(
  "more quantization noise: a larger KL divergence and an earlier first difference",
  LOAD_TEST,
  async () => {
    const settings = { "accuracy-items": "300", "accuracy-floor": "0" };
    const low = (await accuracyGate({ quantNoise: 0.5 }, {}, settings)).accuracy?.overall;
    const high = (await accuracyGate({ quantNoise: 2 }, {}, settings)).accuracy?.overall;
    assert.ok(low?.kld !== null && high?.kld !== null);
    assert.ok(
      (low?.kld ?? 0) > 0 && (high?.kld ?? 0) > 4 * (low?.kld ?? 0),
      `${low?.kld} ${high?.kld}`,
    );
    assert.ok((high?.diverged ?? 0) > (low?.diverged ?? 0));
    assert.ok(
      (high?.first_divergence ?? 99) < (low?.first_divergence ?? 0),
      `${high?.first_divergence} ${low?.first_divergence}`,
    );
    assert.ok((high?.same_top ?? 1) < (low?.same_top ?? 0));
    assert.equal(high?.right_to_wrong, 0, "the noise changes the wording, not the answers");
    // Teacher-forced over the baseline's whole answer, where the answers part: more noise, more divergence.
    assert.ok(
      (low?.kld_forced ?? 0) > 0 && (high?.kld_forced ?? 0) > 4 * (low?.kld_forced ?? 0),
      `${low?.kld_forced} ${high?.kld_forced}`,
    );
  },
);

test(
  "a candidate that scores no given text: the divergence stops where the answers part, and says so",
  LOAD_TEST,
  async () => {
    const settings = { "accuracy-items": "120", "accuracy-floor": "0" };
    const { accuracy, markdown } = await accuracyGate(
      { quantNoise: 2, promptLogprobs: false },
      {},
      settings,
    );
    assert.equal(accuracy?.scoring?.supported, false);
    assert.equal(accuracy?.overall.kld_forced, null);
    assert.ok((accuracy?.overall.kld ?? 0) > 0);
    assert.match(markdown, /The candidate does not score given text \(vLLM's `prompt_logprobs`\)/);
    assert.doesNotMatch(markdown, /KLD, the baseline's whole answer/);
  },
);

test(
  "an A/A decides accuracy at the first look: 300 items on each arm, a sixteenth of the most",
  LOAD_TEST,
  async () => {
    const lines: string[] = [];
    const { run, results } = await mockPairGate(
      {},
      { "quality-suite": "none", contract: "none", "accuracy-concurrency": "32" },
      {
        log: (l) => lines.push(l),
        // The stand-in preflight, with a time per token measured.
        checks: {
          ...NO_CHECKS,
          preflight: async (arm, target, timeoutS) => ({
            ...(await NO_CHECKS.preflight(arm, target, timeoutS)),
            tpot_ms: 2,
          }),
        },
      },
    );
    assert.equal(run.accuracy?.verdict, "pass");
    assert.deepEqual(run.accuracy?.looks, {
      items: [300, 600, 1200, 2400, 4800],
      at: 0,
      futile: null,
    });
    assert.equal(run.accuracy?.overall.items, 300);
    assert.equal(run.accuracy?.floor?.items, 75);
    // Each family in the look: a spread of the suite, never one family.
    assert.equal(new Set(run.accuracy?.answers.map((a) => a.family)).size, 6);
    assert.ok(lines.includes("accuracy: look 1 of 5: items 1–300"), lines.join("\n"));
    // The plan check said the suite's cost before its first request, and the comment says it beside what it took.
    const said = lines.findIndex((l) =>
      /^plan: accuracy: 300 items at the first look \(675 requests\), up to 4,800 \(10,800\): at most .* at the preflight's speed, 32 at a time$/.test(
        l,
      ),
    );
    assert.ok(
      said >= 0 && said < lines.indexOf("accuracy: look 1 of 5: items 1–300"),
      lines.join("\n"),
    );
    assert.deepEqual(run.cost?.suites_plan?.[0]?.requests, { first: 675, most: 10800 });
    assert.match(
      renderMarkdown(results, "default"),
      /For accuracy it predicted 675 to 10,800 requests, at most .* to .*; it took \d+ s over 300 items\./,
    );
    assert.ok(!lines.some((l) => l.startsWith("accuracy: look 2")));
    assert.match(
      renderMarkdown(results, "default"),
      /decided at look 1 of 5 \(up to 4,800 items\)/,
    );
  },
);
