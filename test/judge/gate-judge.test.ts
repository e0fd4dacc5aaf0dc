// The judge end to end against three mock servers on 127.0.0.1 — the two
// arms answering the built-in open-ended items, and a mock judge deciding by
// its hidden rule with the knobs real judges get wrong — and the gate's
// verdict and comment. The latency trials are stand-ins here.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { RawSettings } from "../../src/config/settings.ts";
import { outcomeOf } from "../../src/judge/compare.ts";
import { renderMarkdown } from "../../src/report/markdown.ts";
import { mockPairGate } from "../helpers/gate.ts";
import { LOAD_TEST } from "../helpers/mock.ts";

async function judgeGate(
  knobs: {
    candidate?: Record<string, unknown>;
    baseline?: Record<string, unknown>;
    judge?: Record<string, unknown>;
  },
  settings: RawSettings = {},
) {
  const { run, results } = await mockPairGate(
    { baseline: knobs.baseline ?? {}, candidate: knobs.candidate ?? {}, judge: knobs.judge ?? {} },
    {
      "quality-suite": "none",
      contract: "none",
      accuracy: "none",
      "judge-items": "100",
      "judge-concurrency": "16",
      ...settings,
    },
  );
  return { run, judge: run.judge, markdown: renderMarkdown(results, "default") };
}

/** Two servers of one build: now and then an answer is reworded (equal quality). */
const VARIED = { judgeVariation: 0.4 };

test(
  "a candidate whose answers are worse on 15 % of the items fails, naming the judge",
  LOAD_TEST,
  async () => {
    const { run, judge, markdown } = await judgeGate({ candidate: { judgeWorse: 0.15 } });
    assert.equal(judge?.verdict, "fail", judge?.reasons.join("; "));
    assert.equal(run.verdict, "fail");
    assert.ok(judge?.calibration?.trusted, "the unbiased mock judge is trusted");
    const o = judge?.overall;
    assert.ok((o?.baseline_wins ?? 0) >= 15, `${o?.baseline_wins} losses`);
    assert.equal(o?.candidate_wins, 0);
    assert.match(
      markdown,
      /^### ❌ llm-perf-gate: \*\*fail\*\* — the judge prefers the baseline's open-ended answers: a net loss of \d+\.\d points/m,
    );
    assert.match(markdown, /<summary>Judge: items the candidate lost \(\d+\)<\/summary>/);
    assert.match(
      markdown,
      /The judge's calibration \(80 pairs whose better answer is known, both orders\): agreement 100 %/,
    );
  },
);

test("an A/A whose answers vary now and then passes, its floor level", LOAD_TEST, async () => {
  const { run, judge, markdown } = await judgeGate({
    baseline: VARIED,
    candidate: { ...VARIED, seed: 2 },
  });
  assert.equal(judge?.verdict, "pass", judge?.reasons.join("; "));
  assert.equal(run.verdict, "pass");
  const differing = judge?.items.filter((i) => i.settled === null).length ?? 0;
  assert.ok(differing > 10, `${differing} items whose answers differ were judged`);
  assert.equal(judge?.floor?.items, 25);
  assert.match(
    markdown,
    /\*\*Open-ended answers \(judge\)\*\* ✅ no net loss beyond the tolerance/,
  );
  assert.match(markdown, /The judge's own A\/A: the baseline's re-run of 25 items/);
});

test(
  "a judge with a 30-point position bias gives the verdict an unbiased one gives: the swap cancels it",
  LOAD_TEST,
  async () => {
    const arms = { baseline: VARIED, candidate: { ...VARIED, seed: 2 } };
    const unbiased = await judgeGate(arms);
    const biased = await judgeGate({ ...arms, judge: { judgePositionBias: 0.3 } });
    assert.equal(unbiased.judge?.verdict, "pass");
    assert.equal(biased.judge?.verdict, unbiased.judge?.verdict);
    assert.ok(biased.judge?.calibration?.trusted, biased.judge?.calibration?.reasons.join("; "));
    // The bias is there: in the first order alone (the baseline shown as A) the candidate loses close calls.
    const items = biased.judge?.items ?? [];
    const firstOrderLosses = items.filter((i) => i.orders[0]?.winner === "A").length;
    assert.ok(firstOrderLosses >= 5, `${firstOrderLosses} first-order wins for A`);
    assert.ok(firstOrderLosses / items.length > 0.05, "one order alone would fail the margin");
    assert.equal(items.filter((i) => outcomeOf(i) === "baseline").length, 0, "both orders: none");
  },
);

test(
  "a judge that prefers padded answers or follows an injected instruction is flagged and cannot fail the gate",
  LOAD_TEST,
  async () => {
    for (const [knobs, finding] of [
      [
        { judgeLengthBias: 0.5 },
        /the judge preferred the padded answer \(filler, no more content\) in 100 %/,
      ],
      [
        { judgeFollowsInjection: true },
        /the judge preferred the answer carrying an instruction to the judge in 100 %/,
      ],
    ] as const) {
      const { run, judge, markdown } = await judgeGate({
        candidate: { judgeWorse: 0.3 },
        judge: knobs,
      });
      assert.equal(judge?.calibration?.trusted, false);
      assert.equal(judge?.verdict, "inconclusive");
      assert.notEqual(run.verdict, "fail");
      assert.match(judge?.reasons.join("; ") ?? "", finding);
      assert.equal(judge?.items.length, 0, "an untrusted judge costs the arms nothing");
      assert.match(markdown, /\*\*not trusted\*\*/);
    }
  },
);

test(
  "a judge that answers in prose is asked once more, then unjudged, counted and named; one that always does is not trusted",
  LOAD_TEST,
  async () => {
    const arms = { baseline: VARIED, candidate: { ...VARIED, seed: 2 } };
    // About 3 replies in 10 in prose: 1 order in 11 still prose after its reminder.
    const { judge, markdown } = await judgeGate(
      { ...arms, judge: { judgeProse: 0.3 } },
      { "judge-floor": "0" },
    );
    assert.ok(judge?.calibration?.trusted, judge?.calibration?.reasons.join("; "));
    const orders = [
      ...(judge?.items ?? []).flatMap((i) => i.orders),
      ...(judge?.pairs ?? []).flatMap((p) => p.orders),
    ];
    const unread = orders.filter((o) => o.winner === null);
    assert.ok(
      unread.length > 0 && unread.length < orders.length / 4,
      `${unread.length} of ${orders.length} unread`,
    );
    assert.ok(
      unread.every((o) =>
        /^the judge's reply was not the JSON asked for: “I would say/.test(o.error ?? ""),
      ),
    );
    // Each order once, each reply in prose once more with the reminder.
    assert.ok((judge?.calls ?? 0) > orders.length && (judge?.calls ?? 0) < 2 * orders.length);
    const unjudged = judge?.overall.unjudged ?? 0;
    assert.equal(
      unjudged,
      (judge?.items ?? []).filter((i) => i.orders.some((o) => o.winner === null)).length,
    );
    assert.ok(unjudged > 0);
    assert.match(
      markdown,
      new RegExp(
        `The judge gave no readable verdict on ${unjudged} items? \\(\`the judge's reply was not the JSON asked for`,
      ),
    );

    const always = await judgeGate({ ...arms, judge: { judgeProse: 1 } });
    assert.equal(always.judge?.verdict, "inconclusive");
    assert.equal(always.judge?.items.length, 0, "the arms are not asked");
    assert.equal(always.judge?.calls, 2 * 2 * 80, "every calibration order asked twice");
    assert.match(
      always.judge?.reasons[0] ?? "",
      /^the judge gave a readable verdict on only 0 of 160 calibration judgements \(the first unread: `the judge's reply was not the JSON asked for/,
    );
  },
);

test(
  "judge-calibration none: one pair first, then the verdict shown and never gated",
  LOAD_TEST,
  async () => {
    const { run, judge, markdown } = await judgeGate(
      { candidate: { judgeWorse: 0.3 } },
      { "judge-calibration": "none" },
    );
    assert.equal(judge?.gated, false);
    assert.equal(judge?.pairs.length, 1, "one pair asked before the arms");
    assert.ok((judge?.overall.baseline_wins ?? 0) > 20, "the losses are shown");
    assert.equal(run.verdict, "pass", "an uncalibrated judge's loss does not fail the gate");
    assert.match(
      markdown,
      /\*\*Open-ended answers \(judge\)\*\* ℹ️ not gated — the judge was not calibrated/,
    );
    const prose = await judgeGate({}, { "judge-calibration": "none" }).then(() =>
      judgeGate({ judge: { judgeProse: 1 } }, { "judge-calibration": "none" }),
    );
    assert.equal(
      prose.judge?.items.length,
      0,
      "a judge that cannot be read on its first pair costs the arms nothing",
    );
    assert.match(
      prose.judge?.reasons[0] ?? "",
      /^the judge could not be asked: `the judge's reply was not the JSON asked for/,
    );
  },
);

test(
  "a results file from another job is re-decided from its judgements; its page draws the outcomes",
  LOAD_TEST,
  async () => {
    const { results } = await mockPairGate(
      { baseline: {}, candidate: { judgeWorse: 0.2 }, judge: {} },
      {
        "quality-suite": "none",
        contract: "none",
        accuracy: "none",
        "judge-items": "100",
        "judge-concurrency": "16",
      },
    );
    assert.equal(results.judge?.verdict, "fail");
    const { trustResults } = await import("../../src/results/trust.ts");
    const { headlineFor } = await import("../../src/report/headline.ts");
    const file = JSON.parse(JSON.stringify(results));
    file.judge.verdict = "pass";
    file.verdict = "pass";
    for (const i of file.judge.items) i.outcome = "tie";
    const again = trustResults(file, "results.json", headlineFor);
    assert.equal(
      again.judge?.verdict,
      "fail",
      "recomputed from the orders, not the file's outcomes",
    );
    assert.equal(again.verdict, "fail");
    assert.ok(
      again.warnings.some((w) =>
        /the judge verdict was pass; recomputed from its evidence: fail/.test(w),
      ),
    );
    const forged = JSON.parse(JSON.stringify(results));
    forged.judge.items[0].orders.push(...forged.judge.items[0].orders, {
      winner: "A",
      reason: "",
      error: null,
    });
    assert.throws(
      () => trustResults(forged, "results.json", headlineFor),
      /\/judge\/items\/0\/orders must NOT have more than 2 items/,
    );
    const { gatePage } = await import("../../src/page/gate-page.ts");
    const page = await gatePage(results, null);
    assert.match(page, /<section id="judge-outcomes">[\s\S]*<svg/);
    assert.match(page, /candidate lost/);
  },
);

test(
  "a judge that cannot be reached: the suite stays open naming why, and the arms are never asked",
  LOAD_TEST,
  async () => {
    const { freePort } = await import("../helpers/servers.ts");
    const port = await freePort();
    let asked = 0;
    const { run, results } = await mockPairGate(
      {},
      {
        "quality-suite": "none",
        contract: "none",
        accuracy: "none",
        "judge-url": `http://127.0.0.1:${port}/v1`,
        "judge-model": "j",
        "judge-items": "20",
      },
      {
        runItems: async () => {
          asked++;
          throw new Error("the arms must not be asked");
        },
      },
    );
    assert.equal(asked, 0);
    assert.equal(run.judge?.verdict, "inconclusive");
    assert.equal(run.verdict, "inconclusive");
    assert.match(
      run.judge?.reasons[0] ?? "",
      /^the judge gave a readable verdict on only 0 of 160 calibration judgements \(the first unread: .*(ECONNREFUSED|connect)/,
    );
    assert.match(
      renderMarkdown(results, "default"),
      /open-ended answers: the judge gave a readable verdict on only 0/,
    );
  },
);

test(
  "in looks: a candidate worse on 15 % of the items fails at the first look, the rest never asked",
  LOAD_TEST,
  async () => {
    const { judge, markdown } = await judgeGate(
      { candidate: { judgeWorse: 0.15 } },
      { "judge-items": "400", "judge-first-look": "100" },
    );
    assert.equal(judge?.verdict, "fail", judge?.reasons.join("; "));
    assert.deepEqual(judge?.looks, { items: [100, 200, 400], at: 0, futile: null });
    assert.equal(judge?.items.length, 100, "only the first look's items answered and judged");
    // Every family in the look: a spread of the suite.
    assert.equal(new Set(judge?.items.map((i) => i.family)).size, 4);
    assert.ok(
      (judge?.calls ?? 0) < (judge?.planned_calls ?? 0),
      "fewer calls than the plan's most",
    );
    assert.match(markdown, /100 items on each arm, .*decided at look 1 of 3 \(up to 400 items\)/);
  },
);
