// The accuracy suite's looks: its items answered in blocks — the first look's
// items, then doubling, up to the suite's size — each block on both arms, and
// the paired rule judged after each; the suite stops at the first look that
// decides. Each boundary's α is spent over the looks (a Bonferroni split, as
// the pairs spend theirs: most of it at the first look, so that a clear
// answer stops there, the rest in proportion to the items added): a pass or a
// fail at any look keeps its error within α. Pure.

import { percent } from "../common/format.ts";
import { type AccuracyRule, judgeDrop } from "./compare.ts";

/** Items at the first look by default: an A/A or a near-identical candidate decides there. */
export const FIRST_LOOK_ITEMS = 300;
/** Share of each boundary's α spent at the first look when there are later ones. */
export const FIRST_LOOK_SHARE = 0.6;

/** The items answered by each look: the first, doubling, the suite's size last. */
export function itemLooks(firstLook: number, items: number): number[] {
  const looks: number[] = [];
  for (let n = Math.max(1, firstLook); n < items; n *= 2) looks.push(n);
  looks.push(items);
  return looks;
}

/** The α look k spends of a boundary's `alpha`: the first look's share, the rest by the items added. */
export function lookAlpha(looks: readonly number[], k: number, alpha: number): number {
  const first = looks[0] ?? 0;
  const last = looks.at(-1) ?? first;
  if (looks.length <= 1 || last === first) return alpha;
  if (k === 0) return alpha * FIRST_LOOK_SHARE;
  const added = (looks[k] ?? last) - (looks[k - 1] ?? first);
  return (alpha * (1 - FIRST_LOOK_SHARE) * added) / (last - first);
}

/** The rule as look k judges it: each boundary at the α that look spends (accuracy's, the judge's). */
export function ruleAtLook<R extends { passAlpha: number; failAlpha: number }>(
  rule: R,
  looks: readonly number[],
  k: number,
): R {
  return {
    ...rule,
    passAlpha: lookAlpha(looks, k, rule.passAlpha),
    failAlpha: lookAlpha(looks, k, rule.failAlpha),
  };
}

/**
 * The items in the order the looks take them: round-robin over the families
 * (the first of each, then the second of each, …), so that every look is a
 * spread of the suite, never one family.
 */
export function interleaveFamilies<T extends { family: string }>(items: readonly T[]): T[] {
  const families = [...Map.groupBy(items, (i) => i.family).values()];
  const out: T[] = [];
  for (let k = 0; out.length < items.length; k++)
    for (const list of families) {
      const item = list[k];
      if (item) out.push(item);
    }
  return out;
}

/**
 * Why the items left cannot decide, or null: with `b` right → wrong and `c`
 * wrong → right of `n` so far, at the last look neither a pass with no drop
 * at the discordance seen nor a fail at the drop seen. Optimistic on purpose:
 * a suite is given up only when even its best case cannot decide.
 */
export function futileAt(
  b: number,
  c: number,
  n: number,
  rule: AccuracyRule,
  looks: readonly number[],
): string | null {
  const last = looks.length - 1;
  const most = looks[last] ?? 0;
  if (n === 0 || most <= n) return null;
  const scale = most / n;
  const discordant = (b + c) * scale;
  const atLast = ruleAtLook(rule, looks, last);
  if (judgeDrop(discordant / 2, discordant / 2, most, atLast).verdict === "pass") return null;
  if (judgeDrop(b * scale, c * scale, most, atLast).verdict === "fail") return null;
  return `the ${most - n} items left cannot decide: at ${percent(discordant / most)} of items flipping, not even no drop would be shown within the tolerance at ${most} items, nor this drop beyond it`;
}
