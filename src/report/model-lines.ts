// Lines under the metric table for the models people run now: a reasoning
// model's time to its first answer token and how much of its output is
// thinking, and the prompt tokens each server's usage says its cache held
// (hosted endpoints have no /metrics). Medians over each arm's trials.

import { median } from "simple-statistics";
import type { Arm } from "../common/arms.ts";
import { compact as num, percent } from "../common/format.ts";
import { percentileLabel } from "../common/percentiles.ts";
import type { ConfigDescription, GateResults } from "../results/model.ts";

/** A share gap between the arms this large (points) is flagged. */
const SHARE_GAP = 0.1;

function medianOf(
  r: GateResults,
  arm: Arm,
  pick: (t: GateResults["trials"][number]["report"]) => number | null | undefined,
) {
  const xs = r.trials
    .filter((t) => t.arm === arm)
    .map((t) => pick(t.report))
    .filter((v): v is number => typeof v === "number");
  return xs.length === 0 ? null : median(xs);
}

/** Time to the first answer token beside TTFT, and the reasoning share of the output. */
export function reasoningLine(r: GateResults, config: ConfigDescription): string[] {
  if (!r.trials.some((t) => t.report.reasoning)) return [];
  const p = config.percentile;
  const ttfa = (arm: Arm) => medianOf(r, arm, (t) => t.reasoning?.ttfa_ms[p]);
  const ttft = (arm: Arm) => medianOf(r, arm, (t) => t.metrics.ttft_ms[p]);
  // Tokens when the servers report them, else chunks.
  const share = (arm: Arm) =>
    medianOf(r, arm, (t) => {
      const x = t.reasoning;
      if (!x) return 0;
      const chunks = x.reasoning_chunks + x.answer_chunks;
      return x.reasoning_token_share ?? (chunks > 0 ? x.reasoning_chunks / chunks : null);
    });
  const label = percentileLabel(p);
  const [sb, sc] = [share("baseline"), share("candidate")];
  const shares =
    sb === null || sc === null
      ? ""
      : ` · reasoning ${percent(sb, 0)} vs ${percent(sc, 0)} of the output`;
  const flag =
    sb !== null && sc !== null && Math.abs(sc - sb) >= SHARE_GAP
      ? ` — ⚠️ the candidate reasons ${sc > sb ? "more" : "less"}: its answers start ${sc > sb ? "later" : "earlier"} for a reason TTFT does not show`
      : "";
  return [
    `reasoning: ${label} time to the first answer token ${num(ttfa("baseline"))} ms (baseline) vs ${num(ttfa("candidate"))} ms (candidate), beside ${label} TTFT ${num(ttft("baseline"))} vs ${num(ttft("candidate"))} ms${shares}${flag}`,
  ];
}

/** Prompt tokens the servers' usage says their caches held, when no /metrics said so. */
export function cachedUsageLine(r: GateResults): string[] {
  if (r.server_view?.baseline.prefix_cache_hit_rate != null) return [];
  const share = (arm: Arm) => medianOf(r, arm, (t) => t.tokens.prompt.cached?.share);
  const [b, c] = [share("baseline"), share("candidate")];
  if (b === null && c === null) return [];
  const shown = (x: number | null) => (x === null ? "not reported" : percent(x));
  const flag =
    b !== null && c !== null && Math.abs(c - b) >= SHARE_GAP
      ? " — ⚠️ the arms did not meet the same cache: part of the TTFT change may be the cache"
      : "";
  return [
    `prompt tokens served from the cache (usage): ${shown(b)} (baseline), ${shown(c)} (candidate)${flag}`,
  ];
}
