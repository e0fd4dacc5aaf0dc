// The trial plan: which arm runs first in each pair. Counterbalanced orders
// (AB, BA, AB, …) keep a drift over time from favouring one arm.

import type { Arm } from "../common/arms.ts";
import { mixSeeds, Rng } from "../workload/rng.ts";

export type Order = "abba" | "abab" | "random";
export const ORDERS: readonly Order[] = ["abba", "abab", "random"];

/** The arms of pair `index` (0-based), in running order. */
export function pairOrder(order: Order, index: number, seed: number): [Arm, Arm] {
  const baselineFirst =
    order === "abab"
      ? true
      : order === "abba"
        ? index % 2 === 0
        : new Rng(mixSeeds(seed, 0x0ade5, index)).uniform() < 0.5;
  return baselineFirst ? ["baseline", "candidate"] : ["candidate", "baseline"];
}
