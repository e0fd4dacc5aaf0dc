// Answers cut short by load, decided: per arm, the share of the replayed
// requests whose idle answer was materially longer than the one given under
// load, less the share whose two idle answers differed anyway (the floor:
// batch nondeterminism); the candidate fails when its net share exceeds the
// baseline's by more than the tolerance and Fisher's exact test on the
// counts shows it — decided on evidence of a regression, as the quality
// checks are.

import type { Arm } from "../common/arms.ts";
import { percent, signedPoints } from "../common/format.ts";
import { fisherOneSided } from "../compare/fisher.ts";
import { classOf, materiallyLonger, type ReplayClass, type ReplayRecord } from "./replay.ts";

export interface TruncationRule {
  /** The tolerated increase of the net share cut short, in points: 0.05 = 5 points. */
  maxIncrease: number;
  failAlpha: number;
}

export interface ArmTruncation {
  /** Replayed with both idle answers (a failed replay is left out). */
  replayed: number;
  truncated: number;
  /** Of the replayed, those whose two idle answers differed materially. */
  differs_at_idle: number;
  failed: number;
  /**
   * truncated ÷ replayed; the floor: half of differs_at_idle ÷ replayed — two
   * idle answers that differ make either one the longer, and nondeterminism
   * alone makes an answer under load look cut half as often as two answers
   * differ; net: the first less the floor (≥ 0).
   */
  rate: number;
  floor: number;
  net: number;
}

export type TruncationVerdict = "pass" | "fail" | "inconclusive";

/** A replayed request with how it reads (the replay's own outcome class). */
export type ClassedRecord = ReplayRecord & { class: ReplayClass };

export interface TruncationReport {
  records: Record<Arm, ClassedRecord[]>;
  arms: Record<Arm, ArmTruncation>;
  rule: TruncationRule;
  /** The candidate's net share less the baseline's, in points. */
  increase: number;
  /** Fisher's one-sided p that the candidate's truncated count is this high by chance. */
  p_value: number;
  verdict: TruncationVerdict;
  reason: string;
}

function armOf(records: readonly ReplayRecord[]): ArmTruncation {
  const replayed = records.filter((r) => classOf(r) !== "replay_failed");
  const truncated = replayed.filter((r) => classOf(r) === "truncated_under_load").length;
  const differs = replayed.filter((r) => {
    const [a, b] = [r.idle_tokens ?? 0, r.idle2_tokens ?? 0];
    return materiallyLonger(Math.max(a, b), Math.min(a, b));
  }).length;
  const n = replayed.length;
  const rate = n > 0 ? truncated / n : 0;
  const floor = n > 0 ? differs / (2 * n) : 0;
  return {
    replayed: n,
    truncated,
    differs_at_idle: differs,
    failed: records.length - n,
    rate,
    floor,
    net: Math.max(0, rate - floor),
  };
}

const said = (a: ArmTruncation) =>
  `${a.truncated} of ${a.replayed} (${percent(a.rate)}; idle-vs-idle floor ${percent(a.floor)})`;

export function compareTruncation(
  records: Record<Arm, ReplayRecord[]>,
  rule: TruncationRule,
): TruncationReport {
  const arms = { baseline: armOf(records.baseline), candidate: armOf(records.candidate) };
  const classed = (rs: readonly ReplayRecord[]): ClassedRecord[] =>
    rs.map((r) => ({
      load_tokens: r.load_tokens,
      idle_tokens: r.idle_tokens,
      idle2_tokens: r.idle2_tokens,
      failed: r.failed,
      class: classOf(r),
    }));
  const [b, c] = [arms.baseline, arms.candidate];
  const increase = c.net - b.net;
  const p =
    b.replayed > 0 && c.replayed > 0
      ? fisherOneSided(b.truncated, b.replayed, c.truncated, c.replayed)
      : 1;
  const base = {
    records: { baseline: classed(records.baseline), candidate: classed(records.candidate) },
    arms,
    rule,
    increase,
    p_value: p,
  };
  if (b.replayed === 0 || c.replayed === 0)
    return {
      ...base,
      verdict: "inconclusive",
      reason: `nothing to compare: ${b.replayed} requests replayed on the baseline, ${c.replayed} on the candidate (none ended stop under load, or every replay failed)`,
    };
  const words = `cut short under load: the candidate ${said(c)}, the baseline ${said(b)}`;
  if (increase > rule.maxIncrease && p < rule.failAlpha)
    return {
      ...base,
      verdict: "fail",
      reason: `${words} — ${signedPoints(increase)}, beyond ${signedPoints(rule.maxIncrease)} (Fisher p = ${p.toPrecision(2)})`,
    };
  return {
    ...base,
    verdict: "pass",
    reason: `${words} — ${signedPoints(increase)}, ${increase > rule.maxIncrease ? `not shown beyond chance (Fisher p = ${p.toPrecision(2)})` : `within ${signedPoints(rule.maxIncrease)}`}`,
  };
}
