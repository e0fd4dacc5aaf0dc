// Absolute budgets on the candidate, in the SLO syntax: "ttft:800 itl:50
// errors:0.1% goodput:9.5" — ms at the gate's percentile, a failure rate,
// requests per second.

import { InputError, rejectValue } from "../common/errors.ts";
import { BUDGET_IDS, type Budgets } from "../compare/budgets.ts";
import type { ScalingBudgets } from "../stress/options.ts";
import { parseDurationS, parseFraction, parseNumber } from "./values.ts";

/** The scaling scenario's budgets (parseScalingBudgets), beside the pairs' own. */
export const SCALING_BUDGET_IDS = ["scale-up", "flaps", "cut"] as const;

/** The setting's key:value parts, each key lower-case. */
function budgetParts(name: string, raw: string): { key: string; text: string }[] {
  if (raw.trim() === "none") return [];
  return raw
    .trim()
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((part) => {
      const m = part.match(/^([a-z0-9_-]+):(.*)$/i);
      if (!m) throw rejectValue(name, raw, ACCEPTED);
      return { key: (m[1] ?? "").toLowerCase(), text: m[2] ?? "" };
    });
}

const isScalingKey = (key: string) => SCALING_BUDGET_IDS.some((k) => k === key);

/** The scaling budgets in the setting: scale-up (a duration), flaps (turns per 10 min), cut (streams a trial). */
export function parseScalingBudgets(name: string, raw: string): ScalingBudgets {
  const budgets: ScalingBudgets = {};
  const seen = new Set<string>();
  for (const { key, text } of budgetParts(name, raw).filter((p) => isScalingKey(p.key))) {
    if (seen.has(key)) throw new InputError(`${name}: "${key}" is given twice`);
    seen.add(key);
    if (key === "scale-up")
      budgets.scaleUpS = parseDurationS(`${name} scale-up`, text, { above: 0, max: 7200 });
    else if (key === "flaps")
      budgets.flaps = parseNumber(`${name} flaps`, text, { min: 0, max: 1000 });
    else budgets.cut = parseNumber(`${name} cut`, text, { min: 0, max: 1_000_000, integer: true });
  }
  return budgets;
}

const ACCEPTED =
  'space-separated key:value pairs such as "ttft:800 itl:50 errors:0.1% goodput:9.5 scale-up:90s"';

export function parseBudgets(name: string, raw: string): Budgets {
  const budgets: Budgets = {};
  for (const { key, text } of budgetParts(name, raw)) {
    if (isScalingKey(key)) continue;
    const id = BUDGET_IDS.find((k) => k === key);
    if (id === undefined) {
      throw new InputError(
        `${name}: unknown budget "${key.slice(0, 40)}"; accepted: ${[...BUDGET_IDS, ...SCALING_BUDGET_IDS].join(", ")}`,
      );
    }
    if (budgets[id] !== undefined) throw new InputError(`${name}: "${key}" is given twice`);
    if (id === "errors") {
      budgets[id] = parseFraction(`${name} errors`, text, 1, true);
      continue;
    }
    const value = Number(text);
    if (!(text !== "" && Number.isFinite(value) && value > 0 && value <= 1e9)) {
      const what =
        id === "goodput" ? "requests per second, > 0" : "milliseconds, > 0 and at most 1e9";
      throw rejectValue(`${name} ${key}`, text, what);
    }
    budgets[id] = value;
  }
  return budgets;
}
