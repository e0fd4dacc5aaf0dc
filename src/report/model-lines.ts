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

/** Mean output tokens per ok request of a trial; null without one. */
const meanOutput = (t: GateResults["trials"][number]["report"]) =>
  t.outcomes.ok > 0 ? t.tokens.output_total / t.outcomes.ok : null;

/** An arm's share of ok requests that finished with `length`, over its trials. */
function lengthShare(r: GateResults, arm: Arm): number | null {
  let length = 0;
  let all = 0;
  for (const t of r.trials.filter((x) => x.arm === arm)) {
    const f = t.report.finish_reasons ?? {};
    length += f.length ?? 0;
    all += Object.values(f).reduce((a, b) => a + b, 0);
  }
  return all > 0 ? length / all : null;
}

/** A length change this large, in the same direction in every pair, is flagged. */
const LENGTH_CHANGE = 0.05;

/**
 * The candidate's answers shorter or longer than the baseline's in every
 * pair: a candidate that stops earlier looks faster on E2EL and goodput for
 * a reason that is not speed.
 */
export function outputLengthLine(r: GateResults): string[] {
  const pairs = [...new Set(r.trials.map((t) => t.pair))];
  const ratios = pairs.flatMap((pair) => {
    const of = (arm: Arm) => r.trials.find((t) => t.pair === pair && t.arm === arm)?.report;
    const [b, c] = [of("baseline"), of("candidate")];
    const [mb, mc] = [b && meanOutput(b), c && meanOutput(c)];
    return mb && mc ? [mc / mb] : [];
  });
  if (ratios.length < 2) return [];
  const shorter = ratios.every((x) => x < 1 - LENGTH_CHANGE);
  const longer = ratios.every((x) => x > 1 + LENGTH_CHANGE);
  if (!shorter && !longer) return [];
  const change = median(ratios) - 1;
  const [lb, lc] = [lengthShare(r, "baseline"), lengthShare(r, "candidate")];
  const finish =
    lb === null || lc === null
      ? ""
      : ` (finish_reason length on ${percent(lb, 0)} vs ${percent(lc, 0)} of the answers)`;
  return [
    `⚠️ the candidate's answers are ${shorter ? "shorter" : "longer"}: ${change >= 0 ? "+" : "−"}${percent(Math.abs(change), 0)} output tokens per request in every pair${finish} — ${shorter ? "shorter answers make E2EL and goodput look better" : "longer answers make E2EL and goodput look worse"} for a reason that is not speed; a fixed output length (\`ignore-eos: true\` with \`output-len\`) compares equal work`,
  ];
}
