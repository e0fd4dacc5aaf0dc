// The verdict in one sentence, made from the run's structured findings.

import { signedPercent } from "../common/format.ts";
import { blocksVerdict } from "../common/guard.ts";
import type { BudgetCheck } from "../compare/budgets.ts";
import type { MetricComparison } from "../compare/metric.ts";
import type { GateRun } from "../gate/gate-run.ts";
import { budgetPhrase } from "./budgets.ts";
import { capacityPhrase } from "./capacity-markdown.ts";
import { reliabilitySentence } from "./failures.ts";
import { type SuiteView, suiteHeadlines } from "./suites.ts";

/** A metric's limit as a change: "+10.0 %" for a latency, "−5.0 %" for goodput. */
export const limitText = (c: MetricComparison): string =>
  signedPercent(c.higher_is_worse ? c.tolerance : -c.tolerance);

function describe(c: MetricComparison): string {
  return `${c.label} ${signedPercent(c.change)} (limit ${limitText(c)})`;
}

/** An open metric with its interval: "p95 TTFT +4.1 % (−8.0 % … +16.2 %, limit +10.0 %)". */
function describeOpen(c: MetricComparison): string {
  const interval = `${signedPercent(c.change_lower)} … ${signedPercent(c.change_upper)}`;
  return `${c.label} ${signedPercent(c.change)} (${interval}, limit ${limitText(c)})`;
}

export function headlineFor(
  run: Pick<
    GateRun,
    | "verdict"
    | "guards"
    | "comparisons"
    | "reliability"
    | "trials"
    | "cancelled_by"
    | "capacity"
    | "budgets"
  > &
    SuiteView,
): string {
  const { guards, comparisons, reliability } = run;
  const budgets = (v: BudgetCheck["verdict"]) =>
    run.budgets.filter((b) => b.verdict === v).map(budgetPhrase);
  const noVerdict = () => {
    const more = guards.length > 1 ? ` (and ${guards.length - 1} more)` : "";
    return `no performance verdict: ${guards[0]?.message ?? "unknown reason"}${more}`;
  };
  // Inconclusive with a shard guard: a shard's own file, a part of a run the merge decides.
  const shard = run.verdict === "inconclusive" && guards.find((g) => g.code === "shard");
  if (shard) return shard.message;
  switch (run.verdict) {
    case "error":
      // A bad setting says so itself; nothing was measured.
      if (["configuration", "results_file", "unfinished"].includes(guards[0]?.code ?? ""))
        return guards[0]?.message ?? "";
      return noVerdict();
    case "fail": {
      const failed = reliability?.verdict === "regressed" ? [reliabilitySentence(reliability)] : [];
      if (run.capacity?.comparison.verdict === "regressed")
        failed.unshift(capacityPhrase(run.capacity));
      const metrics = comparisons.filter((c) => c.verdict === "regressed").map(describe);
      const checks = suiteHeadlines(run, "failed");
      // A quality regression still fails a run whose performance could not be measured.
      const also = guards.some(blocksVerdict) ? [noVerdict()] : [];
      const performance = [...failed, ...metrics].join(", ");
      const missed = budgets("missed");
      return [
        performance ? `regressed: ${performance}` : "",
        missed.length > 0 ? `over budget: ${missed.join(", ")}` : "",
        ...checks,
        ...also,
      ]
        .filter(Boolean)
        .join("; ");
    }
    case "inconclusive": {
      if (run.capacity?.stopped_by)
        return `the capacity gate stopped early: ${run.capacity.stopped_by} — what was measured is below`;
      const open = comparisons.filter((c) => c.verdict === "inconclusive").map(describeOpen);
      if (reliability?.verdict === "inconclusive")
        open.unshift(`${reliabilitySentence(reliability)}`);
      const unclear = budgets("unclear");
      const within =
        open.length > 0
          ? `neither shown within the tolerance nor beyond it: ${open.join(", ")}`
          : "";
      const budget =
        unclear.length > 0
          ? `neither shown within the budget nor beyond it: ${unclear.join(", ")}`
          : "";
      return [within, budget, ...suiteHeadlines(run, "open")].filter(Boolean).join("; ");
    }
    case "pass":
      return run.capacity
        ? `${capacityPhrase(run.capacity)}; at the baseline's capacity every gated metric is shown within its tolerance`
        : `every gated metric is shown within its tolerance${run.budgets.length > 0 ? " and the candidate within every budget" : ""} (its bound, not only its estimate)`;
    case "cancelled": {
      const pairs = new Set(run.trials.map((t) => t.pair)).size;
      const by = run.cancelled_by ? ` (${run.cancelled_by})` : "";
      return `the job was cancelled${by} after ${pairs === 1 ? "1 pair" : `${pairs} pairs`} of trials: no verdict`;
    }
  }
}
