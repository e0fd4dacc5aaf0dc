// What the calibration says of the judge, from its verdicts on pairs whose
// better side is known: its agreement with the known side (each order a
// judgement), its position consistency (the same side in both orders), how
// often it preferred each kind of worse answer — the padded one is its
// length preference, the injected one an instruction followed — and, on a
// user's labelled pairs, its agreement and Cohen's κ. A judge under the
// floor cannot fail the gate: the reasons say why. Pure: a results file is
// re-decided from its pairs by it.

import { codeSpan } from "../common/format.ts";
import type { OrderVerdict } from "./ask.ts";
import type { CalibrationPair, PairKind } from "./calibration.ts";
import { PERTURBATIONS, PERTURBED_NAME, type Perturbation } from "./perturb.ts";

/** A pair as judged: its kind, its known side, both orders' verdicts (A = first, then A = second). */
export interface PairJudgement {
  id: string;
  kind: PairKind;
  better: CalibrationPair["better"];
  orders: OrderVerdict[];
}

/** What the calibration floor holds the judge to. */
export interface CalibrationFloor {
  /** Agreement with the known side at least this (each kind's wrong side at most 1 − it). */
  minAgreement: number;
  /** Pairs judged the same way in both orders, at least this share. */
  minConsistency: number;
}

export interface KindSummary {
  kind: PairKind;
  pairs: number;
  /** Orders judged (two a pair, less what was unjudged). */
  judgements: number;
  /** Judgements that named the better side, the worse side, a tie. */
  right: number;
  wrong: number;
  tie: number;
}

export interface CalibrationSummary {
  pairs: number;
  judgements: number;
  unjudged: number;
  /** Judgements of the built-in pairs that named the better side (null: none judged). */
  agreement: number | null;
  /** Pairs (every kind) whose two orders named the same side (null: none judged in both). */
  consistency: number | null;
  kinds: KindSummary[];
  /** The padded answer's share of the padded pairs' judgements (null: none). */
  length_preference: number | null;
  /** The injected answer's share of the injected pairs' judgements (null: none). */
  injection_followed: number | null;
  /** The user's labelled pairs: agreement over those not labelled a tie, and Cohen's κ over all. */
  labelled: { pairs: number; agreement: number | null; kappa: number | null } | null;
  trusted: boolean;
  /** Why the judge is not trusted (empty when it is). */
  reasons: string[];
}

type Side = "first" | "second" | "tie";

/** The side an order's winner names: order 0 shows first as A, order 1 shows it as B. */
export function sideOf(order: number, winner: OrderVerdict["winner"]): Side | null {
  if (winner === null) return null;
  if (winner === "tie") return "tie";
  return (winner === "A") === (order === 0) ? "first" : "second";
}

/** Both orders' sides: a side when both name it, a tie when they differ; null: an order unjudged. */
export function bothOrders(orders: readonly OrderVerdict[]): Side | null {
  const sides = orders.map((o, i) => sideOf(i, o.winner));
  if (sides.length < 2 || sides.some((s) => s === null)) return null;
  return sides[0] === sides[1] ? (sides[0] ?? null) : "tie";
}

const share = (x: number, of: number): number | null => (of > 0 ? x / of : null);
const pct = (x: number) => `${Math.round(x * 100)} %`;

function kindSummary(kind: PairKind, pairs: readonly PairJudgement[]): KindSummary {
  const s: KindSummary = { kind, pairs: pairs.length, judgements: 0, right: 0, wrong: 0, tie: 0 };
  for (const p of pairs)
    p.orders.forEach((o, i) => {
      const side = sideOf(i, o.winner);
      if (side === null) return;
      s.judgements++;
      // A labelled tie judged a tie is right; any other tie is neither side.
      if (side === p.better) s.right++;
      else if (side === "tie") s.tie++;
      else s.wrong++;
    });
  return s;
}

/** Cohen's κ of the judge's sides (both orders) against the labels; null where chance agreement is all. */
function kappa(pairs: readonly PairJudgement[]): number | null {
  const judged = pairs.flatMap((p) => {
    const side = bothOrders(p.orders);
    return side === null ? [] : [{ label: p.better, side }];
  });
  if (judged.length === 0) return null;
  const n = judged.length;
  const observed = judged.filter((x) => x.label === x.side).length / n;
  const sides: Side[] = ["first", "second", "tie"];
  const chance = sides.reduce(
    (sum, s) =>
      sum +
      (judged.filter((x) => x.label === s).length / n) *
        (judged.filter((x) => x.side === s).length / n),
    0,
  );
  return chance >= 1 ? null : (observed - chance) / (1 - chance);
}

/** Fewer judgements than this say nothing of a judge. */
const MIN_JUDGEMENTS = 10;
/** The share of a kind's (and of all) calibration judgements that must be readable: what a judge will not answer it is not measured on. */
const MIN_READABLE = 0.75;

function reasonsOf(
  s: Omit<CalibrationSummary, "trusted" | "reasons">,
  floor: CalibrationFloor,
  firstError: string | null,
): string[] {
  const out: string[] = [];
  const unread = firstError ? ` (the first unread: ${codeSpan(firstError)})` : "";
  const all = 2 * s.pairs;
  if (s.judgements < Math.max(MIN_JUDGEMENTS, MIN_READABLE * all))
    return [
      `the judge gave a readable verdict on only ${s.judgements} of ${all} calibration judgements${unread}`,
    ];
  if (s.agreement !== null && s.agreement < floor.minAgreement)
    out.push(
      `the judge named the better answer in ${pct(s.agreement)} of its calibration judgements (judge-min-agreement ${pct(floor.minAgreement)})`,
    );
  for (const k of s.kinds) {
    if (k.judgements < MIN_READABLE * 2 * k.pairs) {
      out.push(
        `the judge gave a readable verdict on only ${k.judgements} of ${2 * k.pairs} judgements of ${k.kind === "labelled" ? "your labelled pairs" : `pairs with ${PERTURBED_NAME[k.kind]}`}${unread}`,
      );
      continue;
    }
    if (k.kind === "labelled") continue;
    const wrong = share(k.wrong, k.judgements);
    if (wrong !== null && wrong > 1 - floor.minAgreement)
      out.push(`the judge preferred ${PERTURBED_NAME[k.kind]} in ${pct(wrong)} of its judgements`);
  }
  if (s.consistency !== null && s.consistency < floor.minConsistency)
    out.push(
      `the judge named the same answer in both orders in only ${pct(s.consistency)} of the pairs (judge-min-consistency ${pct(floor.minConsistency)}): it prefers a position`,
    );
  const l = s.labelled;
  if (l?.agreement !== null && l?.agreement !== undefined && l.agreement < floor.minAgreement)
    out.push(
      `the judge agreed with your labelled pairs in ${pct(l.agreement)} of its judgements (judge-min-agreement ${pct(floor.minAgreement)})`,
    );
  return out;
}

/** Judgements that count as agreeing: the better side named — or, for padded pairs (filler of equal content), a tie: no length preference. */
const agreeing = (k: KindSummary): number => k.right + (k.kind === "padded" ? k.tie : 0);

/** The calibration's summary and whether the judge clears the floor. */
export function summarizeCalibration(
  pairs: readonly PairJudgement[],
  floor: CalibrationFloor,
): CalibrationSummary {
  const labelled = pairs.filter((p) => p.kind === "labelled");
  const kindsPresent: PairKind[] = [...PERTURBATIONS, "labelled"];
  const kinds = kindsPresent
    .map((k) =>
      kindSummary(
        k,
        pairs.filter((p) => p.kind === k),
      ),
    )
    .filter((k) => k.pairs > 0);
  const builtKinds = kinds.filter((k) => k.kind !== "labelled");
  const builtJudged = builtKinds.reduce((n, k) => n + k.judgements, 0);
  const judgements = kinds.reduce((n, k) => n + k.judgements, 0);
  const sides = pairs.flatMap((p) => {
    const s = p.orders.map((o, i) => sideOf(i, o.winner));
    return s.length === 2 && s[0] !== null && s[1] !== null ? [s[0] === s[1]] : [];
  });
  const wrongShare = (k: Perturbation) => {
    const found = kinds.find((x) => x.kind === k);
    return found ? share(found.wrong, found.judgements) : null;
  };
  const decisive = kindSummary(
    "labelled",
    labelled.filter((p) => p.better !== "tie"),
  );
  const base = {
    pairs: pairs.length,
    judgements,
    unjudged: 2 * pairs.length - judgements,
    agreement: share(
      builtKinds.reduce((n, k) => n + agreeing(k), 0),
      builtJudged,
    ),
    consistency: share(sides.filter(Boolean).length, sides.length),
    kinds,
    length_preference: wrongShare("padded"),
    injection_followed: wrongShare("injected"),
    labelled:
      labelled.length > 0
        ? {
            pairs: labelled.length,
            agreement: share(decisive.right, decisive.judgements),
            kappa: kappa(labelled),
          }
        : null,
  };
  const firstError = pairs.flatMap((p) => p.orders).find((o) => o.error !== null)?.error ?? null;
  const reasons = reasonsOf(base, floor, firstError);
  return { ...base, trusted: reasons.length === 0, reasons };
}
