// Answer a support question from a given policy: whether an item can be
// returned (the window, final sale), whether shipping is refunded (damage
// only), and where the refund goes — each answer decided by the policy.

import { pick } from "../../accuracy/tasks/shared.ts";
import type { Rng } from "../../workload/rng.ts";
import { type BuiltinCase, builtinCase } from "./shared.ts";

const FAMILY = "support";
const GOODS = ["lamp", "blender", "jacket", "desk chair", "kettle", "backpack", "monitor"];

interface Case {
  item: string;
  window: number;
  refundDays: number;
  days: number;
  damaged: boolean;
  finalSale: boolean;
}

/** The reference's sentences and an answer as good in other words, as the policy decides. */
function answers(c: Case): [string, string] {
  const returnable = c.days <= c.window && !c.finalSale;
  const first: [string, string] = returnable
    ? [
        `Yes, you can return the ${c.item}: it arrived ${c.days} days ago, within the ${c.window}-day return window.`,
        `You can send the ${c.item} back, since ${c.days} days is inside our ${c.window}-day window for returns.`,
      ]
    : c.finalSale
      ? [
          `Unfortunately the ${c.item} cannot be returned, because items marked final sale are not returnable.`,
          `I'm sorry, but a final-sale item such as your ${c.item} cannot be returned under our policy.`,
        ]
      : [
          `Unfortunately the ${c.item} cannot be returned: it arrived ${c.days} days ago, past the ${c.window}-day return window.`,
          `I'm sorry, but ${c.days} days is beyond our ${c.window}-day return window, so the ${c.item} cannot be returned.`,
        ];
  const second: [string, string] = !returnable
    ? [
        "For the same reason, the shipping cost cannot be refunded.",
        "The shipping cost is not refunded either, as there is no return.",
      ]
    : c.damaged
      ? [
          "Because it arrived damaged, the shipping cost will be refunded as well.",
          "As it was damaged on arrival, you will also get the shipping cost back.",
        ]
      : [
          "The shipping cost is not refunded, since that applies only to items that arrived damaged.",
          "Shipping is refunded only for items that arrived damaged, so it is not refunded here.",
        ];
  const third: [string, string] = returnable
    ? [
        `The refund will go back to your original payment method within ${c.refundDays} business days.`,
        `Expect the money on your original payment method within ${c.refundDays} business days.`,
      ]
    : [
        "If you have other questions about your order, we are happy to help.",
        "Let us know if there is anything else we can do for you.",
      ];
  const say = (k: 0 | 1) => [first[k], second[k], third[k]].join(" ");
  return [say(0), say(1)];
}

export function supportCase(rng: Rng, index: number): BuiltinCase {
  const window = pick(rng, [14, 30, 45]);
  const c: Case = {
    item: pick(rng, GOODS),
    window,
    refundDays: rng.int(3, 10),
    days: rng.uniform() < 0.7 ? rng.int(2, window) : rng.int(window + 1, window + 40),
    damaged: rng.uniform() < 0.5,
    finalSale: rng.uniform() < 0.2,
  };
  const policy = `Returns are accepted within ${c.window} days of delivery. Refunds go back to the original payment method within ${c.refundDays} business days. Items marked final sale cannot be returned. Shipping costs are refunded only when the item arrived damaged.`;
  const question = `I received my ${c.item} ${c.days} days ago${c.damaged ? " and it arrived damaged" : ""}${c.finalSale ? "; it was marked final sale" : ""}. Can I return it, and will I get the shipping cost back?`;
  const [reference, alternative] = answers(c);
  return builtinCase(
    FAMILY,
    index,
    `You answer customers for a shop. Answer the customer's question from the policy below, in two or three sentences.\n\nPolicy: ${policy}\n\nCustomer: ${question}`,
    reference,
    alternative,
  );
}
